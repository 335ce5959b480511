#pragma once
// What a K-quant super-block decoded once for several activation rows (gemm_by_decoded_blocks,
// gemm_by_rows.h) shares on the AVX2 and AVX-512 tiers: Q8_K activations, QK_K elements a block,
// partial sums in 8 float lanes summed as the AVX2 tier's dot products sum them. A Decoded type
// derives from it and adds its constructor (the decoding) and accumulate.
#include "kernels/block_formats.h"
#include "kernels/x86_avx2/avx2_util.h"
#include <cstdint>
#include <immintrin.h>

namespace hearth::kernels {
namespace {

template <class WeightBlock> struct DecodedKQuant {
    using Block = WeightBlock;
    using ActivationBlock = BlockQ8_K;
    static constexpr int64_t kBlockElements = QK_K;
    static __m256 zero() { return _mm256_setzero_ps(); }
    static float sum(__m256 acc) { return avx2::hsum(acc); }
};

} // namespace
} // namespace hearth::kernels
