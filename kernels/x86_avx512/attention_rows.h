#pragma once
// What the AVX-512 attention kernels share (attention_avx512.cpp, and attention_amx.cpp, which
// takes the same tiles): rows side by side in vectors, their queries transposed, a group's
// running maximum and sum, and the lane-for-lane softmax of a block of keys. Internal linkage:
// each file compiles these with its own flags. Included by the AVX-512 and AMX tiers' attention.
#include "kernels/attention_tile.h"
#include "kernels/exp_polynomial.h"
#include "kernels/kernel_table.h"
#include "kernels/x86_avx2/expf_avx2.h"
#include "kernels/x86_avx512/expf_avx512.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <immintrin.h>

namespace hearth::kernels::avx512 {
namespace {

constexpr float kLog2E = exp_polynomial::kLog2E; // scores in powers of 2

// Rows first_row .. first_row + lanes - 1 of a tile side by side (lanes past its last row repeat
// it): their queries times the scale (and log2 e, unless soft-capped: scores in powers of 2),
// element d of lane i at transposed[d * lanes + i]; the keys each lane sees, and the first key
// of its window (0 without limits).
inline void transpose_rows(const Tile& t, int64_t first_row, int lanes, bool limited, float* transposed,
                           int32_t* seen, int32_t* window) {
    const float factor = limited && t.limits.softcap > 0 ? t.scale : t.scale * kLog2E;
    for (int lane = 0; lane < lanes; ++lane) {
        const int64_t r = std::min(first_row + lane, t.rows() - 1);
        const float* q = t.q + t.offset(r);
        for (int64_t d = 0; d < t.head_dim; ++d)
            transposed[d * lanes + lane] = q[d] * factor;
        seen[lane] = static_cast<int32_t>(t.keys_seen(r));
        window[lane] = limited ? static_cast<int32_t>(t.first_key(r)) : 0;
    }
}

// --- Query rows side by side, 16 or 8 to a vector ----------------------------------------

// The operations on a vector of rows: 16 lanes (512 bits) or 8 (256 bits, AVX-512 VL), lane for
// lane the same results.
struct Lanes16 {
    static constexpr int kLanes = 16;
    using V = __m512;
    using I = __m512i;
    using Mask = __mmask16;
    static V zero() { return _mm512_setzero_ps(); }
    static V set1(float x) { return _mm512_set1_ps(x); }
    static V load(const float* p) { return _mm512_load_ps(p); }
    static void store(float* p, V x) { _mm512_store_ps(p, x); }
    static I load_int(const int32_t* p) { return _mm512_load_si512(p); }
    static I set1_int(int32_t x) { return _mm512_set1_epi32(x); }
    static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
    static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
    static V add(V a, V b) { return _mm512_add_ps(a, b); }
    static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
    static V div(V a, V b) { return _mm512_div_ps(a, b); }
    static V max(V a, V b) { return _mm512_max_ps(a, b); }
    static V abs(V a) { return _mm512_abs_ps(a); }
    static V sign_of(V a) {
        return _mm512_castsi512_ps(
            _mm512_and_si512(_mm512_castps_si512(a), _mm512_set1_epi32(static_cast<int32_t>(0x80000000u))));
    }
    static V or_bits(V a, V b) { return _mm512_or_ps(a, b); }
    static V exp(V x) { return exp_f32x16(x); }
    static V exp2(V x) { return exp2_f32x16(x); }
    static V blend(Mask take_b, V a, V b) { return _mm512_mask_blend_ps(take_b, a, b); }
    static Mask equal(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
    static Mask not_equal(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ); }
    static Mask greater(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
    static Mask less(I a, I b) { return _mm512_cmplt_epi32_mask(a, b); }
    static Mask greater_equal(I a, I b) { return _mm512_cmpge_epi32_mask(a, b); }
};

struct Lanes8 {
    static constexpr int kLanes = 8;
    using V = __m256;
    using I = __m256i;
    using Mask = __mmask8;
    static V zero() { return _mm256_setzero_ps(); }
    static V set1(float x) { return _mm256_set1_ps(x); }
    static V load(const float* p) { return _mm256_load_ps(p); }
    static void store(float* p, V x) { _mm256_store_ps(p, x); }
    static I load_int(const int32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
    static I set1_int(int32_t x) { return _mm256_set1_epi32(x); }
    static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
    static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
    static V add(V a, V b) { return _mm256_add_ps(a, b); }
    static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
    static V div(V a, V b) { return _mm256_div_ps(a, b); }
    static V max(V a, V b) { return _mm256_max_ps(a, b); }
    static V abs(V a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
    static V sign_of(V a) { return _mm256_and_ps(a, _mm256_set1_ps(-0.0f)); }
    static V or_bits(V a, V b) { return _mm256_or_ps(a, b); }
    static V exp(V x) { return avx2::exp_f32x8(x); }
    static V exp2(V x) { return exp2_f32x8(x); }
    static V blend(Mask take_b, V a, V b) { return _mm256_mask_blend_ps(take_b, a, b); }
    static Mask equal(V a, V b) { return _mm256_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
    static Mask not_equal(V a, V b) { return _mm256_cmp_ps_mask(a, b, _CMP_NEQ_UQ); }
    static Mask greater(V a, V b) { return _mm256_cmp_ps_mask(a, b, _CMP_GT_OQ); }
    static Mask less(I a, I b) { return _mm256_cmplt_epi32_mask(a, b); }
    static Mask greater_equal(I a, I b) { return _mm256_cmpge_epi32_mask(a, b); }
};

// cap * tanh(score / cap), tanh(x) = sign(x) (1 - 2 / (e^2|x| + 1)), as the AVX2 tier does.
template <class L> [[gnu::always_inline]] inline typename L::V soft_cap(typename L::V scores, float cap) {
    const auto x = L::mul(scores, L::set1(1.0f / cap));
    const auto magnitude = L::abs(x);
    const auto e = L::exp(L::add(magnitude, magnitude));
    const auto one = L::set1(1.0f);
    const auto t = L::sub(one, L::div(L::set1(2.0f), L::add(e, one)));
    return L::mul(L::or_bits(t, L::sign_of(x)), L::set1(cap));
}

// 16 vectors folded into one, lane for lane, in one fixed tree: j + 8 onto j, then j + 4, j + 2
// and j + 1. Written out: GCC keeps a loop over the widths as a loop through the stack.
template <class L, class Op>
[[gnu::always_inline]] inline typename L::V fold16(const typename L::V (&x)[16], Op op) {
    typename L::V part[8];
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j)
        part[j] = op(x[j], x[j + 8]);
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j)
        part[j] = op(part[j], part[j + 4]);
    part[0] = op(part[0], part[2]);
    part[1] = op(part[1], part[3]);
    return op(part[0], part[1]);
}

// L::kLanes query rows: lane i is row first_row + i of the tile (lanes past the tile's last row
// repeat it; their results are not written).
template <class L> struct RowGroup {
    int64_t first_row;
    typename L::I keys_seen, first_key;
    int64_t fewest_keys, most_keys;         // over the lanes: from fewest_keys on, keys are masked
    int64_t earliest_window, latest_window; // first keys of the lanes' windows
    typename L::V max, sum;
};

// The group of rows from first_row before any key, its queries transposed (transpose_rows).
template <class L>
RowGroup<L> start_rows(const Tile& t, int64_t first_row, bool limited, float* transposed_queries) {
    constexpr int kLanes = L::kLanes;
    RowGroup<L> g{};
    g.first_row = first_row;
    alignas(64) int32_t seen[kLanes], window[kLanes];
    transpose_rows(t, first_row, kLanes, limited, transposed_queries, seen, window);
    g.keys_seen = L::load_int(seen);
    g.first_key = L::load_int(window);
    g.fewest_keys = *std::min_element(seen, seen + kLanes);
    g.most_keys = *std::max_element(seen, seen + kLanes);
    g.earliest_window = *std::min_element(window, window + kLanes);
    g.latest_window = *std::max_element(window, window + kLanes);
    g.max = L::set1(-INFINITY);
    g.sum = L::zero();
    return g;
}

// The softmax of a block of kHalves x 16 keys from key `first`, lane for lane: the scores s
// soft-capped (with limits) and masked where a lane does not see the key, the running maximum
// and sum brought up to date, and s turned into the weights 2^(score - shift), summed in one
// fixed tree per 16 keys. Returns the factor of what came before (1 where the shift stayed).
template <class L, int kHalves>
[[gnu::always_inline]] inline typename L::V softmax_block(const Tile& t, RowGroup<L>& g, int64_t first,
                                                          bool limited, typename L::V (&s)[kHalves][16]) {
    using V = typename L::V;
    if (limited && t.limits.softcap > 0)
#pragma GCC unroll 2
        for (auto& keys : s)
#pragma GCC unroll 16
            for (V& x : keys)
                x = L::mul(soft_cap<L>(x, t.limits.softcap), L::set1(kLog2E));
    const bool before_some_window = limited && first < g.latest_window;
    if (first + 16 * kHalves > g.fewest_keys || before_some_window) {
#pragma GCC unroll 2
        for (int half = 0; half < kHalves; ++half)
#pragma GCC unroll 16
            for (int j = 0; j < 16; ++j) {
                const auto key = L::set1_int(static_cast<int32_t>(first + 16 * half + j));
                auto seen = L::less(key, g.keys_seen);
                if (limited) seen &= L::greater_equal(key, g.first_key);
                s[half][j] = L::blend(seen, L::set1(-INFINITY), s[half][j]);
            }
    }
    const auto max_of = [](V a, V b) { return L::max(a, b); };
    const auto sum_of = [](V a, V b) { return L::add(a, b); };
    V block_max = fold16<L>(s[0], max_of);
#pragma GCC unroll 2
    for (int half = 1; half < kHalves; ++half)
        block_max = L::max(block_max, fold16<L>(s[half], max_of));
    // The running maximum moves only when a score passes it by more than kMaximumSlack (in
    // powers of 2): below that, the weights stay at most 2^kMaximumSlack, far from F32's range,
    // and the outputs need no rescaling (each rescale rewrites a group's outputs). A row's weights are
    // relative to its own shift alone, so its result does not depend on the other rows; the quotient by the
    // sum is the softmax whatever the shift.
    constexpr float kMaximumSlack = 8.0f;
    const V new_max = L::blend(L::greater(block_max, L::add(g.max, L::set1(kMaximumSlack))), g.max,
                               L::max(g.max, block_max));
    // The shift: the maximum, or 0 while every score so far is -inf (whose weights are then
    // 2^(-inf - 0) = 0, not 2^(-inf - -inf)).
    const V shift = L::blend(L::equal(new_max, L::set1(-INFINITY)), new_max, L::zero());
    const V rescale = L::exp2(L::sub(g.max, shift));
    g.max = new_max;
#pragma GCC unroll 2
    for (auto& keys : s)
#pragma GCC unroll 16
        for (V& x : keys)
            x = L::exp2(L::sub(x, shift)); // the weights
    V block_sum = fold16<L>(s[0], sum_of);
#pragma GCC unroll 2
    for (int half = 1; half < kHalves; ++half)
        block_sum = L::add(block_sum, fold16<L>(s[half], sum_of));
    g.sum = L::fmadd(g.sum, rescale, block_sum);
    return rescale;
}

} // namespace
} // namespace hearth::kernels::avx512
