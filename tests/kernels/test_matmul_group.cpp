// matmul_group against one matmul per matrix: the same activations quantized once per type and
// the rows of several matrices shared out in one job must give exactly the separate results; and
// matmul_products likewise, for matrices each on an input of its own.
#include "kernels/kernel_table.h"
#include "kernels/matmul.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/tensor_type.h"

#include <QTest>
#include <random>
#include <string>
#include <tuple>
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

    // matmul_products: experts each over rows of their own (1 to 9, some empty), inputs shared
    // by their gate and up, widths and types mixed: exactly the separate products, on every tier
    // this CPU has.
    void productsOnInputsOfTheirOwnMatchSeparateProducts_data() {
        QTest::addColumn<int>("isa");
        QTest::addColumn<int>("threads");
        for (Isa isa : kIsaTiers)
            for (int threads : {1, 2, 3})
                QTest::addRow("%s-t%d", std::string(isa_name(isa)).c_str(), threads)
                    << static_cast<int>(isa) << threads;
    }

    void productsOnInputsOfTheirOwnMatchSeparateProducts() {
        QFETCH(int, isa);
        QFETCH(int, threads);
        if (kernels_for(static_cast<Isa>(isa)) == nullptr)
            QSKIP(qPrintable(QStringLiteral("this CPU lacks the %1 tier")
                                 .arg(QString::fromLatin1(isa_name(static_cast<Isa>(isa))))));
        force_isa(static_cast<Isa>(isa));
        std::mt19937 rng(23);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        struct Expert {
            Matrix gate, up, down;
            int64_t rows;
            std::vector<float> x, hidden;
        };
        const int64_t dim = 512, ff = 256;
        const int64_t counts[] = {3, 0, 1, 9, 2, 0, 4, 1};
        std::vector<Expert> experts;
        for (int64_t count : counts) {
            Expert e{random_matrix(TensorType::Q4_K, ff, dim, rng),
                     random_matrix(TensorType::Q4_K, ff, dim, rng),
                     random_matrix(count % 2 ? TensorType::Q6_K : TensorType::Q8_0, dim, ff, rng),
                     count,
                     std::vector<float>(static_cast<size_t>(count * dim)),
                     std::vector<float>(static_cast<size_t>(count * ff))};
            for (float& v : e.x)
                v = normal(rng);
            for (float& v : e.hidden)
                v = normal(rng);
            experts.push_back(std::move(e));
        }
        ThreadPool pool(threads);
        std::vector<std::byte> scratch;
        std::vector<std::vector<float>> separate, together;
        std::vector<MatmulProduct> products;
        for (Expert& e : experts)
            for (auto [m, x, width] : {std::tuple{&e.gate, &e.x, ff}, std::tuple{&e.up, &e.x, ff},
                                       std::tuple{&e.down, &e.hidden, dim}}) {
                separate.emplace_back(static_cast<size_t>(e.rows * width));
                together.emplace_back(static_cast<size_t>(e.rows * width), -1.0f);
                if (e.rows > 0) matmul(m->w, x->data(), e.rows, separate.back().data(), pool, scratch);
            }
        size_t i = 0;
        for (Expert& e : experts)
            for (auto [m, x] :
                 {std::pair{&e.gate, &e.x}, std::pair{&e.up, &e.x}, std::pair{&e.down, &e.hidden}})
                products.push_back({&m->w, x->data(), e.rows, together[i++].data()});
        matmul_products(products, pool, scratch);
        for (size_t j = 0; j < separate.size(); ++j)
            QCOMPARE(together[j], separate[j]);
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
