// Dot products of the 32-element quant formats (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0) with Q8_0 activations.
// Each block's integer dot product is exact; its scale is applied with one FMA per block.
#include "kernels/block_formats.h"
#include "kernels/gemm_by_rows.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/avx2_util.h"
#include "kernels/x86_avx2/legacy_block_quants.h"

namespace hearth::kernels::avx2 {
namespace {

inline __m256i load32(const int8_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// Sums blocks with `block_dot(i, acc)` into ONE accumulator in block order (llama.cpp's
// rounding), two blocks per step so that their integer work overlaps.
template <class BlockDot> float sum_blocks(int64_t blocks, BlockDot block_dot) {
    __m256 acc = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 2 <= blocks; i += 2) {
        acc = block_dot(i, acc);
        acc = block_dot(i + 1, acc);
    }
    if (i < blocks) acc = block_dot(i, acc);
    return hsum(acc);
}

// One block's contribution to a signed dot: the combined scale and the 8 int32 lane sums as
// floats. Kept apart from the accumulation so that two blocks' integer work is independent.
struct BlockTerm {
    __m256 scale;
    __m256 sum;
};

inline BlockTerm signed_term(__m256i q_signed, const BlockQ8_0& a, float d) {
    const __m256i dot = dot_i8_i8(q_signed, load32(a.qs));
    return {_mm256_set1_ps(d * fp16_at(&a.d)), _mm256_cvtepi32_ps(dot)};
}

// Sums the terms of signed formats: two blocks decoded per step, then two FMAs in block order.
template <class Term> float sum_signed_blocks(int64_t blocks, Term term) {
    __m256 acc = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 2 <= blocks; i += 2) {
        const BlockTerm t0 = term(i), t1 = term(i + 1);
        acc = _mm256_fmadd_ps(t0.scale, t0.sum, acc);
        acc = _mm256_fmadd_ps(t1.scale, t1.sum, acc);
    }
    if (i < blocks) {
        const BlockTerm t = term(i);
        acc = _mm256_fmadd_ps(t.scale, t.sum, acc);
    }
    return hsum(acc);
}

// For the formats with a minimum: d*dx * dot(q, x) + m*dx * sum(x), folded into one accumulator.
inline __m256 scaled_with_min(__m256i q_unsigned, const BlockQ8_0& a, float d, float m, __m256 acc) {
    const __m256i x = load32(a.qs);
    const float dx = fp16_at(&a.d);
    const __m256i dot = dot_u8_i8(q_unsigned, x);
    const __m256i sum = dot_u8_i8(_mm256_set1_epi8(1), x);
    acc = _mm256_fmadd_ps(_mm256_set1_ps(d * dx), _mm256_cvtepi32_ps(dot), acc);
    return _mm256_fmadd_ps(_mm256_set1_ps(m * dx), _mm256_cvtepi32_ps(sum), acc);
}

// A block decoded once for several activation rows (gemm_by_decoded_blocks, gemm_by_rows.h),
// each row's operations those of the dot products below, block by block: the same bits.
template <class WeightBlock> struct DecodedBlock32 {
    using Block = WeightBlock;
    using ActivationBlock = BlockQ8_0;
    static constexpr int64_t kBlockElements = QK8_0;
    static __m256 zero() { return _mm256_setzero_ps(); }
    static float sum(__m256 acc) { return hsum(acc); }
};

// Q8_0, Q4_0, Q5_0: the signed quants and their magnitudes (dot_i8_i8's operand), the scale.
template <class WeightBlock> struct DecodedSigned : DecodedBlock32<WeightBlock> {
    __m256i quants, magnitudes;
    float d;
    explicit DecodedSigned(const WeightBlock& w)
        : quants(signed_quants(w)), magnitudes(_mm256_sign_epi8(quants, quants)), d(fp16_at(&w.d)) {}
    __m256 accumulate(const BlockQ8_0& a, __m256 acc) const {
        const __m256i dot = dot_u8_i8(magnitudes, _mm256_sign_epi8(load32(a.qs), quants));
        return _mm256_fmadd_ps(_mm256_set1_ps(d * fp16_at(&a.d)), _mm256_cvtepi32_ps(dot), acc);
    }
};

// Q4_1, Q5_1: the unsigned quants, the scale and the minimum.
template <class WeightBlock> struct DecodedWithMin : DecodedBlock32<WeightBlock> {
    __m256i quants;
    float d, m;
    explicit DecodedWithMin(const WeightBlock& w)
        : quants(unsigned_quants(w)), d(fp16_at(&w.d)), m(fp16_at(&w.m)) {}
    __m256 accumulate(const BlockQ8_0& a, __m256 acc) const { return scaled_with_min(quants, a, d, m, acc); }
};

// Activation rows per pass over a weight row.
constexpr int kBlock32RowsPerPass = 4;

} // namespace

// Without AVX, like build_table, its caller.
__attribute__((target("no-avx"))) GemmFn rows_as_decode_gemm_for_block32(TensorType type) {
    switch (type) {
    case TensorType::Q8_0:
        return gemm_by_decoded_blocks<DecodedSigned<BlockQ8_0>, kBlock32RowsPerPass>;
    case TensorType::Q4_0:
        return gemm_by_decoded_blocks<DecodedSigned<BlockQ4_0>, kBlock32RowsPerPass>;
    case TensorType::Q5_0:
        return gemm_by_decoded_blocks<DecodedSigned<BlockQ5_0>, kBlock32RowsPerPass>;
    case TensorType::Q4_1:
        return gemm_by_decoded_blocks<DecodedWithMin<BlockQ4_1>, kBlock32RowsPerPass>;
    case TensorType::Q5_1:
        return gemm_by_decoded_blocks<DecodedWithMin<BlockQ5_1>, kBlock32RowsPerPass>;
    default:
        return nullptr;
    }
}

float vec_dot_q8_0_q8_0(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const BlockQ8_0*>(weight_row);
    const auto* a = static_cast<const BlockQ8_0*>(activation_row);
    return sum_signed_blocks(
        n / QK8_0, [&](int64_t i) { return signed_term(signed_quants(w[i]), a[i], fp16_at(&w[i].d)); });
}

float vec_dot_q4_0_q8_0(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const BlockQ4_0*>(weight_row);
    const auto* a = static_cast<const BlockQ8_0*>(activation_row);
    return sum_signed_blocks(
        n / QK4_0, [&](int64_t i) { return signed_term(signed_quants(w[i]), a[i], fp16_at(&w[i].d)); });
}

float vec_dot_q5_0_q8_0(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const BlockQ5_0*>(weight_row);
    const auto* a = static_cast<const BlockQ8_0*>(activation_row);
    return sum_signed_blocks(
        n / QK5_0, [&](int64_t i) { return signed_term(signed_quants(w[i]), a[i], fp16_at(&w[i].d)); });
}

float vec_dot_q4_1_q8_0(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const BlockQ4_1*>(weight_row);
    const auto* a = static_cast<const BlockQ8_0*>(activation_row);
    return sum_blocks(n / QK4_1, [&](int64_t i, __m256 acc) {
        return scaled_with_min(unsigned_quants(w[i]), a[i], fp16_at(&w[i].d), fp16_at(&w[i].m), acc);
    });
}

float vec_dot_q5_1_q8_0(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const BlockQ5_1*>(weight_row);
    const auto* a = static_cast<const BlockQ8_0*>(activation_row);
    return sum_blocks(n / QK5_1, [&](int64_t i, __m256 acc) {
        return scaled_with_min(unsigned_quants(w[i]), a[i], fp16_at(&w[i].d), fp16_at(&w[i].m), acc);
    });
}

} // namespace hearth::kernels::avx2
