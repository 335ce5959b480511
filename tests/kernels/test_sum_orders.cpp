// Sums the tiers promise to keep in a given order, bit for bit: the AVX2 tier's K-quant dot
// products in ggml's lane order, its kernels for matrices of 8k rows in the orders of llama.cpp's
// repacked kernels, its gemm tiles as its dot products (prefill and decode agree), and the AVX-512
// tier's Q2_K and Q3_K decode as the AVX2 tier's dot products and its F16/BF16 gemm as its own. Each kernel
// against the reference within float rounding: test_kernel_ops. A tier this CPU lacks is skipped with the
// reason.
#include "kernels/block_formats.h"
#include "kernels/f32_batched_dot.h"
#include "kernels/fp16.h"
#include "kernels/kernel_table.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/tensor_type.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx512/avx512_kernels.h"

#include "tests/support/block_patterns.h"
#include <QTest>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace hearth::kernels;
using hearth::test::Bytes;
using hearth::test::make_activation_row;
using hearth::test::make_weight_row;
using hearth::test::pattern_name;
using Pattern = hearth::test::BlockPattern;

namespace {

// The AVX2 tier's dot products.
VecDotFn avx2_dot(TensorType t) {
    switch (t) {
    case TensorType::F16:
        return avx2::vec_dot_f16_f16;
    case TensorType::BF16:
        return avx2::vec_dot_bf16_bf16;
    case TensorType::Q4_0:
        return avx2::vec_dot_q4_0_q8_0;
    case TensorType::Q4_1:
        return avx2::vec_dot_q4_1_q8_0;
    case TensorType::Q5_0:
        return avx2::vec_dot_q5_0_q8_0;
    case TensorType::Q5_1:
        return avx2::vec_dot_q5_1_q8_0;
    case TensorType::Q8_0:
        return avx2::vec_dot_q8_0_q8_0;
    case TensorType::Q2_K:
        return avx2::vec_dot_q2_K_q8_K;
    case TensorType::Q3_K:
        return avx2::vec_dot_q3_K_q8_K;
    case TensorType::Q4_K:
        return avx2::vec_dot_q4_K_q8_K;
    case TensorType::Q5_K:
        return avx2::vec_dot_q5_K_q8_K;
    case TensorType::Q6_K:
        return avx2::vec_dot_q6_K_q8_K;
    default:
        return nullptr;
    }
}

bool same_bits(float a, float b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

// QSKIP returns from the test function itself, so this is a macro.
#define SKIP_WITHOUT(isa)                                                                                    \
    do {                                                                                                     \
        if (kernels_for(isa) == nullptr) QSKIP(isa_unavailable_reason(isa).c_str());                         \
    } while (false)

} // namespace

class TestSumOrders : public QObject {
    Q_OBJECT

private slots:
    // K-quant dot products, bit for bit: the AVX2 kernels against a scalar model of the float
    // operations they keep in ggml's order (the golden tests compare logits with llama.cpp's).
    // Per super-block, int32 lane k of the weighted sum holds elements 4k..4k+3 of every 32;
    // acc[k] += (d * a.d) * lane k in one rounding; Q4_K/Q5_K subtract acc_min, whose lane k
    // holds the mins of sub-blocks 2k and 2k+1; then both are summed across lanes in one order.
    void kQuantDotMatchesLaneModelBitForBit_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<int>("pattern");
        for (TensorType t : {TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K})
            for (int blocks : {1, 2, 3, 8, 19})
                for (Pattern p : {Pattern::Quantized, Pattern::RawBytes, Pattern::AllOnes,
                                  Pattern::AllHighBit, Pattern::MaxActivation})
                    QTest::addRow("%s/%d/%s", type_traits(t).name.data(), blocks, pattern_name(p))
                        << int(t) << blocks << int(p);
    }

    void kQuantDotMatchesLaneModelBitForBit() {
        SKIP_WITHOUT(Isa::Avx2);
        QFETCH(int, type);
        QFETCH(int, blocks);
        QFETCH(int, pattern);
        const auto t = static_cast<TensorType>(type);
        const auto p = static_cast<Pattern>(pattern);
        const int64_t n = int64_t(blocks) * QK_K;
        std::mt19937 rng(7u * type + 1000u * blocks + 13u * pattern);
        const Bytes weights = make_weight_row(t, n, p, rng);
        const Bytes activations = make_activation_row(TensorType::Q8_K, n, p, rng);
        const auto* a = reinterpret_cast<const BlockQ8_K*>(activations.data());

        // The lane sums of ggml's AVX2 hsum: (v0 + v2) + (v1 + v3), after folding 8 lanes to 4.
        const auto hsum4 = [](const float* v) { return (v[0] + v[2]) + (v[1] + v[3]); };
        const auto hsum8 = [&](const float* v) {
            const float folded[4] = {v[0] + v[4], v[1] + v[5], v[2] + v[6], v[3] + v[7]};
            return hsum4(folded);
        };
        float acc[8] = {}, acc_min[4] = {};
        for (int i = 0; i < blocks; ++i) {
            const BlockQ8_K& x = a[i];
            int64_t lanes[8] = {};
            if (t == TensorType::Q6_K) {
                const auto& w = reinterpret_cast<const BlockQ6_K*>(weights.data())[i];
                for (int e = 0; e < QK_K; ++e) {
                    const int half = e / 128, quarter = (e % 128) / 32, l = e % 32;
                    const int low = (w.ql[64 * half + 32 * (quarter & 1) + l] >> (4 * (quarter >> 1))) & 0x0F;
                    const int high = (w.qh[32 * half + l] >> (2 * quarter)) & 3;
                    lanes[l / 4] += int64_t(w.scales[e / 16]) * (low | high << 4) * x.qs[e];
                }
                for (int k = 0; k < 8; ++k) // the stored quants are q + 32
                    lanes[k] -= 32 * (int64_t(w.scales[2 * k]) * x.bsums[2 * k] +
                                      int64_t(w.scales[2 * k + 1]) * x.bsums[2 * k + 1]);
                const float scale = fp16_to_fp32(w.d) * x.d;
                for (int k = 0; k < 8; ++k)
                    acc[k] = std::fma(scale, float(int32_t(lanes[k])), acc[k]);
                continue;
            }
            // Q4_K and Q5_K share the header, the 6-bit scales and the low nibbles.
            const bool five = t == TensorType::Q5_K;
            const uint8_t* block = weights.data() + size_t(i) * type_traits(t).block_bytes;
            const auto& head = *reinterpret_cast<const BlockQ4_K*>(block);
            const uint8_t* qs = five ? reinterpret_cast<const BlockQ5_K*>(block)->qs : head.qs;
            const uint8_t* s = head.scales;
            int scale[8], min[8];
            for (int j = 0; j < 8; ++j) {
                scale[j] = j < 4 ? s[j] & 63 : (s[j + 4] & 0x0F) | (s[j - 4] >> 6) << 4;
                min[j] = j < 4 ? s[j + 4] & 63 : (s[j + 4] >> 4) | (s[j] >> 6) << 4;
            }
            for (int e = 0; e < QK_K; ++e) {
                const int sub = e / 32, l = e % 32;
                int q = (qs[32 * (sub / 2) + l] >> (4 * (sub % 2))) & 0x0F;
                if (five) q |= ((reinterpret_cast<const BlockQ5_K*>(block)->qh[l] >> sub) & 1) << 4;
                lanes[l / 4] += int64_t(scale[sub]) * q * x.qs[e];
            }
            const float d = fp16_to_fp32(head.d) * x.d, dmin = fp16_to_fp32(head.dmin) * x.d;
            for (int k = 0; k < 8; ++k)
                acc[k] = std::fma(d, float(int32_t(lanes[k])), acc[k]);
            for (int k = 0; k < 4; ++k) {
                const int pair_low = x.bsums[4 * k] + x.bsums[4 * k + 1];
                const int pair_high = x.bsums[4 * k + 2] + x.bsums[4 * k + 3];
                acc_min[k] =
                    std::fma(dmin, float(min[2 * k] * pair_low + min[2 * k + 1] * pair_high), acc_min[k]);
            }
        }
        const float expected = t == TensorType::Q6_K ? hsum8(acc) : hsum8(acc) - hsum4(acc_min);
        const float actual = avx2_dot(t)(n, weights.data(), activations.data());
        QVERIFY2(std::memcmp(&actual, &expected, sizeof(float)) == 0,
                 qPrintable(QString("avx2 %1, lane model %2")
                                .arg(double(actual), 0, 'g', 9)
                                .arg(double(expected), 0, 'g', 9)));
    }

    // ---- The kernels for matrices of 8k rows, in the orders of llama.cpp's repacked kernels, bit
    // for bit against a scalar model of each order. Row ranges start and end off the 8-row groups
    // (matmul hands out chunks of 4k rows); every batch from 1 to 9 crosses the gemm/gemv split.
    void groupsOf8MatchRepackModelBitForBit_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<int>("pattern");
        for (TensorType t : {TensorType::Q4_0, TensorType::Q4_K})
            for (int blocks : {1, 2, 3, 7})
                for (Pattern p : {Pattern::Quantized, Pattern::RawBytes, Pattern::AllOnes,
                                  Pattern::AllHighBit, Pattern::ZeroScales, Pattern::MaxActivation})
                    QTest::addRow("%s/%d blocks/%s", type_traits(t).name.data(), blocks, pattern_name(p))
                        << int(t) << blocks << int(p);
    }

    void groupsOf8MatchRepackModelBitForBit() {
        SKIP_WITHOUT(Isa::Avx2);
        QFETCH(int, type);
        QFETCH(int, blocks);
        QFETCH(int, pattern);
        const auto t = static_cast<TensorType>(type);
        const auto p = static_cast<Pattern>(pattern);
        const GemmFn groups_of_8 =
            t == TensorType::Q4_0 ? avx2::gemm_q4_0_q8_0_groups_of_8 : avx2::gemm_q4_K_q8_K_groups_of_8;
        const TensorType activation = reference_ops(t).activation_type;
        const int64_t n = int64_t(blocks) * type_traits(t).block_elements;
        const size_t w_bytes = row_bytes(t, n), a_bytes = row_bytes(activation, n);
        std::mt19937 rng(31u * blocks + pattern + 1000u * type);
        const int total_rows = 26, max_batch = 9;
        Bytes weights, activations;
        for (int r = 0; r < total_rows; ++r) {
            const Bytes row = make_weight_row(t, n, p, rng);
            weights.insert(weights.end(), row.begin(), row.end());
        }
        for (int b = 0; b < max_batch; ++b) {
            const Bytes row = make_activation_row(activation, n, p, rng);
            activations.insert(activations.end(), row.begin(), row.end());
        }
        // Q4_0 (q4_0_8x8): acc = fma(float(block's integer dot), d_w * d_a, acc), block by block.
        const auto q4_0_model = [&](int r, int b, bool) {
            const auto* w = reinterpret_cast<const BlockQ4_0*>(weights.data() + size_t(r) * w_bytes);
            const auto* a = reinterpret_cast<const BlockQ8_0*>(activations.data() + size_t(b) * a_bytes);
            float acc = 0.0f;
            for (int i = 0; i < blocks; ++i) {
                int sum = 0;
                for (int k = 0; k < QK4_0 / 2; ++k)
                    sum += ((w[i].qs[k] & 0x0F) - 8) * a[i].qs[k] + ((w[i].qs[k] >> 4) - 8) * a[i].qs[k + 16];
                const float scale = fp16_to_fp32(w[i].d) * fp16_to_fp32(a[i].d);
                acc = std::fma(float(sum), scale, acc);
            }
            return acc;
        };
        // Q4_K (q4_K_8x8_q8_K): the scale and the min terms in their own accumulators, each an FMA of
        // an exact integer sum; the gemm (tiles of 4 activation rows) adds once per pair of
        // sub-blocks, the gemv (the rows left over) once per super-block.
        const auto q4_k_model = [&](int r, int b, bool per_pair) {
            const auto* w = reinterpret_cast<const BlockQ4_K*>(weights.data() + size_t(r) * w_bytes);
            const auto* a = reinterpret_cast<const BlockQ8_K*>(activations.data() + size_t(b) * a_bytes);
            float acc = 0.0f, acc_min = 0.0f;
            for (int i = 0; i < blocks; ++i) {
                const float d = fp16_to_fp32(w[i].d) * a[i].d, dmin = fp16_to_fp32(w[i].dmin) * a[i].d;
                int sum = 0, sum_min = 0;
                for (int pair = 0; pair < QK_K / 64; ++pair) {
                    for (int j = 2 * pair; j < 2 * pair + 2; ++j) {
                        uint8_t scale = 0, min = 0;
                        unpack_scale_min_k4(j, w[i].scales, &scale, &min);
                        int dot = 0;
                        for (int l = 0; l < 32; ++l)
                            dot += ((w[i].qs[32 * pair + l] >> (4 * (j % 2))) & 0x0F) * a[i].qs[32 * j + l];
                        sum += scale * dot;
                        sum_min += min * (a[i].bsums[2 * j] + a[i].bsums[2 * j + 1]);
                    }
                    if (per_pair) {
                        acc = std::fma(float(sum), d, acc);
                        acc_min = std::fma(float(sum_min), dmin, acc_min);
                        sum = sum_min = 0;
                    }
                }
                if (!per_pair) {
                    acc = std::fma(float(sum), d, acc);
                    acc_min = std::fma(float(sum_min), dmin, acc_min);
                }
            }
            return acc - acc_min;
        };
        const int64_t y_stride = total_rows + 1;
        const float sentinel = std::numeric_limits<float>::quiet_NaN();
        const int ranges[][2] = {{0, 8}, {0, 24}, {4, 20}, {8, 12}, {1, 26}, {3, 4}, {16, 23}};
        for (const auto& [row_begin, row_end] : ranges)
            for (int batch = 1; batch <= max_batch; ++batch) {
                std::vector<float> y(size_t(y_stride * max_batch), sentinel);
                groups_of_8(n, weights.data(), w_bytes, row_begin, row_end, activations.data(), a_bytes,
                            batch, y.data(), y_stride);
                const int gemm_rows = batch - batch % 4; // llama.cpp's gemm takes these, its gemv the rest
                for (int b = 0; b < max_batch; ++b)
                    for (int r = 0; r < y_stride; ++r) {
                        const float got = y[size_t(b * y_stride + r)];
                        const QString where = QString("rows [%1, %2), batch %3, at (%4, %5)")
                                                  .arg(row_begin)
                                                  .arg(row_end)
                                                  .arg(batch)
                                                  .arg(r)
                                                  .arg(b);
                        if (b >= batch || r < row_begin || r >= row_end) {
                            QVERIFY2(std::isnan(got), qPrintable("wrote outside the range: " + where));
                            continue;
                        }
                        const float expected =
                            t == TensorType::Q4_0 ? q4_0_model(r, b, false) : q4_k_model(r, b, b < gemm_rows);
                        QVERIFY2(std::memcmp(&got, &expected, sizeof(float)) == 0,
                                 qPrintable(where + QString(": avx2 %1, repack model %2")
                                                        .arg(double(got), 0, 'g', 9)
                                                        .arg(double(expected), 0, 'g', 9)));
                    }
            }
    }

    // The AVX2 tier's gemm of each type gives every (row, activation row) pair its dot product's
    // bits, for every tile shape (Q4_K's tiles sum a super-block in another order).
    void avx2GemmMatchesItsDotProducts_data() {
        QTest::addColumn<int>("type");
        for (TensorType t : {TensorType::F16, TensorType::BF16, TensorType::Q4_0, TensorType::Q4_1,
                             TensorType::Q5_0, TensorType::Q5_1, TensorType::Q8_0, TensorType::Q2_K,
                             TensorType::Q3_K, TensorType::Q5_K, TensorType::Q6_K})
            QTest::newRow(type_traits(t).name.data()) << int(t);
    }
    void avx2GemmMatchesItsDotProducts() {
        SKIP_WITHOUT(Isa::Avx2);
        QFETCH(int, type);
        const auto t = static_cast<TensorType>(type);
        const GemmFn gemm = avx2::gemm_for(t);
        QVERIFY(gemm != nullptr);
        // Two super-blocks of the K-quants, three blocks of the 32-element formats; the float
        // formats three steps of 32 and a tail.
        const int64_t block = type_traits(t).block_elements;
        const int64_t n = block == QK_K ? 2 * QK_K : block == 1 ? 3 * 32 + 5 : 3 * 32;
        const TensorType activation = reference_ops(t).activation_type;
        const size_t w_bytes = row_bytes(t, n), a_bytes = row_bytes(activation, n);
        std::mt19937 rng(type);
        constexpr int kRows = 9, kBatch = 9;
        Bytes weights, activations;
        for (int r = 0; r < kRows; ++r) {
            const Bytes row = make_weight_row(t, n, Pattern::RawBytes, rng);
            weights.insert(weights.end(), row.begin(), row.end());
        }
        for (int b = 0; b < kBatch; ++b) {
            const Bytes row = make_activation_row(activation, n, Pattern::Quantized, rng);
            activations.insert(activations.end(), row.begin(), row.end());
        }
        for (int rows = 1; rows <= kRows; ++rows)
            for (int batch = 1; batch <= kBatch; ++batch) {
                std::vector<float> y(size_t(kRows * kBatch), std::numeric_limits<float>::quiet_NaN());
                gemm(n, weights.data(), w_bytes, 0, rows, activations.data(), a_bytes, batch, y.data(),
                     kRows);
                for (int b = 0; b < batch; ++b)
                    for (int r = 0; r < rows; ++r) {
                        const float dot =
                            avx2_dot(t)(n, weights.data() + r * w_bytes, activations.data() + b * a_bytes);
                        QVERIFY2(same_bits(y[size_t(b * kRows + r)], dot),
                                 qPrintable(QString("rows %1, batch %2, at (%3, %4)")
                                                .arg(rows)
                                                .arg(batch)
                                                .arg(r)
                                                .arg(b)));
                    }
            }
    }

    // F32 batches in llamafile tinyBLAS's order (f32_batched_dot.h): the AVX2 tier's tiles give
    // every (row, activation row) pair the reference dot product's bits, for every tile shape and
    // a row range that starts inside the matrix.
    void f32BatchedGemmMatchesTheReferenceOrder() {
        SKIP_WITHOUT(Isa::Avx2);
        constexpr int64_t n = 8 * 37;
        constexpr int kRows = 11, kBatch = 8;
        std::mt19937 rng(37);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        std::vector<float> weights(size_t(kRows * n)), activations(size_t(kBatch * n));
        for (float& v : weights)
            v = normal(rng);
        for (float& v : activations)
            v = normal(rng) * 3.0f;
        const size_t row_bytes = n * sizeof(float);
        for (int first = 0; first <= 2; first += 2)
            for (int rows = first + 1; rows <= kRows; ++rows)
                for (int batch = 2; batch <= kBatch; ++batch) {
                    std::vector<float> y(size_t(kRows * kBatch), std::numeric_limits<float>::quiet_NaN());
                    avx2::gemm_f32_f32_batched(n, weights.data(), row_bytes, first, rows, activations.data(),
                                               row_bytes, batch, y.data(), kRows);
                    for (int b = 0; b < kBatch; ++b)
                        for (int r = 0; r < kRows; ++r) {
                            const float got = y[size_t(b * kRows + r)];
                            if (b >= batch || r < first || r >= rows) {
                                QVERIFY2(std::isnan(got), "a result outside the rows and batch asked for");
                                continue;
                            }
                            const float dot = vec_dot_f32_f32_batched_ref(n, weights.data() + r * n,
                                                                          activations.data() + b * n);
                            QVERIFY2(same_bits(got, dot),
                                     qPrintable(QString("rows [%1, %2), batch %3, at (%4, %5)")
                                                    .arg(first)
                                                    .arg(rows)
                                                    .arg(batch)
                                                    .arg(r)
                                                    .arg(b)));
                        }
                }
    }

    // The AVX-512 tier's F16 and BF16 gemm (the table's, at every batch) gives every pair its dot
    // product's bits: decode and prefill, every tile shape, a tail, several column chunks and
    // several blocks of activation rows.
    void avx512FloatGemmMatchesItsDotProducts_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("batch");
        for (TensorType t : {TensorType::F16, TensorType::BF16}) {
            const char* name = type_traits(t).name.data();
            QTest::addRow("%s n 101, tiles", name) << int(t) << 101 << 17 << 9;
            QTest::addRow("%s n 1152, chunks", name) << int(t) << 1152 << 11 << 7;
            QTest::addRow("%s n 1100, blocks", name) << int(t) << 1100 << 9 << 70;
        }
    }
    void avx512FloatGemmMatchesItsDotProducts() {
        SKIP_WITHOUT(Isa::Avx512);
        QFETCH(int, type);
        QFETCH(int, n);
        QFETCH(int, rows);
        QFETCH(int, batch);
        const auto t = static_cast<TensorType>(type);
        const VecDotFn dot = t == TensorType::F16 ? avx512::vec_dot_f16_f16 : avx512::vec_dot_bf16_bf16;
        const size_t bytes = row_bytes(t, n);
        std::mt19937 rng(type + n);
        Bytes weights, activations;
        for (int r = 0; r < rows; ++r) {
            const Bytes row = make_weight_row(t, n, Pattern::RawBytes, rng);
            weights.insert(weights.end(), row.begin(), row.end());
        }
        for (int b = 0; b < batch; ++b) {
            const Bytes row = make_activation_row(t, n, Pattern::Quantized, rng);
            activations.insert(activations.end(), row.begin(), row.end());
        }
        for (int64_t m : {int64_t{1}, int64_t{2}, int64_t{batch}}) {
            const Candidate<GemmFn>* gemm = kernels_for(Isa::Avx512)->of(t).matmul.pick({.batch = m});
            QVERIFY(gemm != nullptr);
            QCOMPARE(gemm->backend, cpu(Isa::Avx512));
            // Rows from 1, as a thread's share of them starts anywhere.
            std::vector<float> y(size_t(rows * m), std::numeric_limits<float>::quiet_NaN());
            gemm->fn(n, weights.data(), bytes, 1, rows, activations.data(), bytes, m, y.data(), rows);
            for (int64_t b = 0; b < m; ++b)
                for (int r = 0; r < rows; ++r) {
                    const float got = y[size_t(b * rows + r)];
                    const QString where = QString("batch %1, at (%2, %3)").arg(m).arg(r).arg(b);
                    if (r == 0) {
                        QVERIFY2(std::isnan(got), qPrintable("wrote outside the range: " + where));
                        continue;
                    }
                    const float expected = dot(n, weights.data() + r * bytes, activations.data() + b * bytes);
                    QVERIFY2(same_bits(got, expected), qPrintable(QString("%1: gemm %2, dot %3")
                                                                      .arg(where)
                                                                      .arg(double(got), 0, 'g', 9)
                                                                      .arg(double(expected), 0, 'g', 9)));
                }
        }
    }

    // Q2_K, Q3_K and Q5_K decode gives the AVX2 tier's dot products' bits on the AVX2, AVX-VNNI
    // and AVX-512 tiers (Q6_K over the file's rows on the AVX2 tier), and so do their small batches (each super-block decoded once for several
    // activation rows) and the AVX2 tier's gemm after them, every row against every activation
    // row: every batch up to 32 (Q2_K, Q3_K; up to its panels', from 16, on AVX-VNNI, and for
    // Q5_K on AVX-512).
    void lowBitDecodeAndSmallBatchesMatchAvx2Dots_data() {
        QTest::addColumn<int>("isa");
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<int>("pattern");
        // Q6_K's small batches over the file's rows are the AVX2 tier's alone: the VNNI tiers
        // repack Q6_K at load (TypeCandidates::repacks_rows16).
        for (Isa isa : {Isa::Avx2, Isa::AvxVnni, Isa::Avx512})
            for (TensorType t : {TensorType::Q2_K, TensorType::Q3_K, TensorType::Q5_K, TensorType::Q6_K})
                for (int blocks : {1, 2, 8, 13})
                    if (t != TensorType::Q6_K || isa == Isa::Avx2)
                        for (Pattern p : {Pattern::Quantized, Pattern::RawBytes})
                            QTest::addRow("%s %s %d blocks %s", isa_name(isa).data(),
                                          type_traits(t).name.data(), blocks, pattern_name(p))
                                << int(isa) << int(t) << blocks << int(p);
    }
    void lowBitDecodeAndSmallBatchesMatchAvx2Dots() {
        QFETCH(int, isa);
        QFETCH(int, type);
        QFETCH(int, blocks);
        QFETCH(int, pattern);
        const auto tier = static_cast<Isa>(isa);
        SKIP_WITHOUT(tier);
        const auto t = static_cast<TensorType>(type);
        const Candidates<GemmFn>& candidates = kernels_for(tier)->of(t).matmul;
        const bool panels_from_16 = tier == Isa::AvxVnni || (tier == Isa::Avx512 && t == TensorType::Q5_K);
        const int64_t n = int64_t(blocks) * QK_K, rows = 5, most = panels_from_16 ? 15 : 32;
        std::mt19937 rng(static_cast<uint32_t>(type * 100 + blocks * 2 + pattern));
        Bytes w, a;
        for (int64_t r = 0; r < rows; ++r) {
            const Bytes row = make_weight_row(t, n, static_cast<Pattern>(pattern), rng);
            w.insert(w.end(), row.begin(), row.end());
        }
        for (int64_t b = 0; b < most; ++b) {
            const Bytes row = make_activation_row(TensorType::Q8_K, n, Pattern::Quantized, rng);
            a.insert(a.end(), row.begin(), row.end());
        }
        const size_t w_bytes = row_bytes(t, n), a_bytes = row_bytes(TensorType::Q8_K, n);
        // (The AVX2 tier's gemm keeps its dot products' bits, avx2GemmMatchesItsDotProducts; the
        // AVX-512 tier's panels, from 33 rows, do not.)
        for (int64_t batch = 1; batch <= most; ++batch) {
            const Candidate<GemmFn>* kernel = candidates.pick({.batch = batch});
            QVERIFY(kernel != nullptr);
            // Decode and the small batches are the tier's own (AVX-VNNI, and AVX-512's Q5_K, the
            // AVX2 tier's).
            const bool avx2_kernels = tier == Isa::AvxVnni || t == TensorType::Q5_K;
            if (batch <= 15) QCOMPARE(kernel->backend, cpu(avx2_kernels ? Isa::Avx2 : tier));
            if (batch >= 2 && batch <= 4) QVERIFY(kernel->name.ends_with("_rows"));
            // Rows 1-4 of the matrix: a range that starts inside it.
            std::vector<float> y(size_t(rows * batch), std::numeric_limits<float>::quiet_NaN());
            kernel->fn(n, w.data(), w_bytes, 1, rows, a.data(), a_bytes, batch, y.data(), rows);
            for (int64_t b = 0; b < batch; ++b) {
                QVERIFY(std::isnan(y[size_t(b * rows)]));
                for (int64_t r = 1; r < rows; ++r) {
                    const float avx2 = avx2_dot(t)(n, w.data() + r * w_bytes, a.data() + b * a_bytes);
                    QVERIFY2(same_bits(y[size_t(b * rows + r)], avx2),
                             qPrintable(QString("%1, batch %2, row %3, activation row %4: %5, avx2 dot %6")
                                            .arg(QString::fromUtf8(kernel->name.data(), kernel->name.size()))
                                            .arg(batch)
                                            .arg(r)
                                            .arg(b)
                                            .arg(y[size_t(b * rows + r)])
                                            .arg(avx2)));
                }
            }
        }
    }
};

QTEST_MAIN(TestSumOrders)
#include "test_sum_orders.moc"
