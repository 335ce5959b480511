// matmul_group against one matmul per matrix: the same activations quantized once per type and
// the rows of several matrices shared out in one job must give exactly the separate results.
#include "kernels/kernel_table.h"
#include "kernels/matmul.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/tensor_type.h"

#include <QTest>
#include <random>
#include <vector>

using namespace hearth::kernels;

namespace {

struct Matrix {
    WeightMatrix w;
    std::vector<std::byte> data;
};

Matrix random_matrix(TensorType type, int64_t rows, int64_t cols, std::mt19937& rng) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> values(static_cast<size_t>(rows * cols));
    for (float& v : values)
        v = normal(rng);
    Matrix m;
    m.data.resize(row_bytes(type, cols) * static_cast<size_t>(rows));
    const ReferenceOps k = reference_ops(type);
    for (int64_t r = 0; r < rows; ++r)
        k.quantize(values.data() + r * cols, m.data.data() + static_cast<size_t>(r) * row_bytes(type, cols),
                   cols);
    m.w = {type, rows, cols, m.data.data()};
    return m;
}

} // namespace

class TestMatmulGroup : public QObject {
    Q_OBJECT

private slots:
    void matchesSeparateProducts_data() {
        QTest::addColumn<int>("isa");
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("batch");
        for (int isa : {0, 1})
            for (int threads : {1, 3})
                for (int batch : {1, 5})
                    QTest::addRow("%s-t%d-b%d", isa ? "avx2" : "scalar", threads, batch)
                        << isa << threads << batch;
    }

    void matchesSeparateProducts() {
        QFETCH(int, isa);
        QFETCH(int, threads);
        QFETCH(int, batch);
        if (isa == 1 && kernels_for(Isa::Avx2) == nullptr) QSKIP("no AVX2 on this CPU");
        force_isa(isa ? Isa::Avx2 : Isa::Scalar);
        std::mt19937 rng(17);
        const int64_t cols = 512;
        // Two activation types (Q8_0 for Q5_0/Q8_0, Q8_K for Q4_K/Q6_K), odd row counts.
        std::vector<Matrix> matrices;
        matrices.push_back(random_matrix(TensorType::Q5_0, 37, cols, rng));
        matrices.push_back(random_matrix(TensorType::Q4_K, 5, cols, rng));
        matrices.push_back(random_matrix(TensorType::Q8_0, 70, cols, rng));
        matrices.push_back(random_matrix(TensorType::Q6_K, 1, cols, rng));
        std::normal_distribution<float> normal(0.0f, 1.0f);
        std::vector<float> x(static_cast<size_t>(batch * cols));
        for (float& v : x)
            v = normal(rng);

        ThreadPool pool(threads);
        std::vector<std::byte> scratch;
        std::vector<std::vector<float>> separate, grouped;
        std::vector<MatmulOutput> outputs;
        for (Matrix& m : matrices) {
            separate.emplace_back(static_cast<size_t>(batch * m.w.rows));
            grouped.emplace_back(static_cast<size_t>(batch * m.w.rows), -1.0f);
            matmul(m.w, x.data(), batch, separate.back().data(), pool, scratch);
        }
        for (size_t i = 0; i < matrices.size(); ++i)
            outputs.push_back({&matrices[i].w, grouped[i].data()});
        matmul_group(outputs, x.data(), batch, pool, scratch);
        for (size_t i = 0; i < matrices.size(); ++i)
            QCOMPARE(grouped[i], separate[i]);
    }

    // A mixture of experts with 8 chosen experts groups 16 matrices (gate and up of each).
    void groupsAsManyMatricesAsEightExpertsNeed() {
        force_isa(Isa::Scalar);
        std::mt19937 rng(5);
        const int64_t cols = 256;
        std::vector<Matrix> matrices;
        for (int i = 0; i < 16; ++i)
            matrices.push_back(random_matrix(TensorType::Q4_K, 16, cols, rng));
        std::vector<float> x(cols, 0.5f);
        ThreadPool pool(2);
        std::vector<std::byte> scratch;
        std::vector<std::vector<float>> separate, grouped;
        std::vector<MatmulOutput> outputs;
        for (Matrix& m : matrices) {
            separate.emplace_back(16);
            grouped.emplace_back(16, -1.0f);
            matmul(m.w, x.data(), 1, separate.back().data(), pool, scratch);
        }
        for (size_t i = 0; i < matrices.size(); ++i)
            outputs.push_back({&matrices[i].w, grouped[i].data()});
        matmul_group(outputs, x.data(), 1, pool, scratch);
        for (size_t i = 0; i < matrices.size(); ++i)
            QCOMPARE(grouped[i], separate[i]);
    }

    void rejectsDifferentWidths() {
        std::mt19937 rng(3);
        Matrix a = random_matrix(TensorType::Q8_0, 4, 64, rng),
               b = random_matrix(TensorType::Q8_0, 4, 96, rng);
        std::vector<float> x(96), ya(4), yb(4);
        ThreadPool pool(1);
        std::vector<std::byte> scratch;
        const MatmulOutput outputs[] = {{&a.w, ya.data()}, {&b.w, yb.data()}};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, matmul_group(outputs, x.data(), 1, pool, scratch));
    }
};

QTEST_MAIN(TestMatmulGroup)
#include "test_matmul_group.moc"
