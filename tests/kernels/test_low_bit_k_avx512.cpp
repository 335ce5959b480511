// The AVX-512 tier's Q2_K and Q3_K decode kernels: the same bits as the AVX2 tier's dot
// products (so that decode agrees with prefill, which keeps the AVX2 tiles), within the
// format's bound of the scalar reference, and its gemm's batch of one equal to its dot product
// row by row. Skipped, with the reason, on a CPU without AVX-512.
#include "kernels/block_formats.h"
#include "kernels/kernel_table.h"

#include <QTest>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace hearth::kernels;

namespace {

using Bytes = std::vector<uint8_t>;

// Quantized rows of normal values, or every byte random (any scale, any quant, any high bit).
Bytes make_rows(TensorType t, int64_t rows, int64_t n, bool raw, std::mt19937& rng) {
    Bytes out(row_bytes(t, n) * static_cast<size_t>(rows));
    if (raw) {
        for (uint8_t& b : out)
            b = static_cast<uint8_t>(rng());
        // Keep the fp16 scales finite and moderate: d (and Q2_K's dmin) in [2^-8, 2^-4).
        const size_t block = type_traits(t).block_bytes;
        for (size_t at = 0; at < out.size(); at += block) {
            const size_t d = t == TensorType::Q2_K ? offsetof(BlockQ2_K, d) : offsetof(BlockQ3_K, d);
            for (size_t field = d; field < (t == TensorType::Q2_K ? d + 4 : d + 2); field += 2) {
                const uint16_t half = static_cast<uint16_t>(0x1C00 | (rng() & 0x3FF) | ((rng() & 1) << 15));
                std::memcpy(out.data() + at + field, &half, 2);
            }
        }
        return out;
    }
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(static_cast<size_t>(rows * n));
    for (float& v : x)
        v = normal(rng);
    reference_kernels().of(t).quantize(x.data(), out.data(), rows * n);
    return out;
}

Bytes make_activations(int64_t rows, int64_t n, std::mt19937& rng) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(static_cast<size_t>(rows * n));
    for (float& v : x)
        v = normal(rng);
    Bytes out(row_bytes(TensorType::Q8_K, n) * static_cast<size_t>(rows));
    reference_kernels().of(TensorType::Q8_K).quantize(x.data(), out.data(), rows * n);
    return out;
}

bool same_bits(float a, float b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

} // namespace

class TestLowBitKAvx512 : public QObject {
    Q_OBJECT
private slots:
    void matchesAvx2AndReference_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<bool>("raw");
        for (TensorType t : {TensorType::Q2_K, TensorType::Q3_K})
            for (int blocks : {1, 2, 8, 13})
                for (bool raw : {false, true})
                    QTest::addRow("%s %d blocks %s", type_traits(t).name.data(), blocks,
                                  raw ? "random bytes" : "quantized")
                        << int(t) << blocks << raw;
    }

    void matchesAvx2AndReference() {
        QFETCH(int, type);
        QFETCH(int, blocks);
        QFETCH(bool, raw);
        const KernelTable* avx512 = kernels_for(Isa::Avx512);
        if (avx512 == nullptr) QSKIP(isa_unavailable_reason(Isa::Avx512).c_str());
        const KernelTable& avx2 = *kernels_for(Isa::Avx2);
        const auto t = static_cast<TensorType>(type);
        const TypeKernels& mine = avx512->of(t);
        QCOMPARE(mine.isa, Isa::Avx512);
        QVERIFY(mine.vec_dot != avx2.of(t).vec_dot);

        const int64_t n = int64_t(blocks) * QK_K, rows = 5, batch = 3;
        std::mt19937 rng(static_cast<uint32_t>(type * 100 + blocks * 2 + raw));
        const Bytes w = make_rows(t, rows, n, raw, rng), a = make_activations(batch, n, rng);
        const size_t w_bytes = row_bytes(t, n), a_bytes = row_bytes(TensorType::Q8_K, n);
        std::vector<float> decode(rows), prefill(size_t(rows * batch)), prefill_avx2(prefill.size());
        mine.gemm(n, w.data(), w_bytes, 0, rows, a.data(), a_bytes, 1, decode.data(), rows);
        mine.gemm(n, w.data(), w_bytes, 0, rows, a.data(), a_bytes, batch, prefill.data(), rows);
        avx2.of(t).gemm(n, w.data(), w_bytes, 0, rows, a.data(), a_bytes, batch, prefill_avx2.data(), rows);
        for (int64_t r = 0; r < rows; ++r) {
            const uint8_t* row = w.data() + r * w_bytes;
            for (int64_t b = 0; b < batch; ++b) {
                const uint8_t* x = a.data() + b * a_bytes;
                const float got = mine.vec_dot(n, row, x);
                const float avx2_dot = avx2.of(t).vec_dot(n, row, x);
                QVERIFY2(same_bits(got, avx2_dot),
                         qPrintable(QString("row %1: avx512 %2, avx2 %3").arg(r).arg(got).arg(avx2_dot)));
                // Prefill (batch 3) and decode (batch 1) give a row the same bits.
                QVERIFY(same_bits(prefill[size_t(b * rows + r)], got));
                QVERIFY(same_bits(prefill_avx2[size_t(b * rows + r)], got));
                if (b == 0) QVERIFY(same_bits(decode[size_t(r)], got));
                // Exact integer sums; only the float steps round: a relative bound on the
                // magnitude of the terms.
                const float ref = reference_kernels().of(t).vec_dot(n, row, x);
                const double bound = 1e-5 * (1.0 + std::fabs(double(ref))) * blocks;
                QVERIFY2(std::fabs(double(got) - ref) <= bound,
                         qPrintable(QString("row %1: avx512 %2, reference %3").arg(r).arg(got).arg(ref)));
            }
        }
    }
};

QTEST_MAIN(TestLowBitKAvx512)
#include "test_low_bit_k_avx512.moc"
