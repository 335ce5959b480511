// The AVX-512 tier: the shared VNNI kernels (in 512-bit vectors) and this tier's own, in front of
// the AVX2 tier's candidates. Later additions go first.
#define HEARTH_VNNI_NS avx512
#define HEARTH_AVX512 1
#include "kernels/x86_avx512/avx512_kernels.h"
#include "kernels/x86_vnni_shared/vnni_table.h"

namespace hearth::kernels::avx512 {

void add_kernels(KernelTable& table) {
    add_vnni_kernels(table);
    add_attention_kernels(table);
    add_low_bit_k_quant_kernels(table);
    add_quantizer_kernels(table);
    add_float_kernels(table);
}

} // namespace hearth::kernels::avx512
