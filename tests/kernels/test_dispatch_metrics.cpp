// Dispatch metrics: counts, totals and histogram buckets per (operation, type, kernel), reset,
// the on/off switch, concurrent readers, and what matmul records: the candidate that ran.
#include "kernels/dispatch_metrics.h"
#include "kernels/kernel_table.h"
#include "kernels/matmul.h"
#include "kernels/reference/reference_kernels.h"

#include <QTest>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

using namespace hearth::kernels;
namespace metrics = hearth::kernels::dispatch_metrics;

namespace {

KernelId scalar_kernel(std::string_view name) {
    return kernel_id(name, cpu(Isa::Scalar));
}

} // namespace

class TestDispatchMetrics : public QObject {
    Q_OBJECT
private slots:
    void init() {
        metrics::set_enabled(true);
        metrics::reset();
    }

    void buckets_data() {
        QTest::addColumn<qulonglong>("ns");
        QTest::addColumn<int>("bucket");
        QTest::newRow("0 ns") << 0ull << 0;
        QTest::newRow("1 ns") << 1ull << 0;
        QTest::newRow("2 ns") << 2ull << 1;
        QTest::newRow("3 ns") << 3ull << 1;
        QTest::newRow("1 us") << 1000ull << 9;
        QTest::newRow("1024 ns") << 1024ull << 10;
        QTest::newRow("1 s") << 1000000000ull << 29;
        QTest::newRow("an hour clamps to the last bucket") << 3600000000000ull << metrics::kBuckets - 1;
    }
    void buckets() {
        QFETCH(qulonglong, ns);
        QFETCH(int, bucket);
        QCOMPARE(metrics::bucket_of(ns), bucket);
    }

    void record_and_snapshot() {
        metrics::record(metrics::Op::RmsNorm, TensorType::F32, scalar_kernel("norm"), 100);
        metrics::record(metrics::Op::RmsNorm, TensorType::F32, scalar_kernel("norm"), 300);
        metrics::record(metrics::Op::MatVec, TensorType::Q4_K, kernel_id("gemv", cpu(Isa::Avx2)), 5000);
        const metrics::Snapshot s = metrics::snapshot();
        const metrics::Cell norm = s.at(metrics::Op::RmsNorm, TensorType::F32, Isa::Scalar);
        QCOMPARE(norm.calls, uint64_t(2));
        QCOMPARE(norm.total_ns, uint64_t(400));
        QCOMPARE(norm.histogram[metrics::bucket_of(100)], uint64_t(1));
        QCOMPARE(norm.histogram[metrics::bucket_of(300)], uint64_t(1));
        QCOMPARE(s.at(metrics::Op::MatVec, TensorType::Q4_K, Isa::Avx2).calls, uint64_t(1));
        QCOMPARE(s.at(metrics::Op::MatVec, TensorType::Q4_K, Isa::Scalar).calls, uint64_t(0));
        QCOMPARE(s.calls(metrics::Op::RmsNorm), uint64_t(2));
        QCOMPARE(s.calls(metrics::Op::Softmax), uint64_t(0));

        metrics::reset();
        const metrics::Snapshot cleared = metrics::snapshot();
        QCOMPARE(cleared.at(metrics::Op::RmsNorm, TensorType::F32, Isa::Scalar).calls, uint64_t(0));
        QCOMPARE(cleared.at(metrics::Op::RmsNorm, TensorType::F32, Isa::Scalar).total_ns, uint64_t(0));
    }

    void switched_off_records_nothing() {
        metrics::set_enabled(false);
        QVERIFY(!metrics::enabled());
        { metrics::ScopedTimer timer(metrics::Op::Rope, TensorType::F32, kUnnamedKernel); }
        QCOMPARE(metrics::snapshot().calls(metrics::Op::Rope), uint64_t(0));
        metrics::set_enabled(true);
        { metrics::ScopedTimer timer(metrics::Op::Rope, TensorType::F32, kUnnamedKernel); }
        QCOMPARE(metrics::snapshot().calls(metrics::Op::Rope), uint64_t(1));
    }

    // The timer records the time its scope took: at least what the steady clock shows passing
    // inside the scope, at most what it shows around it.
    void scoped_timer_measures() {
        using Clock = std::chrono::steady_clock;
        const auto ns = [](Clock::duration d) {
            return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
        };
        uint64_t inside = 0;
        const Clock::time_point before = Clock::now();
        {
            metrics::ScopedTimer timer(metrics::Op::Other, TensorType::F32, kUnnamedKernel);
            const Clock::time_point start = Clock::now();
            while (Clock::now() - start < std::chrono::microseconds(100)) {
            }
            inside = ns(Clock::now() - start);
        }
        const uint64_t around = ns(Clock::now() - before);
        const metrics::Snapshot s = metrics::snapshot();
        const metrics::Cell cell = s.at(metrics::Op::Other, TensorType::F32, Isa::Scalar);
        QCOMPARE(cell.calls, uint64_t(1));
        QVERIFY2(
            cell.total_ns >= inside && cell.total_ns <= around,
            qPrintable(
                QString("recorded %1 ns; %2 inside, %3 around").arg(cell.total_ns).arg(inside).arg(around)));
    }

    void names() {
        QCOMPARE(metrics::op_name(metrics::Op::MatVec), std::string_view("matvec"));
        QCOMPARE(metrics::op_name(metrics::Op::QuantizeActivations),
                 std::string_view("quantize_activations"));
        QCOMPARE(metrics::op_name(metrics::Op::Softmax), std::string_view("softmax"));
    }

    // Writers on two threads, a reader on a third: no count is lost and the reader always sees
    // counts that only grow.
    void concurrent_writers_and_reader() {
        constexpr int kPerWriter = 20000;
        std::atomic<bool> done{false};
        std::atomic<bool> went_backwards{false};
        std::thread reader([&] {
            uint64_t last = 0;
            while (!done.load()) {
                const uint64_t now = metrics::snapshot().calls(metrics::Op::Attention);
                if (now < last) went_backwards = true;
                last = now;
            }
        });
        std::vector<std::thread> writers;
        for (int w = 0; w < 2; ++w)
            writers.emplace_back([w] {
                // Each writer its own kernel too: both claim cells while the reader reads.
                const KernelId kernel = scalar_kernel(w == 0 ? "attend_a" : "attend_b");
                for (int i = 0; i < kPerWriter; ++i)
                    metrics::record(metrics::Op::Attention, TensorType::F16, kernel, uint64_t(i));
            });
        for (auto& t : writers)
            t.join();
        done = true;
        reader.join();
        QVERIFY(!went_backwards.load());
        QCOMPARE(metrics::snapshot().calls(metrics::Op::Attention), uint64_t(2 * kPerWriter));
    }

    // matmul counts batch 1 as a matrix-vector product and larger batches as matrix-matrix,
    // under the weight type and the kernel that ran, plus the activation quantization.
    void matmul_records() {
        force_isa(Isa::Scalar);
        const int64_t rows = 8, cols = 256;
        std::vector<float> w(size_t(rows * cols), 0.5f), x(size_t(3 * cols), 1.0f), y(size_t(3 * rows));
        std::vector<std::byte> weights(row_bytes(TensorType::Q8_0, cols) * rows);
        reference_ops(TensorType::Q8_0).quantize(w.data(), weights.data(), rows * cols);
        ThreadPool pool(2);
        std::vector<std::byte> scratch(matmul_scratch_bytes(TensorType::Q8_0, cols, 3));
        const WeightMatrix matrix{TensorType::Q8_0, rows, cols, weights.data()};
        matmul(matrix, x.data(), 1, y.data(), pool, scratch);
        matmul(matrix, x.data(), 1, y.data(), pool, scratch);
        matmul(matrix, x.data(), 3, y.data(), pool, scratch);
        QVERIFY(std::fabs(y[0] - 128.0f) < 0.1f); // 256 * 0.5 * 1, up to Q8_0 rounding: the product is real

        const metrics::Snapshot s = metrics::snapshot();
        QCOMPARE(s.at(metrics::Op::MatVec, TensorType::Q8_0, Isa::Scalar).calls, uint64_t(2));
        QCOMPARE(s.at(metrics::Op::MatMat, TensorType::Q8_0, Isa::Scalar).calls, uint64_t(1));
        QCOMPARE(s.calls(metrics::Op::MatVec), uint64_t(2));
        QCOMPARE(s.at(metrics::Op::QuantizeActivations, TensorType::Q8_0, Isa::Scalar).calls, uint64_t(3));
        QVERIFY(s.at(metrics::Op::MatVec, TensorType::Q8_0, Isa::Scalar).total_ns > 0);
        for (const metrics::Snapshot::Entry& e : s.entries) {
            const KernelName name = kernel_name(e.kernel);
            QCOMPARE(name.backend, cpu(Isa::Scalar));
            QCOMPARE(name.name, e.op == metrics::Op::QuantizeActivations
                                    ? std::string_view("quantize_row_q8_0_activations_ref")
                                    : std::string_view("vec_dot_q8_0_q8_0_ref"));
        }

        // Float weights need no activation quantization.
        std::vector<std::byte> no_scratch;
        matmul(WeightMatrix{TensorType::F32, rows, cols, w.data()}, x.data(), 1, y.data(), pool, no_scratch);
        const metrics::Snapshot after = metrics::snapshot();
        QCOMPARE(after.at(metrics::Op::MatVec, TensorType::F32, Isa::Scalar).calls, uint64_t(1));
        QCOMPARE(after.calls(metrics::Op::QuantizeActivations), uint64_t(3));
    }

    // On every tier, the kernel recorded is the one the table picks for the call.
    void matmul_records_the_candidate_that_ran() {
        const int64_t rows = 32, cols = 512;
        const std::vector<float> w(size_t(rows * cols), 0.25f), x(size_t(40 * cols), 1.0f);
        std::vector<float> y(size_t(40 * rows));
        std::vector<std::byte> weights(row_bytes(TensorType::Q4_K, cols) * rows);
        reference_ops(TensorType::Q4_K).quantize(w.data(), weights.data(), rows * cols);
        const WeightMatrix matrix{TensorType::Q4_K, rows, cols, weights.data()};
        ThreadPool pool(2);
        for (Isa isa : kIsaTiers) {
            const KernelTable* table = kernels_for(isa);
            if (table == nullptr) continue;
            force_isa(isa);
            for (int64_t batch : {1, 5, 40}) {
                metrics::reset();
                std::vector<std::byte> scratch(matmul_scratch_bytes(TensorType::Q4_K, cols, batch));
                matmul(matrix, x.data(), batch, y.data(), pool, scratch);
                const Candidate<GemmFn>* picked =
                    table->of(TensorType::Q4_K).matmul.pick({.batch = batch, .rows = rows, .width = cols});
                QVERIFY(picked != nullptr);
                const metrics::Op op = batch == 1 ? metrics::Op::MatVec : metrics::Op::MatMat;
                int found = 0;
                for (const metrics::Snapshot::Entry& e : metrics::snapshot().entries)
                    if (e.op == op && e.type == TensorType::Q4_K) {
                        QCOMPARE(e.kernel, picked->id);
                        ++found;
                    }
                QCOMPARE(found, 1);
            }
        }
        force_isa(Isa::Scalar);
    }
};

QTEST_MAIN(TestDispatchMetrics)
#include "test_dispatch_metrics.moc"
