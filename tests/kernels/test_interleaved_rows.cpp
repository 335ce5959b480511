// Q4_K, Q6_K and Q8_0 weights repacked in groups of 16 rows: the repacking gives back the file's
// bytes, and matmul over the repacked matrix matches the row-major one on every tier this CPU
// runs (the others skipped, with the reason), for decode and prefill batches. Each kernel over
// repacked rows against the reference: test_kernel_ops.
#include "kernels/block_formats.h"
#include "kernels/fp16.h"
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include "kernels/matmul.h"
#include "kernels/reference/reference_kernels.h"

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
    reference_ops(t).quantize(w.data(), out.data(), rows * cols);
    return out;
}

constexpr TensorType kRepackedTypes[] = {TensorType::Q4_K, TensorType::Q6_K, TensorType::Q8_0};

// A data row per repacked type and tier: columns "type" and "isa".
void add_type_and_tier_rows() {
    QTest::addColumn<int>("type");
    QTest::addColumn<int>("isa");
    for (TensorType type : kRepackedTypes)
        for (Isa isa : kIsaTiers)
            QTest::newRow(qPrintable(QString::fromUtf8(type_traits(type).name.data()) + " " +
                                     QString::fromUtf8(isa_name(isa).data())))
                << int(type) << int(isa);
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

    // The AVX2 tier keeps Q6_K in the file's rows (its dot products decode them faster), the
    // VNNI tiers repack it; Q4_K and Q8_0 are repacked on every tier, and nothing the layout
    // cannot hold.
    void which_matrices_each_tier_repacks_at_load() {
        QCOMPARE(load_layout(reference_kernels(), TensorType::Q4_K, 32, 512), RowLayout::Interleaved16);
        for (Isa isa : {Isa::Avx2, Isa::AvxVnni, Isa::Avx512}) {
            const KernelTable* table = kernels_for(isa);
            if (table == nullptr) {
                qInfo("%s: %s", isa_name(isa).data(), isa_unavailable_reason(isa).c_str());
                continue;
            }
            QCOMPARE(load_layout(*table, TensorType::Q4_K, 32, 512), RowLayout::Interleaved16);
            QCOMPARE(load_layout(*table, TensorType::Q8_0, 32, 512), RowLayout::Interleaved16);
            QCOMPARE(load_layout(*table, TensorType::Q6_K, 32, 512), RowLayout::Interleaved16);
            QCOMPARE(load_layout(*table, TensorType::Q4_K, 17, 512), RowLayout::RowMajor);
            QCOMPARE(load_layout(*table, TensorType::Q5_K, 32, 512), RowLayout::RowMajor);
        }
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
                for (int batch : {1, 3, 20, 40, 70})
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

    void largest_products_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("isa");
        for (TensorType type : {TensorType::Q4_K, TensorType::Q6_K})
            for (Isa isa : kIsaTiers)
                QTest::newRow(qPrintable(QString::fromUtf8(type_traits(type).name.data()) + " " +
                                         QString::fromUtf8(isa_name(isa).data())))
                    << int(type) << int(isa);
    }
    // Every quant at its top (Q4_K 15, Q6_K 63) and every scale at its largest, against
    // activations of one sign at full scale: the sums a tier keeps in int16 words (AVX2's)
    // reach their largest and must not wrap.
    void largest_products() {
        QFETCH(int, type);
        QFETCH(int, isa);
        if (kernels_for(static_cast<Isa>(isa)) == nullptr)
            QSKIP(qPrintable(QString::fromStdString(isa_unavailable_reason(static_cast<Isa>(isa)))));
        const auto t = static_cast<TensorType>(type);
        const int64_t rows = 32, cols = 2 * 256, batch = 3;
        std::vector<BlockQ4_K> q4(static_cast<size_t>(rows * cols / 256));
        for (BlockQ4_K& b : q4) {
            b.d = fp32_to_fp16(0.01f);
            b.dmin = fp32_to_fp16(0.002f);
            std::memset(b.scales, 0xFF, sizeof b.scales);
            std::memset(b.qs, 0xFF, sizeof b.qs);
        }
        std::vector<BlockQ6_K> q6(q4.size());
        for (size_t i = 0; i < q6.size(); ++i) {
            std::memset(q6[i].ql, 0xFF, sizeof q6[i].ql);
            std::memset(q6[i].qh, 0xFF, sizeof q6[i].qh);
            for (int8_t& scale : q6[i].scales)
                scale = i % 2 == 0 ? int8_t(127) : int8_t(-128);
            q6[i].d = fp32_to_fp16(0.01f);
        }
        const void* weights = t == TensorType::Q4_K ? static_cast<const void*>(q4.data()) : q6.data();
        std::vector<float> x(static_cast<size_t>(batch * cols));
        for (int64_t i = 0; i < cols; ++i) {
            x[static_cast<size_t>(i)] = -1.0f;
            x[static_cast<size_t>(cols + i)] = 1.0f;
            x[static_cast<size_t>(2 * cols + i)] = (i / 32) % 2 == 0 ? -1.0f : 1.0f;
        }
        std::vector<std::byte> packed(interleaved_rows16_bytes(t, rows, cols));
        interleave_rows16(t, weights, rows, cols, packed.data());
        ThreadPool pool(2);
        std::vector<std::byte> scratch(matmul_scratch_bytes(t, cols, batch));
        std::vector<float> expected(size_t(rows * batch)), got(expected.size());
        force_isa(Isa::Scalar);
        matmul(WeightMatrix{t, rows, cols, weights}, x.data(), batch, expected.data(), pool, scratch);
        force_isa(static_cast<Isa>(isa));
        for (int64_t b : {int64_t(1), batch}) {
            matmul(WeightMatrix{t, rows, cols, packed.data(), RowLayout::Interleaved16}, x.data(), b,
                   got.data(), pool, scratch);
            for (size_t i = 0; i < size_t(rows * b); ++i)
                if (std::fabs(double(got[i]) - expected[i]) > 1e-5 * std::fabs(double(expected[i])))
                    QFAIL(qPrintable(QString("batch %1: y[%2] = %3, scalar %4")
                                         .arg(b)
                                         .arg(i)
                                         .arg(got[i])
                                         .arg(expected[i])));
        }
    }

    void small_batch_rows_are_decode_bits_data() { add_type_and_tier_rows(); }
    // A verify pass scores drafted tokens as a batch: where the batch runs the decode kernel (up
    // to 17 rows, a verify pass's most, on the x86 tiers but AMX's, 7 on it), each row's result
    // is bit for bit what decoding that row alone gives, whatever the rows beside it, so greedy
    // speculation is exact.
    void small_batch_rows_are_decode_bits() {
        QFETCH(int, type);
        QFETCH(int, isa);
        const KernelTable* table = kernels_for(static_cast<Isa>(isa));
        if (table == nullptr)
            QSKIP(qPrintable(QString::fromStdString(isa_unavailable_reason(static_cast<Isa>(isa)))));
        force_isa(static_cast<Isa>(isa));
        const auto t = static_cast<TensorType>(type);
        const int64_t rows = 96, cols = 6 * 256;
        const std::vector<std::byte> weights = quantized(t, rows, cols, 31);
        std::vector<std::byte> packed(interleaved_rows16_bytes(t, rows, cols));
        interleave_rows16(t, weights.data(), rows, cols, packed.data());
        const WeightMatrix w{t, rows, cols, packed.data(), RowLayout::Interleaved16};
        const auto picked = [&](int64_t batch) {
            return table->of(t).matmul.pick(
                {.batch = batch, .rows = rows, .width = cols, .layout = RowLayout::Interleaved16});
        };
        ThreadPool pool(2);
        int compared = 0;
        for (int64_t batch : {2, 3, 4, 5, 7, 9, 15, 17}) {
            if (picked(batch) != picked(1)) {
                QVERIFY2(static_cast<Isa>(isa) == Isa::Scalar ||
                             (static_cast<Isa>(isa) == Isa::Amx && batch >= 8),
                         qPrintable(QString("batch %1 leaves the decode kernel").arg(batch)));
                continue;
            }
            const std::vector<float> x = normal_data(batch * cols, 32 + uint32_t(batch), 0.1f);
            std::vector<std::byte> scratch(matmul_scratch_bytes(t, cols, batch));
            std::vector<float> together(size_t(rows * batch));
            matmul(w, x.data(), batch, together.data(), pool, scratch);
            for (int64_t b = 0; b < batch; ++b) {
                std::vector<float> alone(static_cast<size_t>(rows));
                matmul(w, x.data() + b * cols, 1, alone.data(), pool, scratch);
                QVERIFY2(
                    std::memcmp(alone.data(), together.data() + b * rows, alone.size() * sizeof(float)) == 0,
                    qPrintable(QString("batch %1, row %2").arg(batch).arg(b)));
            }
            ++compared;
        }
        if (static_cast<Isa>(isa) != Isa::Scalar)
            QVERIFY(compared >= (static_cast<Isa>(isa) == Isa::Amx ? 4 : 8));
        if (compared == 0) QSKIP("this tier multiplies these batches with another kernel than decode's");
    }

    // The BF16 tile kernels over repacked rows give the bits of the same tier's over the file's
    // rows, over rows long enough to be multiplied in spans.
    void bf16_tiles_match_row_major_bits_data() { add_type_and_tier_rows(); }
    void bf16_tiles_match_row_major_bits() {
        QFETCH(int, type);
        QFETCH(int, isa);
        const KernelTable* table = kernels_for(static_cast<Isa>(isa));
        if (table == nullptr)
            QSKIP(qPrintable(QString::fromStdString(isa_unavailable_reason(static_cast<Isa>(isa)))));
        const auto t = static_cast<TensorType>(type);
        const Candidate<GemmFn>*row_major = nullptr, *repacked = nullptr;
        for (const Candidate<GemmFn>& c : table->of(t).matmul)
            if (c.activation_type == TensorType::BF16)
                (c.guard.layout == RowLayout::Interleaved16 ? repacked : row_major) = &c;
        if (row_major == nullptr || repacked == nullptr)
            QSKIP("this tier has no BF16 tile kernels of this type");
        const int64_t n = 5 * 256, rows = 48, batch = 33;
        const size_t w_bytes = row_bytes(t, n), a_bytes = row_bytes(TensorType::BF16, n);
        const std::vector<std::byte> weights = quantized(t, rows, n, 17);
        std::vector<std::byte> packed(interleaved_rows16_bytes(t, rows, n));
        interleave_rows16(t, weights.data(), rows, n, packed.data());
        std::vector<std::byte> activations(a_bytes * batch);
        reference_ops(TensorType::BF16)
            .quantize(normal_data(batch * n, 19, 0.1f).data(), activations.data(), batch * n);
        for (int64_t first : {0, 16})
            for (int64_t end : {32, 48}) {
                std::vector<float> want(size_t(rows * batch), -1.0f), got(want.size(), -1.0f);
                row_major->fn(n, weights.data(), w_bytes, first, end, activations.data(), a_bytes, batch,
                              want.data(), rows);
                repacked->fn(n, packed.data(), w_bytes, first, end, activations.data(), a_bytes, batch,
                             got.data(), rows);
                QVERIFY(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0);
            }
    }
};

QTEST_MAIN(TestInterleavedRows)
#include "test_interleaved_rows.moc"
