// Matrix products a verify pass asks for (kernels::matmul with as_decode) on every tier this CPU
// runs: for every weight type the tables multiply, row-major and repacked in groups of 16 where
// the type is, and every batch a verify pass can have (2 to kDecodeExactMaxBatch rows), each
// row bit for bit the product of that row alone (a decode step). The kernels that sum batches
// in their own order (llama.cpp's F32 and groups-of-8 orders, tiles, panels) say so in their
// guards and take no such call; a kernel that sums unlike decode without saying so fails here.
// The float types also with rows whose last columns fill no whole vector (the tails' own sums).
#include "kernels/candidates.h"
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include "kernels/matmul.h"
#include "kernels/thread_pool.h"
#include "tests/support/block_patterns.h"
#include "tests/support/normal_data.h"

#include <QTest>
#include <cstring>
#include <random>
#include <vector>

using namespace hearth::kernels;

namespace {

constexpr int64_t kRows = 64, kCols = 512;  // whole groups of 16 rows, whole super-blocks
constexpr int64_t kTailCols[] = {200, 203}; // 8 past a vector of 16; 3 past one of 8

bool is_float(TensorType type) {
    return type == TensorType::F32 || type == TensorType::F16 || type == TensorType::BF16;
}

constexpr TensorType kTypes[] = {TensorType::F32,  TensorType::F16,  TensorType::BF16, TensorType::Q4_0,
                                 TensorType::Q4_1, TensorType::Q5_0, TensorType::Q5_1, TensorType::Q8_0,
                                 TensorType::Q2_K, TensorType::Q3_K, TensorType::Q4_K, TensorType::Q5_K,
                                 TensorType::Q6_K};

// kRows x cols normal floats rounded to `type` by the reference quantizer.
std::vector<uint8_t> random_weights(TensorType type, int64_t cols, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<uint8_t> out;
    for (int64_t r = 0; r < kRows; ++r) {
        const std::vector<uint8_t> row =
            hearth::test::make_weight_row(type, cols, hearth::test::BlockPattern::Quantized, rng);
        out.insert(out.end(), row.begin(), row.end());
    }
    return out;
}

} // namespace

class TestMatmulAsDecode : public QObject {
    Q_OBJECT

private slots:
    void cleanupTestCase() { force_isa(Isa::Scalar); }

    void verifyBatchRowsAreDecodeBits_data() {
        QTest::addColumn<int>("isa");
        QTest::addColumn<int>("type");
        QTest::addColumn<bool>("repacked");
        QTest::addColumn<qint64>("cols");
        for (Isa isa : kIsaTiers)
            for (TensorType type : kTypes) {
                for (bool repacked : {false, true}) {
                    if (repacked && !interleaves_rows16(type, kRows, kCols)) continue;
                    QTest::addRow("%s-%s%s", isa_name(isa).data(), type_traits(type).name.data(),
                                  repacked ? "-repacked" : "")
                        << int(isa) << int(type) << repacked << qint64{kCols};
                }
                if (is_float(type))
                    for (int64_t cols : kTailCols)
                        QTest::addRow("%s-%s-%lld-columns", isa_name(isa).data(),
                                      type_traits(type).name.data(), static_cast<long long>(cols))
                            << int(isa) << int(type) << false << qint64{cols};
            }
    }
    void verifyBatchRowsAreDecodeBits() {
        QFETCH(int, isa);
        QFETCH(int, type);
        QFETCH(bool, repacked);
        QFETCH(qint64, cols);
        const auto tier = static_cast<Isa>(isa);
        if (kernels_for(tier) == nullptr)
            QSKIP(qPrintable(QString::fromStdString(isa_unavailable_reason(tier))));
        force_isa(tier);
        const auto weight_type = static_cast<TensorType>(type);
        const std::vector<uint8_t> row_major = random_weights(weight_type, cols, 7u + unsigned(type));
        std::vector<uint8_t> weights = row_major;
        WeightMatrix w{weight_type, kRows, cols, nullptr, RowLayout::RowMajor};
        if (repacked) {
            weights.assign(interleaved_rows16_bytes(weight_type, kRows, kCols), 0);
            interleave_rows16(weight_type, row_major.data(), kRows, kCols, weights.data());
            w.layout = RowLayout::Interleaved16;
        }
        w.data = weights.data();
        ThreadPool pool(2);
        std::vector<std::byte> scratch;
        const std::vector<float> x = hearth::test::normal_data(kDecodeExactMaxBatch * cols, 11, 0.0f);
        // Each activation row alone, as decode multiplies it.
        std::vector<float> alone(static_cast<size_t>(kDecodeExactMaxBatch * kRows));
        for (int64_t b = 0; b < kDecodeExactMaxBatch; ++b)
            matmul(w, x.data() + b * cols, 1, alone.data() + b * kRows, pool, scratch);
        for (int64_t batch = 2; batch <= kDecodeExactMaxBatch; ++batch) {
            std::vector<float> y(static_cast<size_t>(batch * kRows), NAN);
            matmul(w, x.data(), batch, y.data(), pool, scratch, true);
            for (int64_t b = 0; b < batch; ++b)
                QVERIFY2(
                    std::memcmp(y.data() + b * kRows, alone.data() + b * kRows, sizeof(float) * kRows) == 0,
                    qPrintable(QString("batch %1, row %2 differs from its decode step").arg(batch).arg(b)));
        }
    }
};

QTEST_GUILESS_MAIN(TestMatmulAsDecode)
#include "test_matmul_as_decode.moc"
