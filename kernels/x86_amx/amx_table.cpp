// The AMX tier: the tile kernels in front of the AVX-512 tier's candidates; later additions go
// first. Building it only takes the kernels' addresses.
#include "kernels/x86_amx/amx_kernels.h"

namespace hearth::kernels::amx {

void add_kernels(KernelTable& table) {
    add_attention_kernels(table);
    add_q8_0_gemm_kernels(table);
    add_bf16_gemm_kernels(table);
}

} // namespace hearth::kernels::amx
