// The blocked matrix-matrix kernels for prefill, by format family: float (gemm_float_avx2.cpp),
// the 32-element blocks (gemm_block32_avx2.cpp) and the K-quants (gemm_k_quants_avx2.cpp).
#include "kernels/x86_avx2/avx2_kernels.h"

namespace hearth::kernels::avx2 {

// Without AVX, like build_table, its caller.
__attribute__((target("no-avx"))) GemmFn gemm_for(TensorType type) {
    if (GemmFn gemm = gemm_for_float(type)) return gemm;
    if (GemmFn gemm = gemm_for_block32(type)) return gemm;
    return gemm_for_k_quant(type);
}

} // namespace hearth::kernels::avx2
