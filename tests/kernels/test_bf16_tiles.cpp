// The AMX tier's prefill on BF16 tiles: the BF16 activation conversion gives the reference's
// bits, and each type's gemm_bf16_tiles is within the bound of its roundings of exact math
// (each weight and each activation rounded once to BF16, F32 sums), for every remainder of rows
// and batch, rows longer than one span, and nothing written outside its rows. A CPU without
// the tier skips these with the reason.
#include "kernels/fp16.h"
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"

#include "tests/support/gemm_output.h"
#include "tests/support/normal_data.h"

#include <QTest>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace hearth::kernels;
using hearth::test::gemm_output_failure;
using hearth::test::normal_data;

namespace {

const TensorType kTileTypes[] = {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q4_1, TensorType::Q5_0,
                                 TensorType::Q5_1, TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K};

QString type_name(TensorType t) {
    return QString::fromUtf8(type_traits(t).name.data());
}

} // namespace

class TestBf16Tiles : public QObject {
    Q_OBJECT
private slots:
    // The AVX-512 tiers' F32 -> BF16 rows are the reference's bytes: round to nearest even
    // (ties both ways), subnormals kept, infinities, the largest finite values rounding to
    // infinity, and NaNs kept quiet NaNs; every length's tail.
    void activationConversion_data() {
        QTest::addColumn<int>("isa");
        for (Isa isa : {Isa::Avx512, Isa::Amx})
            QTest::newRow(isa_name(isa).data()) << int(isa);
    }
    void activationConversion() {
        QFETCH(int, isa);
        const KernelTable* table = kernels_for(static_cast<Isa>(isa));
        if (table == nullptr) QSKIP(isa_unavailable_reason(static_cast<Isa>(isa)).c_str());
        const QuantizeRowFn convert = table->of(TensorType::BF16).quantize;
        QVERIFY(convert != reference_kernels().of(TensorType::BF16).quantize);
        std::vector<float> x = normal_data(1000, 3, 0.1f);
        for (uint32_t bits : {0x3f808000u, 0x3f818000u, 0xbf808000u, 0x3f807fffu, 0x00000001u, 0x00008000u,
                              0x80018000u, 0x007fffffu, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u,
                              0x7fc00000u, 0x7f800001u, 0xffbfffffu, 0x00000000u, 0x80000000u})
            x.push_back(std::bit_cast<float>(bits));
        std::mt19937 rng(9);
        for (int i = 0; i < 2000; ++i) { // random bit patterns of every kind, half of them ties
            const uint32_t high = static_cast<uint32_t>(rng()) & 0xffff0000u;
            const uint32_t low = (rng() & 1u) != 0 ? 0x8000u : static_cast<uint32_t>(rng()) & 0xffffu;
            x.push_back(std::bit_cast<float>(high | low));
        }
        for (int64_t n : {int64_t(x.size()), int64_t(1), int64_t(15), int64_t(17), int64_t(31)}) {
            std::vector<uint16_t> got(x.size() + 1, 0xabcd), want(x.size() + 1, 0xabcd);
            convert(x.data(), got.data(), n);
            reference_kernels().of(TensorType::BF16).quantize(x.data(), want.data(), n);
            for (size_t i = 0; i < got.size(); ++i)
                if (got[i] != want[i])
                    QFAIL(qPrintable(
                        QString("n %1, element %2 (bits %3): %4, reference %5")
                            .arg(n)
                            .arg(i)
                            .arg(i < x.size() ? std::bit_cast<uint32_t>(x[i]) : 0u, 8, 16, QChar('0'))
                            .arg(got[i], 4, 16)
                            .arg(want[i], 4, 16)));
        }
    }

    void gemm_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("blocks");
        for (TensorType t : kTileTypes) {
            // One span (a row of up to 1024 elements), and rows of several spans with a short
            // last one (spans of 512).
            const bool k_quant = type_traits(t).block_elements == 256;
            const std::vector<int> block_counts =
                k_quant ? std::vector<int>{1, 3, 5} : std::vector<int>{3, 32, 35};
            for (int blocks : block_counts)
                QTest::newRow(qPrintable(QString("%1 x %2 blocks").arg(type_name(t)).arg(blocks)))
                    << int(t) << blocks;
        }
    }
    void gemm() {
        QFETCH(int, type);
        QFETCH(int, blocks);
        const KernelTable* table = kernels_for(Isa::Amx);
        if (table == nullptr) QSKIP(isa_unavailable_reason(Isa::Amx).c_str());
        const auto t = static_cast<TensorType>(type);
        const TypeKernels& k = table->of(t);
        QVERIFY(k.gemm_bf16_tiles != nullptr);
        const int64_t n = type_traits(t).block_elements * blocks;
        constexpr int kFirstRow = 3, kMaxRows = 40, kMaxBatch = 37;
        constexpr int kTotalRows = kFirstRow + kMaxRows + 2; // untouched rows on each side
        const size_t w_bytes = row_bytes(t, n), a_bytes = row_bytes(TensorType::BF16, n);

        std::vector<uint8_t> weights(w_bytes * kTotalRows);
        reference_kernels().of(t).quantize(normal_data(kTotalRows * n, 11u + type, 0.1f).data(),
                                           weights.data(), kTotalRows * n);
        std::vector<float> w(size_t(kTotalRows * n));
        reference_kernels().of(t).dequantize(weights.data(), w.data(), kTotalRows * n);
        std::vector<uint8_t> activations(a_bytes * kMaxBatch);
        reference_kernels()
            .of(TensorType::BF16)
            .quantize(normal_data(kMaxBatch * n, 5u + blocks, 0.3f).data(), activations.data(),
                      kMaxBatch * n);
        std::vector<float> x(size_t(kMaxBatch * n));
        reference_kernels().of(TensorType::BF16).dequantize(activations.data(), x.data(), kMaxBatch * n);

        // The exact products, and the bound: each weight off by at most 2^-8 of itself (BF16's
        // unit roundoff), the products exact in F32, and each F32 addition of a product or of
        // a span's sum off by at most 2^-24 of the sum of magnitudes so far.
        std::vector<double> exact(size_t(kTotalRows * kMaxBatch)), allowed(exact.size());
        for (int b = 0; b < kMaxBatch; ++b)
            for (int r = 0; r < kTotalRows; ++r) {
                double sum = 0, magnitude = 0;
                for (int64_t c = 0; c < n; ++c) {
                    const double product = double(w[size_t(r * n + c)]) * x[size_t(b * n + c)];
                    sum += product;
                    magnitude += std::fabs(product);
                }
                exact[size_t(b * kTotalRows + r)] = sum;
                allowed[size_t(b * kTotalRows + r)] =
                    (std::ldexp(1.0, -8) + double(n + 64) * std::ldexp(1.0, -24)) * magnitude;
            }

        const int64_t y_stride = kTotalRows + 3;
        std::vector<float> y;
        double error = 0, energy = 0;
        for (int first : {0, kFirstRow})
            for (int rows : {1, 15, 16, 17, 32, 33, 40})
                for (int batch : {1, 15, 16, 17, 31, 32, 33, 37}) {
                    y.assign(size_t(y_stride * kMaxBatch), std::numeric_limits<float>::quiet_NaN());
                    k.gemm_bf16_tiles(n, weights.data(), w_bytes, first, first + rows, activations.data(),
                                      a_bytes, batch, y.data(), y_stride);
                    const QString failure = gemm_output_failure(
                        y, y_stride, kMaxBatch, first, rows, batch, [&](int b, int r, float got) {
                            const double want = exact[size_t(b * kTotalRows + r)];
                            const double bound = allowed[size_t(b * kTotalRows + r)];
                            if (!(std::fabs(got - want) <= bound))
                                return QString("%1 against exact %2, allowed %3")
                                    .arg(got)
                                    .arg(want)
                                    .arg(bound);
                            error += (got - want) * (got - want);
                            energy += want * want;
                            return QString();
                        });
                    if (!failure.isEmpty()) QFAIL(qPrintable(failure));
                }
        // Typical errors are far inside the worst case: the normalized error is that of
        // rounding the weights alone, ~1e-6, where test-backend-ops allows 5e-4.
        QVERIFY2(error / energy < 1e-5, qPrintable(QString("NMSE %1").arg(error / energy)));
    }

    // Repacked Q4_K, Q6_K and Q8_0 rows give the same products as the file's rows, over rows
    // long enough to be multiplied in spans.
    void repackedRows_data() {
        QTest::addColumn<int>("type");
        for (TensorType t : {TensorType::Q4_K, TensorType::Q6_K, TensorType::Q8_0})
            QTest::newRow(type_name(t).toUtf8().constData()) << int(t);
    }
    void repackedRows() {
        QFETCH(int, type);
        const KernelTable* table = kernels_for(Isa::Amx);
        if (table == nullptr) QSKIP(isa_unavailable_reason(Isa::Amx).c_str());
        const auto t = static_cast<TensorType>(type);
        const TypeKernels& k = table->of(t);
        if (k.gemm_bf16_tiles_interleaved16 == nullptr)
            QSKIP("no BF16 tile kernel for repacked rows of this type");
        const int64_t n = 5 * 256, rows = 48, batch = 21;
        const size_t w_bytes = row_bytes(t, n), a_bytes = row_bytes(TensorType::BF16, n);
        std::vector<uint8_t> weights(w_bytes * rows);
        reference_kernels().of(t).quantize(normal_data(rows * n, 17, 0.1f).data(), weights.data(), rows * n);
        std::vector<uint8_t> packed(interleaved_rows16_bytes(t, rows, n));
        interleave_rows16(t, weights.data(), rows, n, packed.data());
        std::vector<uint8_t> activations(a_bytes * batch);
        reference_kernels()
            .of(TensorType::BF16)
            .quantize(normal_data(batch * n, 19, 0.1f).data(), activations.data(), batch * n);
        for (int64_t first : {0, 16})
            for (int64_t end : {32, 48}) {
                std::vector<float> want(size_t(rows * batch), -1.0f), got(want.size(), -1.0f);
                k.gemm_bf16_tiles(n, weights.data(), w_bytes, first, end, activations.data(), a_bytes, batch,
                                  want.data(), rows);
                k.gemm_bf16_tiles_interleaved16(n, packed.data(), w_bytes, first, end, activations.data(),
                                                a_bytes, batch, got.data(), rows);
                QCOMPARE(got, want);
            }
    }
};

QTEST_MAIN(TestBf16Tiles)
#include "test_bf16_tiles.moc"
