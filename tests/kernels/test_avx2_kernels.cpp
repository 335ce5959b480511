// The AVX2 kernel table against the scalar reference: quantizers and dequantizers bit for bit,
// dot products and gemm within float rounding, at odd lengths and on adversarial blocks.
#include "kernels/block_formats.h"
#include "kernels/fp16.h"
#include "kernels/kernel_table.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/tensor_type.h"
#include "kernels/x86_avx2/avx2_kernels.h"

#include "tests/support/block_patterns.h"
#include <QTest>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace hearth::kernels;

namespace {

using Bytes = std::vector<uint8_t>;

// How a test fills its weight blocks and activations.
using Pattern = hearth::test::BlockPattern;
using hearth::test::pattern_name;

bool is_float_type(TensorType t) {
    return t == TensorType::F32 || t == TensorType::F16 || t == TensorType::BF16;
}

// Byte offsets of the fp16 scale fields in one block of each quantized type.
std::vector<size_t> fp16_fields(TensorType t) {
    switch (t) {
    case TensorType::Q4_0:
        return {offsetof(BlockQ4_0, d)};
    case TensorType::Q4_1:
        return {offsetof(BlockQ4_1, d), offsetof(BlockQ4_1, m)};
    case TensorType::Q5_0:
        return {offsetof(BlockQ5_0, d)};
    case TensorType::Q5_1:
        return {offsetof(BlockQ5_1, d), offsetof(BlockQ5_1, m)};
    case TensorType::Q8_0:
        return {offsetof(BlockQ8_0, d)};
    case TensorType::Q2_K:
        return {offsetof(BlockQ2_K, d), offsetof(BlockQ2_K, dmin)};
    case TensorType::Q3_K:
        return {offsetof(BlockQ3_K, d)};
    case TensorType::Q4_K:
        return {offsetof(BlockQ4_K, d), offsetof(BlockQ4_K, dmin)};
    case TensorType::Q5_K:
        return {offsetof(BlockQ5_K, d), offsetof(BlockQ5_K, dmin)};
    case TensorType::Q6_K:
        return {offsetof(BlockQ6_K, d)};
    default:
        return {};
    }
}

std::vector<float> normal_floats(int64_t n, std::mt19937& rng, float sigma = 1.0f) {
    std::normal_distribution<float> dist(0.0f, sigma);
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v)
        x = dist(rng);
    return v;
}

Bytes quantize_ref(TensorType t, const std::vector<float>& x) {
    Bytes out(row_bytes(t, static_cast<int64_t>(x.size())));
    reference_kernels().of(t).quantize(x.data(), out.data(), static_cast<int64_t>(x.size()));
    return out;
}

std::vector<float> dequantize_ref(TensorType t, const Bytes& row, int64_t n) {
    std::vector<float> out(static_cast<size_t>(n));
    reference_kernels().of(t).dequantize(row.data(), out.data(), n);
    return out;
}

Bytes make_weights(TensorType t, int64_t n, Pattern p, std::mt19937& rng) {
    if (is_float_type(t) || p == Pattern::Quantized || p == Pattern::MaxActivation)
        return quantize_ref(t, normal_floats(n, rng));
    Bytes row(row_bytes(t, n));
    if (p == Pattern::AllOnes) std::fill(row.begin(), row.end(), uint8_t{0xFF});
    if (p == Pattern::AllHighBit) std::fill(row.begin(), row.end(), uint8_t{0x80});
    if (p == Pattern::RawBytes || p == Pattern::ZeroScales)
        for (uint8_t& b : row)
            b = static_cast<uint8_t>(rng());
    std::uniform_real_distribution<float> scale(1e-3f, 0.1f);
    const size_t block_bytes = type_traits(t).block_bytes;
    for (size_t block = 0; block < row.size(); block += block_bytes)
        for (size_t offset : fp16_fields(t)) {
            const float value = p == Pattern::ZeroScales ? 0.0f : p == Pattern::RawBytes ? scale(rng) : 0.05f;
            const fp16_bits bits = fp32_to_fp16(value);
            std::memcpy(&row[block + offset], &bits, sizeof bits);
        }
    return row;
}

// Activations in the dot product's activation type, quantized by the reference.
Bytes make_activations(TensorType activation, int64_t n, Pattern p, std::mt19937& rng) {
    std::vector<float> x = normal_floats(n, rng);
    if (p == Pattern::MaxActivation)
        for (float& v : x)
            v = v < 0 ? -1.0f : 1.0f;
    if (activation == TensorType::F32) {
        Bytes out(x.size() * sizeof(float));
        std::memcpy(out.data(), x.data(), out.size());
        return out;
    }
    return quantize_ref(activation, x);
}

// How far two float evaluations of the same dot product may differ. Integer block sums are
// exact in both, so the difference is float rounding of block terms: bounded by the sum of
// |w_i a_i| plus, for types with a min, the largest weight times sum |a_i|. Float types sum
// n rounded products: 2 n u of the sum of |w_i a_i| bounds both evaluations' error.
double dot_tolerance(TensorType t, const Bytes& weights, const Bytes& activations, int64_t n) {
    const TensorType activation = reference_kernels().of(t).activation_type;
    const std::vector<float> w = dequantize_ref(t, weights, n);
    const std::vector<float> a = dequantize_ref(activation, activations, n);
    double abs_dot = 0, abs_sum = 0, max_w = 0;
    for (size_t i = 0; i < w.size(); ++i) {
        abs_dot += std::fabs(double(w[i]) * a[i]);
        abs_sum += std::fabs(a[i]);
        max_w = std::max(max_w, double(std::fabs(w[i])));
    }
    if (is_float_type(t)) return 1.2e-7 * double(n) * abs_dot + 1e-30;
    return 1e-5 * (abs_dot + max_w * abs_sum) + 1e-30;
}

const KernelTable* avx2_table() {
    return kernels_for(Isa::Avx2);
}

// Types whose dot product is the AVX2 tier's own (the rest came from the scalar tier).
bool own_avx2_type(uint32_t raw) {
    const TypeKernels& k = avx2_table()->by_type[raw];
    return k.vec_dot != nullptr && k.vec_dot != reference_kernels().by_type[raw].vec_dot;
}

} // namespace

class TestAvx2Kernels : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (!kernels_for(Isa::Avx2)) QSKIP("this CPU has no AVX2/FMA/F16C: the AVX2 kernels cannot run here");
        QVERIFY(avx2_table() != nullptr);
    }

    void tableMatchesReferenceTypes() {
        const KernelTable& table = *avx2_table();
        QCOMPARE(table.isa, Isa::Avx2);
        QCOMPARE(kernels_for(Isa::Avx2), &table);
        int vec_dots = 0;
        for (uint32_t raw = 0; raw < std::size(table.by_type); ++raw) {
            const TypeKernels& mine = table.by_type[raw];
            const TypeKernels& ref = reference_kernels().by_type[raw];
            if (mine.vec_dot || mine.quantize || mine.dequantize || mine.gemm) {
                QVERIFY2(ref.vec_dot != nullptr,
                         qPrintable(QString("type %1 unknown to the reference").arg(raw)));
                QCOMPARE(mine.activation_type, ref.activation_type);
            }
            if (mine.gemm) QVERIFY(mine.vec_dot != nullptr);
            vec_dots += own_avx2_type(raw);
        }
        QVERIFY(vec_dots >= 11); // f32 f16 bf16 q4_0 q4_1 q5_0 q5_1 q8_0 q4_K q5_K q6_K
    }

    // ---- Activation quantizers: bit-identical to the reference.

    void quantizeMatchesReference_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<int>("kind");
        QTest::addColumn<bool>("activations"); // the activation quantizer rather than the weights'
        for (TensorType t : {TensorType::Q8_0, TensorType::Q8_K})
            for (bool activations : {false, true})
                for (int blocks : {1, 2, 3, 7, 13, 31})
                    for (int kind = 0; kind < 6; ++kind)
                        QTest::addRow("%s%s/%d/%d", type_traits(t).name.data(), activations ? "-act" : "",
                                      blocks, kind)
                            << int(t) << blocks << kind << activations;
    }

    void quantizeMatchesReference() {
        QFETCH(int, type);
        QFETCH(int, blocks);
        QFETCH(int, kind);
        QFETCH(bool, activations);
        const auto t = static_cast<TensorType>(type);
        const QuantizeRowFn quantize =
            activations ? avx2_table()->of(t).activation_quantizer() : avx2_table()->of(t).quantize;
        QVERIFY(quantize != nullptr);
        const int64_t n = blocks * type_traits(t).block_elements;
        std::mt19937 rng(1000u * type + 10u * blocks + kind);
        std::vector<float> x;
        switch (kind) {
        case 0:
            x = normal_floats(n, rng);
            break;
        case 1:
            x = normal_floats(n, rng, 1e4f);
            break;
        case 2: // amax 127 makes the inverse scale 1: exact .5 ties test the rounding rule
            x.resize(n);
            for (int64_t i = 0; i < n; ++i)
                x[i] = i % 32 == 0 ? 127.0f : float(int(rng() % 200) - 100) + (rng() % 2 ? 0.5f : 0.0f);
            break;
        case 3: // every other block zero, the rest tiny
            x = normal_floats(n, rng, 1e-20f);
            for (int64_t i = 0; i < n; ++i)
                if ((i / type_traits(t).block_elements) % 2 == 0) x[i] = 0.0f;
            break;
        case 4: // scales in the fp16 denormals, too coarse to keep every quant within 127
            x = normal_floats(n, rng, 1e-5f);
            break;
        default: // one huge value per block, the rest rounding to zero or +-1
            x = normal_floats(n, rng, 1.0f);
            for (int64_t i = 0; i < n; i += 17)
                x[i] = 200.0f;
            break;
        }
        Bytes expected = quantize_ref(t, x);
        if (activations) reference_kernels().of(t).activation_quantizer()(x.data(), expected.data(), n);
        Bytes actual(expected.size(), 0xAB);
        quantize(x.data(), actual.data(), n);
        QVERIFY(actual == expected);
    }

    // ---- Dequantizers: the same float operations, so the same bits.

    void dequantizeMatchesReference_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<int>("pattern");
        if (avx2_table() == nullptr) return; // initTestCase skips the whole case
        for (uint32_t raw = 0; raw < std::size(avx2_table()->by_type); ++raw) {
            if (avx2_table()->by_type[raw].dequantize == nullptr) continue;
            const auto t = static_cast<TensorType>(raw);
            for (int blocks : {1, 2, 3, 7, 13, 31})
                for (Pattern p :
                     {Pattern::Quantized, Pattern::RawBytes, Pattern::AllOnes, Pattern::AllHighBit})
                    QTest::addRow("%s/%d/%s", type_traits(t).name.data(), blocks, pattern_name(p))
                        << int(raw) << (is_float_type(t) ? blocks * 9 : blocks) << int(p);
        }
    }

    void dequantizeMatchesReference() {
        QFETCH(int, type);
        QFETCH(int, blocks);
        QFETCH(int, pattern);
        const auto t = static_cast<TensorType>(type);
        const int64_t n = blocks * type_traits(t).block_elements;
        std::mt19937 rng(7u * type + blocks);
        const Bytes row = make_weights(t, n, static_cast<Pattern>(pattern), rng);
        const std::vector<float> expected = dequantize_ref(t, row, n);
        std::vector<float> actual(static_cast<size_t>(n), -1.0f);
        avx2_table()->of(t).dequantize(row.data(), actual.data(), n);
        QVERIFY(std::memcmp(actual.data(), expected.data(), actual.size() * sizeof(float)) == 0);
    }

    // ---- Dot products: within float rounding of the reference.

    void vecDotMatchesReference_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("pattern");
        if (avx2_table() == nullptr) return; // initTestCase skips the whole case
        for (uint32_t raw = 0; raw < std::size(avx2_table()->by_type); ++raw) {
            if (!own_avx2_type(raw)) continue;
            const auto t = static_cast<TensorType>(raw);
            if (is_float_type(t)) {
                // Lengths around the 8- and 32-wide steps and their scalar tails.
                for (int n : {1, 2, 3, 7, 8, 9, 31, 33, 100, 1023})
                    for (Pattern p : {Pattern::Quantized, Pattern::MaxActivation})
                        QTest::addRow("%s/%d/%s", type_traits(t).name.data(), n, pattern_name(p))
                            << int(raw) << n << int(p);
                continue;
            }
            for (int blocks : {1, 2, 3, 7, 13, 31})
                for (Pattern p : {Pattern::Quantized, Pattern::RawBytes, Pattern::AllOnes,
                                  Pattern::AllHighBit, Pattern::ZeroScales, Pattern::MaxActivation})
                    QTest::addRow("%s/%d/%s", type_traits(t).name.data(), blocks, pattern_name(p))
                        << int(raw) << int(blocks * type_traits(t).block_elements) << int(p);
        }
    }

    void vecDotMatchesReference() {
        QFETCH(int, type);
        QFETCH(int, n);
        QFETCH(int, pattern);
        const auto t = static_cast<TensorType>(type);
        const auto p = static_cast<Pattern>(pattern);
        std::mt19937 rng(31u * type + n + 100000u * pattern);
        const Bytes weights = make_weights(t, n, p, rng);
        const Bytes activations = make_activations(reference_kernels().of(t).activation_type, n, p, rng);
        const float expected = reference_kernels().of(t).vec_dot(n, weights.data(), activations.data());
        const float actual = avx2_table()->of(t).vec_dot(n, weights.data(), activations.data());
        const double tolerance = dot_tolerance(t, weights, activations, n);
        QVERIFY2(std::isfinite(actual), "non-finite dot product");
        QVERIFY2(
            std::fabs(double(actual) - expected) <= tolerance,
            qPrintable(
                QString("avx2 %1, reference %2, tolerance %3").arg(actual).arg(expected).arg(tolerance)));
        if (p == Pattern::ZeroScales) QVERIFY(actual == 0.0f); // exact (QCOMPARE on floats is fuzzy)
    }

    // The AVX2 quantizer feeding the AVX2 dot product: the pipeline matmul runs.
    void quantizeThenDotMatchesReference_data() {
        QTest::addColumn<int>("type");
        if (avx2_table() == nullptr) return;
        for (uint32_t raw = 0; raw < std::size(avx2_table()->by_type); ++raw) {
            const auto t = static_cast<TensorType>(raw);
            if (own_avx2_type(raw) && !is_float_type(t))
                QTest::addRow("%s", type_traits(t).name.data()) << int(raw);
        }
    }

    void quantizeThenDotMatchesReference() {
        QFETCH(int, type);
        const auto t = static_cast<TensorType>(type);
        const TensorType activation = reference_kernels().of(t).activation_type;
        const int64_t n = 7 * 256;
        std::mt19937 rng(type);
        const Bytes weights = make_weights(t, n, Pattern::Quantized, rng);
        const std::vector<float> x = normal_floats(n, rng);
        Bytes activations(row_bytes(activation, n));
        avx2_table()->of(activation).quantize(x.data(), activations.data(), n);
        const float actual = avx2_table()->of(t).vec_dot(n, weights.data(), activations.data());
        const float expected =
            reference_kernels().of(t).vec_dot(n, weights.data(), quantize_ref(activation, x).data());
        QVERIFY(std::fabs(double(actual) - expected) <= dot_tolerance(t, weights, activations, n));
    }

    // ---- Gemm: every (row, activation) pair of every tile shape, and nothing else written.

    void gemmMatchesReference_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("pattern");
        if (avx2_table() == nullptr) return; // initTestCase skips the whole case
        for (uint32_t raw = 0; raw < std::size(avx2_table()->by_type); ++raw) {
            if (avx2_table()->by_type[raw].gemm == nullptr) continue;
            const auto t = static_cast<TensorType>(raw);
            for (Pattern p :
                 {Pattern::Quantized, Pattern::RawBytes, Pattern::AllOnes, Pattern::MaxActivation})
                QTest::addRow("%s/%s", type_traits(t).name.data(), pattern_name(p)) << int(raw) << int(p);
        }
    }

    void gemmMatchesReference() {
        QFETCH(int, type);
        QFETCH(int, pattern);
        const auto t = static_cast<TensorType>(type);
        const auto p = static_cast<Pattern>(pattern);
        const TypeKernels& mine = avx2_table()->of(t);
        const TypeKernels& ref = reference_kernels().of(t);
        // Two super-blocks of the K-quants, three blocks of the 32-element formats; the float
        // formats three steps of 32 and a tail.
        const int64_t block = type_traits(t).block_elements;
        const int64_t n = block == 256 ? 2 * 256 : block == 1 ? 3 * 32 + 5 : 3 * 32;
        const size_t w_bytes = row_bytes(t, n), a_bytes = row_bytes(ref.activation_type, n);
        std::mt19937 rng(type + 17u * pattern);
        const int max_rows = 9, max_batch = 9, row_begin = 2;
        const int total_rows = row_begin + max_rows + 1; // one untouched row on each side
        Bytes weights, activations;
        for (int r = 0; r < total_rows; ++r) {
            const Bytes row = make_weights(t, n, p, rng);
            weights.insert(weights.end(), row.begin(), row.end());
        }
        for (int b = 0; b < max_batch; ++b) {
            const Bytes row = make_activations(ref.activation_type, n, p, rng);
            activations.insert(activations.end(), row.begin(), row.end());
        }
        const int64_t y_stride = total_rows + 3;
        const float sentinel = std::numeric_limits<float>::quiet_NaN();
        for (int rows = 1; rows <= max_rows; ++rows)
            for (int batch = 1; batch <= max_batch; ++batch) {
                std::vector<float> y(static_cast<size_t>(y_stride * max_batch), sentinel);
                mine.gemm(n, weights.data(), w_bytes, row_begin, row_begin + rows, activations.data(),
                          a_bytes, batch, y.data(), y_stride);
                for (int b = 0; b < max_batch; ++b)
                    for (int r = 0; r < y_stride; ++r) {
                        const float got = y[size_t(b * y_stride + r)];
                        const bool inside = b < batch && r >= row_begin && r < row_begin + rows;
                        if (!inside) {
                            QVERIFY2(std::isnan(got),
                                     qPrintable(QString("wrote outside the tile: rows %1, batch "
                                                        "%2, at (%3, %4)")
                                                    .arg(rows)
                                                    .arg(batch)
                                                    .arg(r)
                                                    .arg(b)));
                            continue;
                        }
                        const Bytes w_row(weights.begin() + r * w_bytes, weights.begin() + (r + 1) * w_bytes);
                        const Bytes a_row(activations.begin() + b * a_bytes,
                                          activations.begin() + (b + 1) * a_bytes);
                        const float expected = ref.vec_dot(n, w_row.data(), a_row.data());
                        const double tolerance = dot_tolerance(t, w_row, a_row, n);
                        // The tiles keep the vec_dot kernel's arithmetic per pair, so that prefill
                        // and decode give a token the same logits; but Q4_K's tile sums a
                        // super-block's terms in another order (and its interleaved gemm follows
                        // llama.cpp's repacked kernels, which differ from its vec_dot too).
                        const float same_as_decode = mine.vec_dot(n, w_row.data(), a_row.data());
                        QVERIFY2(t == TensorType::Q4_K || std::memcmp(&got, &same_as_decode, sizeof got) == 0,
                                 qPrintable(QString("rows %1, batch %2, at (%3, %4): gemm %5, vec_dot %6")
                                                .arg(rows)
                                                .arg(batch)
                                                .arg(r)
                                                .arg(b)
                                                .arg(got)
                                                .arg(same_as_decode)));
                        QVERIFY2(std::fabs(double(got) - expected) <= tolerance,
                                 qPrintable(QString("rows %1, batch %2, at (%3, %4): gemm %5, reference %6")
                                                .arg(rows)
                                                .arg(batch)
                                                .arg(r)
                                                .arg(b)
                                                .arg(got)
                                                .arg(expected)));
                    }
            }
    }

    // SwiGLU: bit for bit the reference, at lengths with and without a tail, and with gates
    // large enough (|g| > 87) to take the vector exp's overflow and underflow paths.
    void swigluMatchesReferenceBitForBit_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<float>("spread");
        for (int n : {1, 7, 8, 9, 31, 4864, 4867})
            for (float spread : {4.0f, 200.0f})
                QTest::newRow(qPrintable(QString("n=%1, |g|<=%2").arg(n).arg(spread))) << n << spread;
    }
    void swigluMatchesReferenceBitForBit() {
        QFETCH(int, n);
        QFETCH(float, spread);
        std::mt19937 rng{static_cast<uint32_t>(n)};
        std::uniform_real_distribution<float> dist(-spread, spread);
        std::vector<float> gate(static_cast<size_t>(n)), up(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) {
            gate[size_t(i)] = dist(rng);
            up[size_t(i)] = dist(rng);
        }
        std::vector<float> expected = gate, got = gate;
        reference_kernels().swiglu(expected.data(), up.data(), n);
        avx2_table()->swiglu(got.data(), up.data(), n);
        for (int i = 0; i < n; ++i)
            QVERIFY2(std::memcmp(&got[size_t(i)], &expected[size_t(i)], sizeof(float)) == 0,
                     qPrintable(QString("element %1 (gate %2): avx2 %3, reference %4")
                                    .arg(i)
                                    .arg(gate[size_t(i)])
                                    .arg(got[size_t(i)])
                                    .arg(expected[size_t(i)])));
    }

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
        QFETCH(int, type);
        QFETCH(int, blocks);
        QFETCH(int, pattern);
        const auto t = static_cast<TensorType>(type);
        const auto p = static_cast<Pattern>(pattern);
        const int64_t n = int64_t(blocks) * QK_K;
        std::mt19937 rng(7u * type + 1000u * blocks + 13u * pattern);
        const Bytes weights = make_weights(t, n, p, rng);
        const Bytes activations = make_activations(TensorType::Q8_K, n, p, rng);
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
        const float actual = avx2_table()->of(t).vec_dot(n, weights.data(), activations.data());
        QVERIFY2(std::memcmp(&actual, &expected, sizeof(float)) == 0,
                 qPrintable(QString("avx2 %1, lane model %2")
                                .arg(double(actual), 0, 'g', 9)
                                .arg(double(expected), 0, 'g', 9)));
    }

    // ---- The kernels for matrices of 8k rows, in the orders of llama.cpp's repacked kernels, bit
    // for bit against a scalar model of each order. Row ranges start and end off the 8-row groups
    // (matmul hands out chunks of 4k rows); every batch from 1 to 9 crosses the gemm/gemv split.
    void interleavedMatchesRepackModelBitForBit_data() {
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

    void interleavedMatchesRepackModelBitForBit() {
        QFETCH(int, type);
        QFETCH(int, blocks);
        QFETCH(int, pattern);
        const auto t = static_cast<TensorType>(type);
        const auto p = static_cast<Pattern>(pattern);
        const TypeKernels& mine = avx2_table()->of(t);
        QVERIFY(mine.gemm_rows_multiple_of_8 != nullptr);
        const TensorType activation = mine.activation_type;
        const int64_t n = int64_t(blocks) * type_traits(t).block_elements;
        const size_t w_bytes = row_bytes(t, n), a_bytes = row_bytes(activation, n);
        std::mt19937 rng(31u * blocks + pattern + 1000u * type);
        const int total_rows = 26, max_batch = 9;
        Bytes weights, activations;
        for (int r = 0; r < total_rows; ++r) {
            const Bytes row = make_weights(t, n, p, rng);
            weights.insert(weights.end(), row.begin(), row.end());
        }
        for (int b = 0; b < max_batch; ++b) {
            const Bytes row = make_activations(activation, n, p, rng);
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
                mine.gemm_rows_multiple_of_8(n, weights.data(), w_bytes, row_begin, row_end,
                                             activations.data(), a_bytes, batch, y.data(), y_stride);
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
};

QTEST_MAIN(TestAvx2Kernels)
#include "test_avx2_kernels.moc"
