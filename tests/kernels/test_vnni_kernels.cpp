// The VNNI tiers' (AVX-VNNI, AVX-512 VNNI) kernels of the 32-element formats (Q8_0, Q4_0, Q5_0,
// Q4_1, Q5_1) against exact math and the scalar reference. Their integer block dots are exact,
// so every output is held to the float rounding of its block terms: within (2 * blocks + 8)
// units of float rounding of sum |block terms| of the exact value, computed in double from the
// blocks' integers. The normalized error against the reference (test-backend-ops' NMSE bound
// for quantized types) is checked on top. A tier this CPU lacks is skipped with the reason.
#include "kernels/block_formats.h"
#include "kernels/fp16.h"
#include "kernels/kernel_table.h"
#include "kernels/tensor_type.h"

#include "tests/support/block_patterns.h"
#include "tests/support/gemm_output.h"
#include <QTest>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace hearth::kernels;

namespace {

using Bytes = std::vector<uint8_t>;

// AMX: the AVX-512 tier's kernels, and its own Q8_0 gemm for batches of 8 or more.
constexpr Isa kVnniTiers[] = {Isa::AvxVnni, Isa::Avx512, Isa::Amx};
constexpr TensorType kTypes[] = {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q5_0, TensorType::Q4_1,
                                 TensorType::Q5_1};
constexpr double kUnitRoundoff = 0x1p-24;
constexpr double kMaxNmse = 5e-4; // test-backend-ops' bound for quantized types

// How the weight and activation bytes are made.
using Pattern = hearth::test::BlockPattern;
using hearth::test::gemm_output_failure;
using hearth::test::pattern_name;
constexpr Pattern kPatterns[] = {Pattern::Quantized,     Pattern::RawBytes,   Pattern::AllOnes,
                                 Pattern::AllHighBit,    Pattern::ZeroScales, Pattern::MaxActivation,
                                 Pattern::RawActivations};

bool has_min(TensorType t) {
    return t == TensorType::Q4_1 || t == TensorType::Q5_1;
}

void set_fp16(uint8_t* at, float value) {
    const fp16_bits bits = fp32_to_fp16(value);
    std::memcpy(at, &bits, sizeof bits);
}

std::vector<float> normal_floats(int64_t n, std::mt19937& rng) {
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v)
        x = dist(rng);
    return v;
}

Bytes make_weights(TensorType t, int64_t n, Pattern p, std::mt19937& rng) {
    Bytes row(row_bytes(t, n));
    if (p == Pattern::Quantized || p == Pattern::MaxActivation || p == Pattern::RawActivations) {
        reference_kernels().of(t).quantize(normal_floats(n, rng).data(), row.data(), n);
        return row;
    }
    for (uint8_t& b : row)
        b = p == Pattern::AllOnes ? 0xFF : p == Pattern::AllHighBit ? 0x80 : static_cast<uint8_t>(rng());
    std::uniform_real_distribution<float> scale(1e-3f, 0.1f);
    const size_t block_bytes = type_traits(t).block_bytes;
    for (size_t block = 0; block < row.size(); block += block_bytes) {
        // d first, then m for the formats with a minimum (which may be negative).
        set_fp16(&row[block], p == Pattern::ZeroScales ? 0.0f : scale(rng));
        if (has_min(t)) set_fp16(&row[block + 2], p == Pattern::ZeroScales ? 0.0f : -scale(rng));
    }
    return row;
}

Bytes make_activations(int64_t n, Pattern p, std::mt19937& rng) {
    Bytes row(row_bytes(TensorType::Q8_0, n));
    std::vector<float> x = normal_floats(n, rng);
    if (p == Pattern::MaxActivation)
        for (float& v : x)
            v = v < 0 ? -1.0f : 1.0f;
    // All +-1 through the weight quantizer: every quant +-127 (the activation quantizer may pick
    // a smaller largest quant whose fp16 scale fits 1 better).
    const TypeKernels& q8_0 = reference_kernels().of(TensorType::Q8_0);
    (p == Pattern::MaxActivation ? q8_0.quantize : q8_0.activation_quantizer())(x.data(), row.data(), n);
    if (p == Pattern::RawActivations) {
        std::uniform_real_distribution<float> scale(1e-3f, 0.1f);
        for (auto* block = reinterpret_cast<BlockQ8_0*>(row.data());
             block < reinterpret_cast<BlockQ8_0*>(row.data() + row.size()); ++block) {
            block->d = fp32_to_fp16(scale(rng));
            for (int8_t& q : block->qs)
                q = static_cast<int8_t>(rng());
        }
    }
    return row;
}

// A block as integers: value j = d * q[j] + m.
struct IntBlock {
    int q[32];
    double d, m;
};

IntBlock decode_block(TensorType t, const uint8_t* block) {
    IntBlock out{};
    const auto fp16 = [](fp16_bits h) { return double(fp16_to_fp32(h)); };
    const auto nibbles = [&out](const uint8_t* qs) {
        for (int j = 0; j < 16; ++j) {
            out.q[j] = qs[j] & 0x0F;
            out.q[j + 16] = qs[j] >> 4;
        }
    };
    const auto fifth_bits = [&out](const uint8_t* qh) {
        uint32_t bits;
        std::memcpy(&bits, qh, sizeof bits);
        for (int j = 0; j < 32; ++j)
            out.q[j] |= static_cast<int>((bits >> j) & 1) << 4;
    };
    switch (t) {
    case TensorType::Q8_0: {
        const auto& b = *reinterpret_cast<const BlockQ8_0*>(block);
        for (int j = 0; j < 32; ++j)
            out.q[j] = b.qs[j];
        out.d = fp16(b.d);
        break;
    }
    case TensorType::Q4_0: {
        const auto& b = *reinterpret_cast<const BlockQ4_0*>(block);
        nibbles(b.qs);
        for (int& q : out.q)
            q -= 8;
        out.d = fp16(b.d);
        break;
    }
    case TensorType::Q5_0: {
        const auto& b = *reinterpret_cast<const BlockQ5_0*>(block);
        nibbles(b.qs);
        fifth_bits(b.qh);
        for (int& q : out.q)
            q -= 16;
        out.d = fp16(b.d);
        break;
    }
    case TensorType::Q4_1: {
        const auto& b = *reinterpret_cast<const BlockQ4_1*>(block);
        nibbles(b.qs);
        out.d = fp16(b.d);
        out.m = fp16(b.m);
        break;
    }
    case TensorType::Q5_1: {
        const auto& b = *reinterpret_cast<const BlockQ5_1*>(block);
        nibbles(b.qs);
        fifth_bits(b.qh);
        out.d = fp16(b.d);
        out.m = fp16(b.m);
        break;
    }
    default:
        break;
    }
    return out;
}

// The exact dot product (double is exact here: fp16 scales times int sums of at most 20 bits,
// summed over at most a few hundred blocks) and the bound on a float evaluation's error.
struct Exact {
    double value = 0;
    double tolerance = 0;
};

Exact exact_dot(TensorType t, const uint8_t* weights, const uint8_t* activations, int64_t n) {
    const int64_t blocks = n / 32;
    const size_t block_bytes = type_traits(t).block_bytes;
    double magnitude = 0;
    Exact e;
    for (int64_t i = 0; i < blocks; ++i) {
        const IntBlock w = decode_block(t, weights + i * block_bytes);
        const IntBlock x = decode_block(TensorType::Q8_0, activations + i * sizeof(BlockQ8_0));
        int64_t dot = 0, sum = 0, abs_dot = 0, abs_sum = 0;
        for (int j = 0; j < 32; ++j) {
            dot += int64_t{w.q[j]} * x.q[j];
            sum += x.q[j];
            abs_dot += std::abs(int64_t{w.q[j]} * x.q[j]);
            abs_sum += std::abs(x.q[j]);
        }
        e.value += w.d * x.d * double(dot) + w.m * x.d * double(sum);
        magnitude += std::fabs(w.d * x.d) * double(abs_dot) + std::fabs(w.m * x.d) * double(abs_sum);
    }
    // Per block at most two roundings of each term and one per accumulation (two terms with a
    // minimum), and a few for a final horizontal sum. The magnitude is taken element by element:
    // it bounds every partial sum, whichever way a kernel splits the integer dots over lanes.
    e.tolerance = double(2 * blocks + 8) * kUnitRoundoff * magnitude;
    return e;
}

QString tier_name(Isa isa) {
    return QString::fromUtf8(isa_name(isa).data());
}

QString type_name(TensorType t) {
    return QString::fromUtf8(type_traits(t).name.data());
}

// A data row for a tier this CPU lacks: the test skips it, saying why.
bool add_unavailable_row(Isa isa) {
    if (kernels_for(isa) != nullptr) return false;
    QTest::newRow(qPrintable(tier_name(isa) + " (not run here)"))
        << int(isa) << int(TensorType::Q8_0) << 1 << 0;
    return true;
}

// QSKIP returns from the test function itself, so this is a macro.
#define SKIP_IF_UNAVAILABLE(isa)                                                                             \
    do {                                                                                                     \
        if (kernels_for(isa) == nullptr) QSKIP(isa_unavailable_reason(isa).c_str());                         \
    } while (false)

} // namespace

class TestVnniKernels : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        for (Isa isa : kVnniTiers)
            qInfo("%s: %s", isa_name(isa).data(),
                  kernels_for(isa) ? "runs here" : isa_unavailable_reason(isa).c_str());
    }

    // The tier takes each 32-element type whole: its own dot product and gemm, Q8_0
    // activations quantized as the AVX2 tier quantizes them, one gemm for every row count (the
    // AMX tier: the AVX-512 tier's, with its own Q8_0 gemm).
    void tableEntries_data() {
        QTest::addColumn<int>("isa");
        for (Isa isa : kVnniTiers)
            QTest::newRow(qPrintable(tier_name(isa))) << int(isa);
    }

    void tableEntries() {
        QFETCH(int, isa);
        const auto tier = static_cast<Isa>(isa);
        SKIP_IF_UNAVAILABLE(tier);
        const KernelTable& table = *kernels_for(tier);
        const KernelTable& avx2 = *kernels_for(Isa::Avx2);
        for (TensorType t : kTypes) {
            const TypeKernels& k = table.of(t);
            // The AMX tier replaces Q8_0's gemm, and multiplies every type on BF16 tiles in
            // prefill.
            QCOMPARE(k.isa, tier);
            if (tier == Isa::Amx)
                QCOMPARE(k.gemm == kernels_for(Isa::Avx512)->of(t).gemm, t != TensorType::Q8_0);
            QCOMPARE(k.gemm_bf16_tiles != nullptr, tier == Isa::Amx);
            QCOMPARE(k.activation_type, TensorType::Q8_0);
            QVERIFY(k.vec_dot != nullptr && k.vec_dot != avx2.of(t).vec_dot);
            QVERIFY(k.gemm != nullptr && k.gemm != avx2.of(t).gemm);
            QVERIFY(k.gemm_rows_multiple_of_8 == nullptr);
            QVERIFY(k.dequantize == avx2.of(t).dequantize);
        }
        // AVX-512 quantizes the activations with its own code (activationQuantizer checks its bits).
        QCOMPARE(table.of(TensorType::Q8_0).activation_quantizer() ==
                     avx2.of(TensorType::Q8_0).activation_quantizer(),
                 tier == Isa::AvxVnni);
    }

    // The tier's Q8_0 activation quantizer gives the reference's bytes: the same choice among the
    // eight scales and the same quants, for ordinary, huge, tied, zero and denormal values (a NaN's
    // quant is the reference's undefined float-to-int conversion).
    void activationQuantizer_data() {
        QTest::addColumn<int>("isa");
        QTest::addColumn<int>("kind");
        for (Isa isa : kVnniTiers) {
            if (add_unavailable_row(isa)) continue;
            for (int kind = 0; kind < 6; ++kind)
                QTest::newRow(qPrintable(QString("%1 kind %2").arg(tier_name(isa)).arg(kind)))
                    << int(isa) << kind;
        }
    }

    void activationQuantizer() {
        QFETCH(int, isa);
        QFETCH(int, kind);
        SKIP_IF_UNAVAILABLE(static_cast<Isa>(isa));
        const int64_t n = 32 * 37;
        std::mt19937 rng(500u + kind);
        std::vector<float> x = normal_floats(n, rng);
        for (int64_t i = 0; i < n; ++i) {
            switch (kind) {
            case 1:
                x[i] *= 1e4f;
                break;
            case 2: // amax 127: the inverse of the m = 127 candidate is 1, ties at .5
                x[i] = i % 32 == 0 ? 127.0f : float(int(rng() % 200) - 100) + (rng() % 2 ? 0.5f : 0.0f);
                break;
            case 3: // every other block zero, the rest tiny
                x[i] = (i / 32) % 2 == 0 ? 0.0f : x[i] * 1e-20f;
                break;
            case 4: // scales in the fp16 denormals
                x[i] *= 1e-5f;
                break;
            case 5: // one huge value per 17
                if (i % 17 == 0) x[i] = 200.0f;
                break;
            default:
                break;
            }
        }
        Bytes expected(row_bytes(TensorType::Q8_0, n)), got(expected.size(), 0xAB);
        reference_kernels().of(TensorType::Q8_0).activation_quantizer()(x.data(), expected.data(), n);
        kernels_for(static_cast<Isa>(isa))
            ->of(TensorType::Q8_0)
            .activation_quantizer()(x.data(), got.data(), n);
        for (size_t i = 0; i < got.size(); ++i)
            if (got[i] != expected[i])
                QFAIL(qPrintable(QString("byte %1 of block %2: %3, reference %4")
                                     .arg(i % 34)
                                     .arg(i / 34)
                                     .arg(got[i])
                                     .arg(expected[i])));
    }

    // ---- Dot products.

    void vecDot_data() {
        QTest::addColumn<int>("isa");
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<int>("pattern");
        for (Isa isa : kVnniTiers) {
            if (add_unavailable_row(isa)) continue;
            for (TensorType t : kTypes)
                for (int blocks : {1, 2, 3, 7, 28, 152})
                    for (Pattern p : kPatterns)
                        QTest::newRow(qPrintable(QString("%1 %2 %3 blocks %4")
                                                     .arg(tier_name(isa), type_name(t))
                                                     .arg(blocks)
                                                     .arg(pattern_name(p))))
                            << int(isa) << int(t) << blocks << int(p);
        }
    }

    void vecDot() {
        QFETCH(int, isa);
        QFETCH(int, type);
        QFETCH(int, blocks);
        QFETCH(int, pattern);
        SKIP_IF_UNAVAILABLE(static_cast<Isa>(isa));
        const auto t = static_cast<TensorType>(type);
        const auto p = static_cast<Pattern>(pattern);
        const int64_t n = 32 * blocks;
        std::mt19937 rng(1000u * type + 10u * blocks + pattern);
        const Bytes w = make_weights(t, n, p, rng), a = make_activations(n, p, rng);
        const float got = kernels_for(static_cast<Isa>(isa))->of(t).vec_dot(n, w.data(), a.data());
        const Exact e = exact_dot(t, w.data(), a.data(), n);
        QVERIFY2(
            std::fabs(double(got) - e.value) <= e.tolerance,
            qPrintable(QString("got %1, exact %2, tolerance %3").arg(got).arg(e.value).arg(e.tolerance)));
        if (p == Pattern::ZeroScales) QVERIFY(got == 0.0f);
        // The reference agrees within its own roundings (it is held to the same bound).
        const float ref = reference_kernels().of(t).vec_dot(n, w.data(), a.data());
        QVERIFY2(std::fabs(double(ref) - e.value) <= e.tolerance,
                 qPrintable(QString("reference %1, exact %2").arg(ref).arg(e.value)));
    }

    // ---- Gemm: every tile shape and remainder, batch 1 (decode, its own kernel) included, and
    // nothing written outside the rows and batch asked for.

    void gemm_data() {
        QTest::addColumn<int>("isa");
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<int>("pattern");
        for (Isa isa : kVnniTiers) {
            if (add_unavailable_row(isa)) continue;
            for (TensorType t : kTypes) {
                for (int blocks : {1, 3, 28})
                    for (Pattern p : kPatterns)
                        QTest::newRow(qPrintable(QString("%1 %2 %3 blocks %4")
                                                     .arg(tier_name(isa), type_name(t))
                                                     .arg(blocks)
                                                     .arg(pattern_name(p))))
                            << int(isa) << int(t) << blocks << int(p);
                // Qwen2.5-0.5B's FFN width: a panel larger than L1.
                QTest::newRow(
                    qPrintable(QString("%1 %2 152 blocks quantized").arg(tier_name(isa), type_name(t))))
                    << int(isa) << int(t) << 152 << int(Pattern::Quantized);
            }
        }
    }

    void gemm() {
        QFETCH(int, isa);
        QFETCH(int, type);
        QFETCH(int, blocks);
        QFETCH(int, pattern);
        SKIP_IF_UNAVAILABLE(static_cast<Isa>(isa));
        const auto t = static_cast<TensorType>(type);
        const auto p = static_cast<Pattern>(pattern);
        const TypeKernels& k = kernels_for(static_cast<Isa>(isa))->of(t);
        const int64_t n = 32 * blocks;
        const size_t w_bytes = row_bytes(t, n), a_bytes = row_bytes(TensorType::Q8_0, n);
        constexpr int kMaxRows = 40, kMaxBatch = 25, kFirstRow = 3;
        constexpr int kTotalRows = kFirstRow + kMaxRows + 1; // untouched rows on each side
        std::mt19937 rng(77u * type + blocks + 1000u * pattern);
        Bytes weights, activations;
        for (int r = 0; r < kTotalRows; ++r) {
            const Bytes row = make_weights(t, n, p, rng);
            weights.insert(weights.end(), row.begin(), row.end());
        }
        for (int b = 0; b < kMaxBatch; ++b) {
            const Bytes row = make_activations(n, p, rng);
            activations.insert(activations.end(), row.begin(), row.end());
        }
        std::vector<Exact> exact(size_t(kTotalRows * kMaxBatch));
        std::vector<float> reference(exact.size());
        for (int r = 0; r < kTotalRows; ++r)
            for (int b = 0; b < kMaxBatch; ++b) {
                const uint8_t* w = weights.data() + r * w_bytes;
                const uint8_t* a = activations.data() + b * a_bytes;
                exact[size_t(b * kTotalRows + r)] = exact_dot(t, w, a, n);
                reference[size_t(b * kTotalRows + r)] = reference_kernels().of(t).vec_dot(n, w, a);
            }
        const int64_t y_stride = kTotalRows + 5;
        const float sentinel = std::numeric_limits<float>::quiet_NaN();
        std::vector<float> y;
        int calls = 0;
        for (int first : {0, kFirstRow})
            for (int rows : {1, 2, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 40})
                for (int batch : {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 18, 24, 25}) {
                    y.assign(size_t(y_stride * kMaxBatch), sentinel);
                    k.gemm(n, weights.data(), w_bytes, first, first + rows, activations.data(), a_bytes,
                           batch, y.data(), y_stride);
                    ++calls;
                    double error = 0, energy = 0;
                    const QString failure = gemm_output_failure(
                        y, y_stride, kMaxBatch, first, rows, batch, [&](int b, int r, float got) {
                            const Exact& e = exact[size_t(b * kTotalRows + r)];
                            if (!(std::fabs(double(got) - e.value) <= e.tolerance))
                                return QString("got %1, exact %2, tolerance %3")
                                    .arg(got)
                                    .arg(e.value)
                                    .arg(e.tolerance);
                            const double ref = reference[size_t(b * kTotalRows + r)];
                            error += (double(got) - ref) * (double(got) - ref);
                            energy += ref * ref;
                            return QString();
                        });
                    if (!failure.isEmpty()) QFAIL(qPrintable(failure));
                    QVERIFY2(error <= kMaxNmse * energy,
                             qPrintable(QString("NMSE %1 against the reference").arg(error / energy)));
                }
        QVERIFY(calls > 0);
    }
};

QTEST_GUILESS_MAIN(TestVnniKernels)
#include "test_vnni_kernels.moc"
