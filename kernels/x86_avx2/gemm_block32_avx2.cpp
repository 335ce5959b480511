// Prefill for the 32-element block formats (Q8_0, Q5_0, Q4_0, Q5_1, Q4_1) with Q8_0
// activations; the arithmetic per (row, activation) pair is that of their vec_dot kernels.
#include "kernels/block_formats.h"
#include "kernels/tensor_type.h"
#include "kernels/x86_avx2/avx2_k_quants.h" // load256
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/gemm_tiles.h"
#include "kernels/x86_avx2/legacy_block_quants.h"

#include <vector>

namespace hearth::kernels::avx2 {
namespace {

// The 32-element signed formats in prefill: a tile of weight rows is decoded once into a panel
// (per block: the int8 quants, their magnitudes for maddubs, the scale as a float) that every
// activation tile then reads, rather than decoding it again for every activation tile; the
// arithmetic per (row, activation) pair is that of the vec_dot kernels, block by block.
struct alignas(32) Bytes32 {
    uint8_t bytes[32];
};
struct SignedPanel {
    std::vector<Bytes32> quants, magnitudes; // (row, block)
    std::vector<float> scales;               // (row, block)
    int64_t blocks = 0;
};

template <class Block>
void decode_signed_rows(const char* w, size_t w_stride, int rows, int64_t blocks, SignedPanel& panel) {
    grow_panel(static_cast<size_t>(rows * blocks), panel.quants, panel.magnitudes, panel.scales);
    panel.blocks = blocks;
    for_each_panel_block<Block>(w, w_stride, rows, blocks, [&](const Block& block, size_t at) {
        const __m256i q = signed_quants(block);
        _mm256_store_si256(reinterpret_cast<__m256i*>(&panel.quants[at]), q);
        _mm256_store_si256(reinterpret_cast<__m256i*>(&panel.magnitudes[at]), _mm256_sign_epi8(q, q));
        panel.scales[at] = fp16_at(&block.d);
    });
}

// GCC at -O2 keeps the small r/b loops as loops and the accumulators in memory; the pragmas
// unroll them so that the tile lives in registers.
template <int RM, int RN> struct SignedPanelTile {
    static void run(const SignedPanel& panel, const char* a, size_t a_stride, float* y, int64_t y_stride) {
        const int64_t blocks = panel.blocks;
        __m256 acc[RM][RN];
        zero_tile(acc);
        const __m256i ones = _mm256_set1_epi16(1);
        for (int64_t i = 0; i < blocks; ++i) {
            const BlockQ8_0* ab[RN];
            __m256 da[RN];
#pragma GCC unroll 4
            for (int b = 0; b < RN; ++b) {
                ab[b] = row_of<BlockQ8_0>(a, a_stride, b) + i;
                da[b] = _mm256_set1_ps(fp16_at(&ab[b]->d));
            }
#pragma GCC unroll 4
            for (int r = 0; r < RM; ++r) {
                const size_t at = static_cast<size_t>(r * blocks + i);
                const __m256i q = _mm256_load_si256(reinterpret_cast<const __m256i*>(&panel.quants[at]));
                const __m256i q_abs =
                    _mm256_load_si256(reinterpret_cast<const __m256i*>(&panel.magnitudes[at]));
                const __m256 dw = _mm256_broadcast_ss(&panel.scales[at]);
#pragma GCC unroll 4
                for (int b = 0; b < RN; ++b) {
                    const __m256i x = _mm256_sign_epi8(load256(ab[b]->qs), q);
                    const __m256i dot = _mm256_madd_epi16(_mm256_maddubs_epi16(q_abs, x), ones);
                    // dw * da rounds exactly as the scalar product of the vec_dot kernels.
                    acc[r][b] = _mm256_fmadd_ps(_mm256_mul_ps(dw, da[b]), _mm256_cvtepi32_ps(dot), acc[r][b]);
                }
            }
        }
        store_tile<RM, RN>(acc, y, y_stride);
    }
};

// The 32-element formats with a minimum (Q4_1, Q5_1): per block, d*dx * dot(q, x) and then
// m*dx * sum(x) into the pair's accumulator, as vec_dot_q4_1/q5_1_q8_0 fold them. The panel
// holds each block's unsigned quants and its d and m as floats; sum(x) is taken once per
// activation block for all the tile's rows.
struct MinPanel {
    std::vector<Bytes32> quants; // (row, block)
    std::vector<float> scales, minima;
    int64_t blocks = 0;
};

template <class Block>
void decode_min_rows(const char* w, size_t w_stride, int rows, int64_t blocks, MinPanel& panel) {
    grow_panel(static_cast<size_t>(rows * blocks), panel.quants, panel.scales, panel.minima);
    panel.blocks = blocks;
    for_each_panel_block<Block>(w, w_stride, rows, blocks, [&](const Block& block, size_t at) {
        _mm256_store_si256(reinterpret_cast<__m256i*>(&panel.quants[at]), unsigned_quants(block));
        panel.scales[at] = fp16_at(&block.d);
        panel.minima[at] = fp16_at(&block.m);
    });
}

template <int RM, int RN> struct MinPanelTile {
    static void run(const MinPanel& panel, const char* a, size_t a_stride, float* y, int64_t y_stride) {
        const int64_t blocks = panel.blocks;
        __m256 acc[RM][RN];
        zero_tile(acc);
        for (int64_t i = 0; i < blocks; ++i) {
#pragma GCC unroll 4
            for (int b = 0; b < RN; ++b) {
                const BlockQ8_0& activation = row_of<BlockQ8_0>(a, a_stride, b)[i];
                const __m256i x = load256(activation.qs);
                const __m256 dx = _mm256_set1_ps(fp16_at(&activation.d));
                const __m256 sum = _mm256_cvtepi32_ps(dot_u8_i8(_mm256_set1_epi8(1), x));
#pragma GCC unroll 4
                for (int r = 0; r < RM; ++r) {
                    const size_t at = static_cast<size_t>(r * blocks + i);
                    const __m256i q = _mm256_load_si256(reinterpret_cast<const __m256i*>(&panel.quants[at]));
                    const __m256 dot = _mm256_cvtepi32_ps(dot_u8_i8(q, x));
                    // d * dx and m * dx round as the vec_dot kernels' scalar products.
                    acc[r][b] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_broadcast_ss(&panel.scales[at]), dx),
                                                dot, acc[r][b]);
                    acc[r][b] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_broadcast_ss(&panel.minima[at]), dx),
                                                sum, acc[r][b]);
                }
            }
        }
        store_tile<RM, RN>(acc, y, y_stride);
    }
};

// Tile of the 32-element signed formats: its accumulators, a panel block, scales and one
// activation block must fit the 16 ymm registers, or GCC spills the accumulators. Four weight
// rows by three activations: each panel block loaded is used three times, and one broadcast
// activation scale fewer is held than in three by four.
constexpr int kSignedRows = 4, kSignedCols = 3;
// The formats with a minimum keep a second accumulator per pair: 3x3.
constexpr int kMinRows = 3, kMinCols = 3;

template <class Block> void prefill_signed(const GemmCall& call) {
    panel_gemm<kSignedRows, kSignedCols, SignedPanelTile, SignedPanel>(decode_signed_rows<Block>,
                                                                       call.n / QK8_0, call);
}
template <class Block> void prefill_with_min(const GemmCall& call) {
    panel_gemm<kMinRows, kMinCols, MinPanelTile, MinPanel>(decode_min_rows<Block>, call.n / QK8_0, call);
}

} // namespace

// Without AVX, like build_table, its caller.
__attribute__((target("no-avx"))) GemmFn gemm_for_block32(TensorType type) {
    using T = TensorType;
    switch (type) {
    case T::Q4_0:
        return gemm_entry<vec_dot_q4_0_q8_0, prefill_signed<BlockQ4_0>>;
    case T::Q5_0:
        return gemm_entry<vec_dot_q5_0_q8_0, prefill_signed<BlockQ5_0>>;
    case T::Q8_0:
        return gemm_entry<vec_dot_q8_0_q8_0, prefill_signed<BlockQ8_0>>;
    case T::Q4_1:
        return gemm_entry<vec_dot_q4_1_q8_0, prefill_with_min<BlockQ4_1>>;
    case T::Q5_1:
        return gemm_entry<vec_dot_q5_1_q8_0, prefill_with_min<BlockQ5_1>>;
    default:
        return nullptr;
    }
}

} // namespace hearth::kernels::avx2
