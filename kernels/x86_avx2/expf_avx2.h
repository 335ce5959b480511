#pragma once
// expf of 8 floats at once, bit for bit what glibc's expf returns on a CPU with FMA (its
// __expf_fma, the variant llama.cpp's flash attention calls on AVX2 machines): the same
// algorithm (2^(k/32) from a table times a cubic in double precision) with the same fused
// multiply-adds. Lanes with |x| >= 88, infinities and NaNs (glibc's special cases) go to
// std::exp itself. Include only from kernels/x86_avx2/*.cpp.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <immintrin.h>

namespace hearth::kernels::avx2 {

namespace expf_detail {

constexpr int kTableBits = 5;
constexpr double kInvLn2Scaled = 0x1.71547652b82fep+0 * (1 << kTableBits); // 32 / ln 2
constexpr double kShift = 0x1.8p+52;                                       // rounds to an integer
// The cubic in r (|r| <= 1/2) for 2^(r/32), coefficients of r^3, r^2, r.
constexpr double kC0 = 0x1.c6af84b912394p-5 / 32 / 32 / 32;
constexpr double kC1 = 0x1.ebfce50fac4f3p-3 / 32 / 32;
constexpr double kC2 = 0x1.62e42ff0c52d6p-1 / 32;

// tab[i] = bits of 2^(i/32) minus i << 47, so that tab[k % 32] + (k << 47) are the bits of
// 2^(k/32) for any integer k in range (the exponent field takes k / 32).
// Built once at start-up (namespace scope: no initialisation guard on every call, as a
// function's static would have in the attention's inner loop).
inline const std::array<int64_t, 32> kTable = [] {
    std::array<int64_t, 32> t{};
    for (int i = 0; i < 32; ++i) {
        const double value = static_cast<double>(std::exp2(static_cast<long double>(i) / 32));
        uint64_t bits;
        std::memcpy(&bits, &value, sizeof bits);
        t[static_cast<size_t>(i)] = static_cast<int64_t>(bits - (static_cast<uint64_t>(i) << 47));
    }
    return t;
}();

// Four lanes, all with |x| < 88.
[[gnu::always_inline]] inline __m128 exp4(__m128 x, const long long* tab) {
    const __m256d xd = _mm256_cvtps_pd(x);
    const __m256d invln2 = _mm256_set1_pd(kInvLn2Scaled), shift = _mm256_set1_pd(kShift);
    const __m256d shifted = _mm256_fmadd_pd(invln2, xd, shift); // k + shift, k = round(x * 32/ln2)
    const __m256i ki = _mm256_castpd_si256(shifted);
    const __m256d kd = _mm256_sub_pd(shifted, shift);
    const __m256d r = _mm256_fmsub_pd(invln2, xd, kd);
    const __m256i t =
        _mm256_add_epi64(_mm256_i64gather_epi64(tab, _mm256_and_si256(ki, _mm256_set1_epi64x(31)), 8),
                         _mm256_slli_epi64(ki, 47));
    const __m256d s = _mm256_castsi256_pd(t);
    const __m256d z = _mm256_fmadd_pd(r, _mm256_set1_pd(kC0), _mm256_set1_pd(kC1));
    const __m256d r2 = _mm256_mul_pd(r, r);
    __m256d y = _mm256_fmadd_pd(r, _mm256_set1_pd(kC2), _mm256_set1_pd(1.0));
    y = _mm256_fmadd_pd(z, r2, y);
    return _mm256_cvtpd_ps(_mm256_mul_pd(y, s));
}

} // namespace expf_detail

[[gnu::always_inline]] inline __m256 expf_like_libm(__m256 x) {
    const auto* tab = reinterpret_cast<const long long*>(expf_detail::kTable.data());
    // glibc's fast path is |x| < 88 (the top 12 bits of |x| below those of 88.0f).
    const __m256 magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
    const int special = _mm256_movemask_ps(_mm256_cmp_ps(magnitude, _mm256_set1_ps(88.0f), _CMP_NLT_UQ));
    __m256 y = _mm256_set_m128(expf_detail::exp4(_mm256_extractf128_ps(x, 1), tab),
                               expf_detail::exp4(_mm256_castps256_ps128(x), tab));
    if (special != 0) {
        alignas(32) float in[8], out[8];
        _mm256_store_ps(in, x);
        _mm256_store_ps(out, y);
        for (int lane = 0; lane < 8; ++lane)
            if (special & (1 << lane)) out[lane] = std::exp(in[lane]);
        y = _mm256_load_ps(out);
    }
    return y;
}

} // namespace hearth::kernels::avx2
