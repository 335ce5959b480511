// Prefill for F16 and BF16 weights, with activations of their type (gemm_tiles.h drives the
// tiles; gemm_avx2.cpp's gemm_for picks the family).
#include "kernels/block_formats.h"
#include "kernels/tensor_type.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/float_rows.h"
#include "kernels/x86_avx2/gemm_tiles.h"

#include <vector>

namespace hearth::kernels::avx2 {
namespace {

// F16 and BF16 weights with activations of the same type, in vec_dot_f16/bf16_f16/bf16's order
// (ggml_vec_dot_f16's): per pair, four accumulators over blocks of 32, reduce_like_ggml, the
// tail's exact products added in double. A tile of weight rows is widened once into a panel of
// floats; each activation block is widened once for all the tile's rows.
struct FloatPanel {
    std::vector<float> values; // (row, column)
    int64_t cols = 0;
};

template <bool kBf16>
void widen_half_rows(const char* w, size_t w_stride, int rows, int64_t cols, FloatPanel& panel) {
    grow_panel(static_cast<size_t>(rows * cols), panel.values);
    panel.cols = cols;
    for (int r = 0; r < rows; ++r) {
        const auto* row = reinterpret_cast<const uint16_t*>(w + r * w_stride);
        float* out = panel.values.data() + r * cols;
        int64_t i = 0;
        for (; i + 8 <= cols; i += 8)
            _mm256_storeu_ps(out + i, load8(row + i, kBf16));
        for (; i < cols; ++i)
            out[i] = load1(row + i, kBf16);
    }
}

template <bool kBf16> struct HalfPanelTile {
    template <int RM, int RN> struct Tile {
        static void run(const FloatPanel& panel, const char* a, size_t a_stride, float* y, int64_t y_stride) {
            const int64_t n = panel.cols;
            for (int b = 0; b < RN; ++b) {
                const auto* x = reinterpret_cast<const uint16_t*>(a + b * a_stride);
                const float* w[RM];
#pragma GCC unroll 4
                for (int r = 0; r < RM; ++r)
                    w[r] = panel.values.data() + r * n;
                __m256 acc[RM][4];
#pragma GCC unroll 4
                for (int r = 0; r < RM; ++r)
#pragma GCC unroll 4
                    for (int k = 0; k < 4; ++k)
                        acc[r][k] = _mm256_setzero_ps();
                int64_t i = 0;
                for (; i + 32 <= n; i += 32)
#pragma GCC unroll 4
                    for (int k = 0; k < 4; ++k) {
                        const __m256 xv = load8(x + i + 8 * k, kBf16);
#pragma GCC unroll 4
                        for (int r = 0; r < RM; ++r)
                            acc[r][k] = _mm256_fmadd_ps(_mm256_loadu_ps(w[r] + i + 8 * k), xv, acc[r][k]);
                    }
#pragma GCC unroll 4
                for (int r = 0; r < RM; ++r) {
                    double sum = 0;
                    if (i > 0) sum = reduce_like_ggml(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
                    for (int64_t j = i; j < n; ++j)
                        sum += w[r][j] * load1(x + j, kBf16);
                    y[b * y_stride + r] = static_cast<float>(sum);
                }
            }
        }
    };
};

// F16 and BF16: 3 rows x 4 accumulators fill 12 registers; each activation row goes alone.
constexpr int kHalfRows = 3;

template <bool kBf16> void prefill_half(const GemmCall& call) {
    panel_gemm<kHalfRows, 1, HalfPanelTile<kBf16>::template Tile, FloatPanel>(widen_half_rows<kBf16>, call.n,
                                                                              call);
}

} // namespace

// Without AVX, like build_table, its caller.
__attribute__((target("no-avx"))) GemmFn gemm_for_float(TensorType type) {
    switch (type) {
    case TensorType::F16:
        return gemm_entry<vec_dot_f16_f16, prefill_half<false>>;
    case TensorType::BF16:
        return gemm_entry<vec_dot_bf16_bf16, prefill_half<true>>;
    default:
        return nullptr;
    }
}

} // namespace hearth::kernels::avx2
