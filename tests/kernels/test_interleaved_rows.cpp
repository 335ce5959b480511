// Q4_K, Q6_K and Q8_0 weights repacked in groups of 16 rows: the repacking gives back the file's
// bytes, and matmul over the repacked matrix matches the row-major one on every tier this CPU
// runs (the others skipped, with the reason), for decode and prefill batches.
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include "kernels/matmul.h"

#include "tests/support/normal_data.h"

#include <QTest>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace hearth::kernels;
using hearth::test::normal_data;

namespace {

std::vector<std::byte> quantized(TensorType t, int64_t rows, int64_t cols, uint32_t seed) {
    const std::vector<float> w = normal_data(rows * cols, seed, 0.1f);
    std::vector<std::byte> out(row_bytes(t, cols) * static_cast<size_t>(rows));
    reference_kernels().of(t).quantize(w.data(), out.data(), rows * cols);
    return out;
}

constexpr TensorType kRepackedTypes[] = {TensorType::Q4_K, TensorType::Q6_K, TensorType::Q8_0};

// Activation rows in the format a table's kernels for `t` take (Q8_K, or Q8_0), by the
// reference quantizer.
std::vector<std::byte> activation_rows(const KernelTable& table, TensorType t, const std::vector<float>& x,
                                       int64_t cols) {
    const TensorType a = table.of(t).activation_type;
    std::vector<std::byte> out(row_bytes(a, cols) * (x.size() / static_cast<size_t>(cols)));
    reference_kernels().of(a).quantize(x.data(), out.data(), static_cast<int64_t>(x.size()));
    return out;
}

} // namespace

class TestInterleavedRows : public QObject {
    Q_OBJECT
private slots:
    void cleanupTestCase() { force_isa(Isa::Scalar); }

    void which_matrices_are_repacked() {
        QVERIFY(interleaves_rows16(TensorType::Q4_K, 32, 512));
        QVERIFY(interleaves_rows16(TensorType::Q6_K, 16, 256));
        QVERIFY(!interleaves_rows16(TensorType::Q4_K, 17, 512)); // not whole groups
        QVERIFY(!interleaves_rows16(TensorType::Q6_K, 32, 200)); // not whole super-blocks
        QVERIFY(interleaves_rows16(TensorType::Q8_0, 32, 512));
        QVERIFY(!interleaves_rows16(TensorType::Q8_0, 32, 96)); // not whole pairs of blocks
        QVERIFY(!interleaves_rows16(TensorType::Q5_K, 32, 512));
        QCOMPARE(interleaved_rows16_bytes(TensorType::Q4_K, 32, 512),
                 size_t(2 * 2 * sizeof(InterleavedQ4_K)));
        // No larger than the file's layout: the copy replaces the file's pages byte for byte.
        QCOMPARE(interleaved_rows16_bytes(TensorType::Q4_K, 32, 512), 32 * row_bytes(TensorType::Q4_K, 512));
        QCOMPARE(interleaved_rows16_bytes(TensorType::Q6_K, 48, 768), 48 * row_bytes(TensorType::Q6_K, 768));
        QCOMPARE(interleaved_rows16_bytes(TensorType::Q8_0, 48, 896), 48 * row_bytes(TensorType::Q8_0, 896));
    }

    void round_trip_is_lossless_data() {
        QTest::addColumn<int>("type");
        QTest::newRow("q4_K") << int(TensorType::Q4_K);
        QTest::newRow("q6_K") << int(TensorType::Q6_K);
        QTest::newRow("q8_0") << int(TensorType::Q8_0);
    }

    // Random bytes, not only what a quantizer writes: every bit of every block must survive.
    void round_trip_is_lossless() {
        QFETCH(int, type);
        const auto t = static_cast<TensorType>(type);
        const int64_t rows = 48, cols = 3 * 256;
        std::vector<uint8_t> original(row_bytes(t, cols) * rows);
        std::mt19937 rng(3);
        for (uint8_t& b : original)
            b = static_cast<uint8_t>(rng());
        std::vector<std::byte> packed(interleaved_rows16_bytes(t, rows, cols));
        interleave_rows16(t, original.data(), rows, cols, packed.data());
        std::vector<uint8_t> back(original.size());
        unpack_rows16(t, packed.data(), cols, 0, rows, back.data());
        QVERIFY(back == original);
        // Any row range, as the embedding lookup and prefill chunks ask for it.
        std::vector<uint8_t> some(row_bytes(t, cols) * 5);
        unpack_rows16(t, packed.data(), cols, 13, 18, some.data());
        QVERIFY(std::memcmp(some.data(), original.data() + 13 * row_bytes(t, cols), some.size()) == 0);
    }

    void matmul_matches_row_major_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("isa");
        QTest::addColumn<int>("batch");
        for (TensorType type : kRepackedTypes)
            for (Isa isa : kIsaTiers) {
                const QString tier = QString::fromUtf8(type_traits(type).name.data()) + " " +
                                     QString::fromUtf8(isa_name(isa).data());
                if (kernels_for(isa) == nullptr) {
                    QTest::newRow(qPrintable(tier + " (not run here)")) << int(type) << int(isa) << 1;
                    continue;
                }
                for (int batch : {1, 3, 20, 40})
                    QTest::newRow(qPrintable(QString("%1 batch %2").arg(tier).arg(batch)))
                        << int(type) << int(isa) << batch;
            }
    }
    // Integer sums are exact in both layouts; only the float steps' order may differ.
    void matmul_matches_row_major() {
        QFETCH(int, type);
        QFETCH(int, isa);
        QFETCH(int, batch);
        if (kernels_for(static_cast<Isa>(isa)) == nullptr)
            QSKIP(qPrintable(QString::fromStdString(isa_unavailable_reason(static_cast<Isa>(isa)))));
        force_isa(static_cast<Isa>(isa));
        const auto t = static_cast<TensorType>(type);
        const int64_t rows = 80, cols = 5 * 256;
        const std::vector<std::byte> weights = quantized(t, rows, cols, 21);
        std::vector<std::byte> packed(interleaved_rows16_bytes(t, rows, cols));
        interleave_rows16(t, weights.data(), rows, cols, packed.data());
        const std::vector<float> x = normal_data(batch * cols, 22, 0.1f);

        ThreadPool pool(2);
        std::vector<std::byte> scratch(matmul_scratch_bytes(t, cols, batch));
        std::vector<float> expected(size_t(rows * batch)), got(expected.size());
        matmul(WeightMatrix{t, rows, cols, weights.data()}, x.data(), batch, expected.data(), pool, scratch);
        matmul(WeightMatrix{t, rows, cols, packed.data(), RowLayout::Interleaved16}, x.data(), batch,
               got.data(), pool, scratch);
        double scale = 0;
        for (float v : expected)
            scale = std::max(scale, std::fabs(double(v)));
        for (size_t i = 0; i < got.size(); ++i)
            if (std::fabs(double(got[i]) - expected[i]) > 1e-5 * scale)
                QFAIL(qPrintable(QString("y[%1] = %2, row-major %3").arg(i).arg(got[i]).arg(expected[i])));
    }

    // The prefill kernel of each tier over repacked rows (the AMX tier's int8 tiles from a batch
    // of 8; a batch of 20 leaves a short tile) against the scalar reference dot product, on a range of
    // groups that does not start at the first, with nothing written outside it.
    void prefill_kernel_matches_reference_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("isa");
        for (TensorType type : kRepackedTypes)
            for (Isa isa : kIsaTiers)
                if (isa != Isa::Scalar)
                    QTest::newRow(qPrintable(QString::fromUtf8(type_traits(type).name.data()) + " " +
                                             QString::fromUtf8(isa_name(isa).data())))
                        << int(type) << int(isa);
    }
    void prefill_kernel_matches_reference() {
        QFETCH(int, type);
        QFETCH(int, isa);
        const KernelTable* table = kernels_for(static_cast<Isa>(isa));
        if (table == nullptr)
            QSKIP(qPrintable(QString::fromStdString(isa_unavailable_reason(static_cast<Isa>(isa)))));
        const auto t = static_cast<TensorType>(type);
        const GemmFn gemm = table->of(t).gemm_interleaved16;
        if (gemm == nullptr)
            QSKIP("this tier unpacks the rows for the row-major gemm (matmul_matches_row_major)");
        const int64_t rows = 48, cols = 4 * 256, batch = 20;
        const std::vector<std::byte> weights = quantized(t, rows, cols, 41);
        std::vector<std::byte> packed(interleaved_rows16_bytes(t, rows, cols));
        interleave_rows16(t, weights.data(), rows, cols, packed.data());
        const std::vector<float> x = normal_data(batch * cols, 42, 0.1f);
        const TensorType activation = table->of(t).activation_type;
        const size_t a_bytes = row_bytes(activation, cols);
        const std::vector<std::byte> xq = activation_rows(*table, t, x, cols);
        std::vector<float> y(size_t(rows * batch), -999.0f);
        gemm(cols, packed.data(), row_bytes(t, cols), 16, rows, xq.data(), a_bytes, batch, y.data(), rows);
        for (int64_t b = 0; b < batch; ++b)
            for (int64_t r = 0; r < rows; ++r) {
                const float got = y[size_t(b * rows + r)];
                if (r < 16) {
                    QCOMPARE(got, -999.0f);
                    continue;
                }
                const float expected = reference_kernels().of(t).vec_dot(
                    cols, weights.data() + static_cast<size_t>(r) * row_bytes(t, cols),
                    xq.data() + b * a_bytes);
                // The kernels sum in their own orders: each within 64 float roundings of the sum of
                // the products' magnitudes (the sum cancels, so not of the result) of the
                // reference's result.
                std::vector<float> w(static_cast<size_t>(cols)), a(static_cast<size_t>(cols));
                reference_kernels().of(t).dequantize(
                    weights.data() + static_cast<size_t>(r) * row_bytes(t, cols), w.data(), cols);
                reference_kernels().of(activation).dequantize(xq.data() + b * a_bytes, a.data(), cols);
                double magnitude = 0;
                for (int64_t k = 0; k < cols; ++k)
                    magnitude += std::fabs(double(w[size_t(k)]) * a[size_t(k)]);
                QVERIFY2(std::fabs(double(got) - expected) <= 64 * 0x1p-24 * magnitude,
                         qPrintable(QString("row %1, activation %2: %3, reference %4, products' magnitude %5")
                                        .arg(r)
                                        .arg(b)
                                        .arg(got)
                                        .arg(expected)
                                        .arg(magnitude)));
            }
    }

    // The decode kernel of each tier (the scalar one's unpacks each row) against the scalar
    // reference dot product, row by row.
    void decode_kernel_matches_reference_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("isa");
        for (TensorType type : kRepackedTypes)
            for (Isa isa : kIsaTiers)
                QTest::newRow(qPrintable(QString::fromUtf8(type_traits(type).name.data()) + " " +
                                         QString::fromUtf8(isa_name(isa).data())))
                    << int(type) << int(isa);
    }
    void decode_kernel_matches_reference() {
        QFETCH(int, type);
        QFETCH(int, isa);
        const KernelTable* table = kernels_for(static_cast<Isa>(isa));
        if (table == nullptr)
            QSKIP(qPrintable(QString::fromStdString(isa_unavailable_reason(static_cast<Isa>(isa)))));
        const auto t = static_cast<TensorType>(type);
        const InterleavedGemvFn gemv = table->of(t).gemv_interleaved16;
        QVERIFY(gemv != nullptr);
        const int64_t rows = 32, cols = 4 * 256;
        const std::vector<std::byte> weights = quantized(t, rows, cols, 31);
        std::vector<std::byte> packed(interleaved_rows16_bytes(t, rows, cols));
        interleave_rows16(t, weights.data(), rows, cols, packed.data());
        const std::vector<float> x = normal_data(cols, 32, 0.1f);
        const std::vector<std::byte> xq = activation_rows(*table, t, x, cols);
        std::vector<float> y(rows + 16, -999.0f);
        gemv(cols, packed.data(), 1, 2, xq.data(), y.data()); // the second group only
        for (int64_t r = 0; r < 16; ++r)
            QCOMPARE(y[size_t(r)], -999.0f);
        for (int64_t r = 16; r < rows; ++r) {
            const float expected = reference_kernels().of(t).vec_dot(
                cols, weights.data() + static_cast<size_t>(r) * row_bytes(t, cols), xq.data());
            QVERIFY2(std::fabs(y[size_t(r)] - expected) <= 1e-5f * (1 + std::fabs(expected)),
                     qPrintable(QString("row %1: %2, reference %3").arg(r).arg(y[size_t(r)]).arg(expected)));
        }
        QCOMPARE(y[size_t(rows)], -999.0f);
    }
};

QTEST_MAIN(TestInterleavedRows)
#include "test_interleaved_rows.moc"
