// Q4_0 x Q8_0 in the order of llama.cpp's CPU backend for matrices whose row count is a
// multiple of 8. On AVX2 CPUs llama.cpp repacks those Q4_0 matrices at load into blocks that
// interleave 8 rows (ggml-cpu/repack.cpp, q4_0_8x8), and its gemv/gemm kernels add each block's
// whole integer dot product with one FMA:
//     acc = fma(float(sum_k (q_k - 8) * a_k), fp16(d_w) * fp16(d_a), acc),  block by block from 0
// (vec_dot instead keeps 8 float lanes per row and sums them at the end: a different rounding).
// The rows stay row-major here; 8 rows are reduced together in registers, row r in lane r.
#include "kernels/block_formats.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/avx2_util.h"
#include "kernels/x86_avx2/groups_of_8.h"

#include <algorithm>

namespace hearth::kernels::avx2 {
namespace {

constexpr int kRows = kGroupRows; // rows reduced together, as llama.cpp interleaves them
// Activation rows per pass over a group of weight rows in prefill.
constexpr int kBatchTile = 4;

// The 32 quants of a block as bytes 0..15 in element order: the 16 packed bytes in both lanes,
// the high lane shifted down by 4.
inline __m256i unsigned_quants(const BlockQ4_0& block) {
    const __m256i packed =
        _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block.qs)));
    return _mm256_and_si256(_mm256_srlv_epi64(packed, _mm256_set_epi64x(4, 4, 0, 0)), _mm256_set1_epi8(0x0F));
}

// Exact integer dot products of 8 weight blocks (quants q, 0..15, meaning q - 8) with one
// activation block a: lane r = sum_k (q[r]_k - 8) * a_k. Everything stays in int16 until the
// last step: maddubs adds two products of at most 15 * 128; subtracting the pairs of 8 * a
// (offset_pairs) leaves (q - 8) * a pairs, and a sum of 16 such products is at most 16384.
inline __m256i dot_8_rows(const __m256i (&q)[kRows], __m256i a, __m256i offset_pairs) {
    __m256i p[kRows];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r)
        p[r] = _mm256_sub_epi16(_mm256_maddubs_epi16(q[r], a), offset_pairs);
    const __m256i p01 = _mm256_hadd_epi16(p[0], p[1]), p23 = _mm256_hadd_epi16(p[2], p[3]);
    const __m256i p45 = _mm256_hadd_epi16(p[4], p[5]), p67 = _mm256_hadd_epi16(p[6], p[7]);
    // Word r of each 128-bit lane: row r's sum over that lane's 16 elements.
    const __m256i halves = _mm256_hadd_epi16(_mm256_hadd_epi16(p01, p23), _mm256_hadd_epi16(p45, p67));
    return _mm256_add_epi32(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(halves)),
                            _mm256_cvtepi16_epi32(_mm256_extracti128_si256(halves, 1)));
}

// The fp16 scales of 8 blocks as floats, lane r from blocks[r].
inline __m256 row_scales(const BlockQ4_0* const (&blocks)[kRows]) {
    __m128i d = _mm_cvtsi32_si128(blocks[0]->d);
    d = _mm_insert_epi16(d, blocks[1]->d, 1);
    d = _mm_insert_epi16(d, blocks[2]->d, 2);
    d = _mm_insert_epi16(d, blocks[3]->d, 3);
    d = _mm_insert_epi16(d, blocks[4]->d, 4);
    d = _mm_insert_epi16(d, blocks[5]->d, 5);
    d = _mm_insert_epi16(d, blocks[6]->d, 6);
    d = _mm_insert_epi16(d, blocks[7]->d, 7);
    return _mm256_cvtph_ps(d);
}

// One group of 8 weight rows (rows[r]; a group at the end of the range repeats its last row)
// times RN activation rows. Writes lanes [0, valid_rows) of out[b * y_stride + r].
// prefetch, when set, is the next group's first byte: it is asked for at the pace this group
// is read, one group ahead (decode streams the weights once; see matmul.cpp).
template <int RN>
void group_times_activations(int64_t blocks, const BlockQ4_0* const (&rows)[kRows], const char* a,
                             size_t a_stride, float* out, int64_t y_stride, int valid_rows,
                             const char* prefetch) {
    __m256 acc[RN];
#pragma GCC unroll 8
    for (auto& v : acc)
        v = _mm256_setzero_ps();
    const __m256i eights = _mm256_set1_epi8(8);
    for (int64_t i = 0; i < blocks; ++i) {
        if (prefetch != nullptr) {
            // 8 blocks = 144 bytes per step: three lines keep the pace without a gap.
            _mm_prefetch(prefetch, _MM_HINT_T0);
            _mm_prefetch(prefetch + 64, _MM_HINT_T0);
            _mm_prefetch(prefetch + 128, _MM_HINT_T0);
            prefetch += kRows * sizeof(BlockQ4_0);
        }
        const BlockQ4_0* blocks_i[kRows];
        __m256i q[kRows];
#pragma GCC unroll 8
        for (int r = 0; r < kRows; ++r) {
            blocks_i[r] = rows[r] + i;
            q[r] = unsigned_quants(*blocks_i[r]);
        }
        const __m256 weight_scales = row_scales(blocks_i);
#pragma GCC unroll 8
        for (int b = 0; b < RN; ++b) {
            const auto& ab = reinterpret_cast<const BlockQ8_0*>(a + b * a_stride)[i];
            const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ab.qs));
            const __m256i sums = dot_8_rows(q, x, _mm256_maddubs_epi16(eights, x));
            // The scale product rounds first, as in llama.cpp: d_w * d_a, then one FMA.
            const __m256 scale = _mm256_mul_ps(weight_scales, _mm256_set1_ps(fp16_to_float(ab.d)));
            acc[b] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sums), scale, acc[b]);
        }
    }
#pragma GCC unroll 8
    for (int b = 0; b < RN; ++b) {
        store_group_lanes(acc[b], out + b * y_stride, valid_rows);
    }
}

using GroupFn = void (*)(int64_t, const BlockQ4_0* const (&)[kRows], const char*, size_t, float*, int64_t,
                         int, const char*);
constexpr GroupFn kGroupFns[kBatchTile] = {group_times_activations<1>, group_times_activations<2>,
                                           group_times_activations<3>, group_times_activations<4>};

} // namespace

void gemm_q4_0_q8_0_groups_of_8(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin,
                                int64_t row_end, const void* activations, size_t activation_row_bytes,
                                int64_t batch, float* y, int64_t y_stride) {
    const char* w = static_cast<const char*>(weights);
    const char* a = static_cast<const char*>(activations);
    const int64_t blocks = n / QK4_0;
    for (int64_t r = row_begin; r < row_end; r += kRows) {
        const int valid_rows = static_cast<int>(std::min<int64_t>(kRows, row_end - r));
        const BlockQ4_0* rows[kRows];
        group_rows(w, weight_row_bytes, r, valid_rows, rows);
        const char* next_group = w + (r + kRows) * weight_row_bytes;
        for (int64_t b = 0; b < batch; b += kBatchTile) {
            const int tile = static_cast<int>(std::min<int64_t>(kBatchTile, batch - b));
            // Later tiles find the group in cache: only the first asks for the next one.
            kGroupFns[tile - 1](blocks, rows, a + b * activation_row_bytes, activation_row_bytes,
                                y + b * y_stride + r, y_stride, valid_rows, b == 0 ? next_group : nullptr);
        }
    }
}

} // namespace hearth::kernels::avx2
