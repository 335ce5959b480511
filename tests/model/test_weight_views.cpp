// Row ranges of weight matrices (engine/model/weight_repacking.h), as the fused Q/K/V, Phi-3's
// fused gate+up and the experts' 3-D tensors are cut: a range of a row-major matrix and the same
// range of its repacked copy (Q4_K in groups of 16 interleaved rows) multiply like the rows they
// stand for, on every ISA tier; and a matrix whose cuts do not fall on whole groups is not
// repacked.
#include "engine/model/weight_repacking.h"
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include "kernels/matmul.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/thread_pool.h"
#include <QTest>
#include <cmath>
#include <random>

using namespace hearth;

class TestWeightViews : public QObject {
    Q_OBJECT

private slots:
    void cleanupTestCase() { kernels::force_isa(kernels::Isa::Scalar); }

    void ranges_multiply_like_their_rows_data() {
        QTest::addColumn<int>("isa");
        for (kernels::Isa isa : kernels::kIsaTiers)
            QTest::newRow(kernels::isa_name(isa).data()) << int(isa);
    }
    void ranges_multiply_like_their_rows() {
        QFETCH(int, isa);
        const auto tier = static_cast<kernels::Isa>(isa);
        if (!kernels::kernels_for(tier)) QSKIP(kernels::isa_unavailable_reason(tier).c_str());
        kernels::force_isa(tier);
        using kernels::TensorType;
        constexpr int64_t kRows = 64, kCols = 512;
        std::mt19937 rng(7);
        std::normal_distribution<float> normal;
        std::vector<float> weights(kRows * kCols), x(kCols);
        for (float& w : weights)
            w = normal(rng);
        for (float& v : x)
            v = normal(rng);
        const size_t row_bytes = kernels::row_bytes(TensorType::Q4_K, kCols);
        std::vector<std::byte> row_major(row_bytes * kRows);
        const kernels::ReferenceOps q4k = kernels::reference_ops(TensorType::Q4_K);
        for (int64_t r = 0; r < kRows; ++r)
            q4k.quantize(weights.data() + r * kCols, row_major.data() + r * row_bytes, kCols);
        QVERIFY(kernels::interleaves_rows16(TensorType::Q4_K, kRows, kCols));
        std::vector<std::byte> packed(kernels::interleaved_rows16_bytes(TensorType::Q4_K, kRows, kCols));
        kernels::interleave_rows16(TensorType::Q4_K, row_major.data(), kRows, kCols, packed.data());

        const kernels::WeightMatrix file_layout{TensorType::Q4_K, kRows, kCols, row_major.data()};
        const kernels::WeightMatrix repacked{TensorType::Q4_K, kRows, kCols, packed.data(),
                                             kernels::RowLayout::Interleaved16};
        kernels::ThreadPool pool(2);
        std::vector<std::byte> scratch(kernels::matmul_scratch_bytes(TensorType::Q4_K, kCols, 1));
        std::vector<float> whole(kRows);
        kernels::matmul(file_layout, x.data(), 1, whole.data(), pool, scratch);
        // Every cut of 16 rows: the range's products are the whole matrix's rows there.
        for (auto [begin, end] : {std::pair<int64_t, int64_t>{0, 16}, {16, 48}, {48, 64}}) {
            for (const kernels::WeightMatrix& m : {file_layout, repacked}) {
                const kernels::WeightMatrix range = engine::row_range(m, begin, end);
                QCOMPARE(range.rows, end - begin);
                QCOMPARE(range.layout, m.layout);
                std::vector<float> y(static_cast<size_t>(end - begin));
                kernels::matmul(range, x.data(), 1, y.data(), pool, scratch);
                for (int64_t r = begin; r < end; ++r)
                    QVERIFY2(std::abs(y[size_t(r - begin)] - whole[size_t(r)]) <=
                                 1e-4f * (1 + std::abs(whole[size_t(r)])),
                             qPrintable(QString("row %1: %2 against %3")
                                            .arg(r)
                                            .arg(y[size_t(r - begin)])
                                            .arg(whole[size_t(r)])));
            }
        }
    }

    // Cuts every 8 rows would split the repacked groups of 16: such a matrix stays row-major.
    void cuts_off_the_groups_keep_the_file_layout() {
        const kernels::WeightMatrix q4k{kernels::TensorType::Q4_K, 64, 512, nullptr};
        QVERIFY(engine::can_cut_after_repacking(q4k, 16));
        QVERIFY(engine::can_cut_after_repacking(q4k, 32));
        QVERIFY(!engine::can_cut_after_repacking(q4k, 8));
        const kernels::WeightMatrix q8{kernels::TensorType::Q8_0, 64, 512, nullptr};
        QVERIFY(!engine::can_cut_after_repacking(q8, 8));
        QVERIFY(engine::can_cut_after_repacking(q8, 16));
        const kernels::WeightMatrix q5k{kernels::TensorType::Q5_K, 64, 512, nullptr};
        QVERIFY(engine::can_cut_after_repacking(q5k, 8)); // not repacked at all
    }
};

QTEST_GUILESS_MAIN(TestWeightViews)
#include "test_weight_views.moc"
