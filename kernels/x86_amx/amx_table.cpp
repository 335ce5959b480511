// The AMX tier: the AVX-512 tier's table with the tile kernels over it. Building it only takes
// the kernels' addresses, so this file needs no AMX flags.
#include "kernels/x86_amx/amx_kernels.h"

namespace hearth::kernels::amx {

void add_kernels(KernelTable& table) {
    add_attention_kernels(table);
    add_q8_0_gemm_kernels(table);
    add_q4_k_gemm_kernels(table);
    add_bf16_gemm_kernels(table);
}

} // namespace hearth::kernels::amx
