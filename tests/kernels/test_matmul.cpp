// matmul against a naive double-precision product of the dequantized weights, for
// odd row counts, batches 1 to 40, 1 and 4 threads, and every ISA tier this CPU runs (the
// others skipped, with the reason).
#include "kernels/kernel_table.h"
#include "kernels/matmul.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/tensor_type.h"

#include "tests/support/normal_data.h"

#include <QTest>
#include <cmath>
#include <random>
#include <vector>

using namespace hearth::kernels;
using hearth::test::normal_data;

namespace {

const char* const kWeightTypes[] = {"f32",  "f16",  "bf16", "q4_0", "q4_1", "q5_0", "q5_1",
                                    "q8_0", "q2_K", "q3_K", "q4_K", "q5_K", "q6_K"};

} // namespace

class TestMatmul : public QObject {
    Q_OBJECT
private slots:
    void cleanupTestCase() { force_isa(Isa::Scalar); }

    void matches_naive_product_data() {
        QTest::addColumn<QString>("type");
        QTest::addColumn<int>("isa");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("threads");
        for (Isa isa : kIsaTiers) {
            const QString tier = QString::fromUtf8(isa_name(isa).data());
            if (kernels_for(isa) == nullptr) { // one row says so; the test skips it with the reason
                QTest::newRow(qPrintable(tier + " (not run here)")) << "q4_K" << int(isa) << 1 << 1 << 1;
                continue;
            }
            for (const char* name : kWeightTypes)
                for (int rows : {1, 3, 17, 33})
                    // 17 and 40 rows reach the prefill tiles (and their short last pass); 40 and
                    // 50 the AMX tier's BF16 tiles (kBf16TileMinBatch).
                    for (int batch : {1, 2, 5, 17, 40, 50})
                        for (int threads : {1, 4})
                            QTest::newRow(qPrintable(QString("%1 %2 rows %3 batch %4 threads %5")
                                                         .arg(name)
                                                         .arg(tier)
                                                         .arg(rows)
                                                         .arg(batch)
                                                         .arg(threads)))
                                << name << int(isa) << rows << batch << threads;
        }
    }
    void matches_naive_product() {
        QFETCH(QString, type);
        QFETCH(int, isa);
        QFETCH(int, rows);
        QFETCH(int, batch);
        QFETCH(int, threads);
        if (kernels_for(static_cast<Isa>(isa)) == nullptr)
            QSKIP(qPrintable(QString::fromStdString(isa_unavailable_reason(static_cast<Isa>(isa)))));
        force_isa(static_cast<Isa>(isa));
        const TensorType t = *type_from_name(type.toStdString());
        const int64_t block = type_traits(t).block_elements;
        const int64_t cols = block == 256 ? 3 * 256 : 7 * 32; // odd block counts
        const ReferenceOps ref = reference_ops(t);

        const std::vector<float> w = normal_data(rows * cols, 11u + rows, 0.2f);
        std::vector<std::byte> weights(row_bytes(t, cols) * size_t(rows));
        ref.quantize(w.data(), weights.data(), rows * cols);
        std::vector<float> wq(w.size());
        ref.dequantize(weights.data(), wq.data(), rows * cols);

        const std::vector<float> x = normal_data(batch * cols, 77u + batch, 0.2f);
        // The activations as the kernels see them, for the error bound: BF16 where the tier
        // multiplies this batch on BF16 tiles, which round each weight to BF16 too.
        const Candidate<GemmFn>* kernel = kernels_for(static_cast<Isa>(isa))
                                              ->of(t)
                                              .matmul.pick({.batch = batch, .rows = rows, .width = cols});
        QVERIFY(kernel != nullptr);
        const bool bf16_tiles = kernel->activation_type == TensorType::BF16 && t != TensorType::BF16;
        const TensorType activation_type = bf16_tiles ? TensorType::BF16 : ref.activation_type;
        const double weight_rounding = bf16_tiles ? std::ldexp(1.0, -8) : 0.0;
        std::vector<float> xq = x;
        if (activation_type != TensorType::F32) {
            const ReferenceOps act = reference_ops(activation_type);
            std::vector<std::byte> buffer(row_bytes(activation_type, batch * cols));
            act.quantize(x.data(), buffer.data(), batch * cols);
            act.dequantize(buffer.data(), xq.data(), batch * cols);
        }

        ThreadPool pool(threads);
        std::vector<std::byte> scratch(matmul_scratch_bytes(t, cols, batch));
        const float sentinel = -999.0f;
        std::vector<float> y(size_t(batch * rows) + 8, sentinel);
        matmul(WeightMatrix{t, rows, cols, weights.data()}, x.data(), batch, y.data(), pool, scratch);
        for (size_t i = size_t(batch * rows); i < y.size(); ++i)
            QCOMPARE(y[i], sentinel);

        for (int b = 0; b < batch; ++b)
            for (int r = 0; r < rows; ++r) {
                double naive = 0, bound = 0, magnitude = 0;
                for (int64_t c = 0; c < cols; ++c) {
                    const double wv = wq[size_t(r * cols + c)];
                    const double xv = x[size_t(b * cols + c)];
                    naive += wv * xv;
                    bound += std::fabs(wv) * std::fabs(xv - xq[size_t(b * cols + c)]);
                    magnitude += std::fabs(wv * xv);
                }
                const double allowed = bound + (weight_rounding + 1e-5) * magnitude + 1e-5;
                const double got = y[size_t(b * rows + r)];
                if (std::fabs(got - naive) > allowed)
                    QFAIL(qPrintable(QString("y[%1][%2] = %3, naive %4, allowed %5")
                                         .arg(b)
                                         .arg(r)
                                         .arg(got)
                                         .arg(naive)
                                         .arg(allowed)));
            }
    }

    // With the scalar table, matmul is exactly the reference vec_dot of each (row, batch) pair,
    // whatever the thread count.
    void scalar_is_exact_vec_dot() {
        force_isa(Isa::Scalar);
        const TensorType t = TensorType::Q4_K;
        const int64_t rows = 37, cols = 512, batch = 3;
        const ReferenceOps ref = reference_ops(t);
        const std::vector<float> w = normal_data(rows * cols, 5, 0.2f);
        std::vector<std::byte> weights(row_bytes(t, cols) * rows);
        ref.quantize(w.data(), weights.data(), rows * cols);
        const std::vector<float> x = normal_data(batch * cols, 6, 0.2f);
        std::vector<std::byte> xq(row_bytes(TensorType::Q8_K, cols) * batch);
        reference_ops(TensorType::Q8_K).quantize(x.data(), xq.data(), batch * cols);

        for (int threads : {1, 2, 4}) {
            ThreadPool pool(threads);
            std::vector<std::byte> scratch; // too small: matmul grows it
            std::vector<float> y(size_t(rows * batch));
            matmul(WeightMatrix{t, rows, cols, weights.data()}, x.data(), batch, y.data(), pool, scratch);
            for (int64_t b = 0; b < batch; ++b)
                for (int64_t r = 0; r < rows; ++r)
                    QCOMPARE(y[size_t(b * rows + r)],
                             ref.vec_dot(cols, weights.data() + r * row_bytes(t, cols),
                                         xq.data() + b * row_bytes(TensorType::Q8_K, cols)));
        }
    }

    // A large batch takes the parallel activation quantization path.
    void large_batch_parallel_quantize() {
        force_isa(Isa::Scalar);
        const TensorType t = TensorType::Q8_0;
        const int64_t rows = 5, cols = 1024, batch = 40; // 40960 activations: quantized in parallel
        const ReferenceOps ref = reference_ops(t);
        const std::vector<float> w = normal_data(rows * cols, 8, 0.2f);
        std::vector<std::byte> weights(row_bytes(t, cols) * rows);
        ref.quantize(w.data(), weights.data(), rows * cols);
        const std::vector<float> x = normal_data(batch * cols, 9, 0.2f);
        std::vector<std::byte> xq(row_bytes(TensorType::Q8_0, cols) * batch);
        ref.quantize_activations(x.data(), xq.data(), batch * cols);

        ThreadPool pool(4);
        std::vector<std::byte> scratch(matmul_scratch_bytes(t, cols, batch));
        std::vector<float> y(size_t(rows * batch));
        matmul(WeightMatrix{t, rows, cols, weights.data()}, x.data(), batch, y.data(), pool, scratch);
        for (int64_t b = 0; b < batch; ++b)
            for (int64_t r = 0; r < rows; ++r)
                QCOMPARE(y[size_t(b * rows + r)],
                         ref.vec_dot(cols, weights.data() + r * row_bytes(t, cols),
                                     xq.data() + b * row_bytes(TensorType::Q8_0, cols)));
    }

    // The activation rows, and a cache line's room to start them on one.
    void scratch_bytes() {
        QCOMPARE(matmul_scratch_bytes(TensorType::F32, 4096, 8), size_t(0));
        QCOMPARE(matmul_scratch_bytes(TensorType::F16, 4096, 8),
                 size_t(8 * 4096 * 2 + 64)); // F16 activations
        QCOMPARE(matmul_scratch_bytes(TensorType::Q4_0, 4096, 2), size_t(2 * 128 * 34 + 64));
        QCOMPARE(matmul_scratch_bytes(TensorType::Q4_K, 4096, 3), size_t(3 * 16 * 292 + 64));
    }
};

QTEST_MAIN(TestMatmul)
#include "test_matmul.moc"
