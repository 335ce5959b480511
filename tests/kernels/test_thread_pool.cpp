// The kernel thread pool: every index runs exactly once per run, runs repeat, the
// barrier holds, exceptions reach the caller, and split_range tiles its range.
#include "kernels/thread_pool.h"

#include <QTest>
#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace hearth::kernels;

class TestThreadPool : public QObject {
    Q_OBJECT
private slots:
    void every_index_once_data() {
        QTest::addColumn<int>("threads");
        QTest::newRow("1 thread") << 1;
        QTest::newRow("2 threads") << 2;
        QTest::newRow("4 threads") << 4;
    }
    void every_index_once() {
        QFETCH(int, threads);
        ThreadPool pool(threads);
        QCOMPARE(pool.size(), threads);
        const std::thread::id caller = std::this_thread::get_id();
        for (int run = 0; run < 2000; ++run) {
            std::vector<std::atomic<int>> hits(static_cast<size_t>(threads));
            std::atomic<int> wrong_count{0}, caller_not_zero{0};
            pool.run([&](int index, int count) {
                if (count != threads) wrong_count.fetch_add(1);
                if ((index == 0) != (std::this_thread::get_id() == caller)) caller_not_zero.fetch_add(1);
                hits[static_cast<size_t>(index)].fetch_add(1);
            });
            // run() returned: the barrier means every thread has already finished.
            for (int i = 0; i < threads; ++i)
                QCOMPARE(hits[static_cast<size_t>(i)].load(), 1);
            QCOMPARE(wrong_count.load(), 0);
            QCOMPARE(caller_not_zero.load(), 0);
        }
    }

    // Work written by the workers is visible to the caller after run() (no lost updates),
    // including after the workers have gone to sleep between runs.
    void results_visible_after_sleep() {
        ThreadPool pool(4);
        std::vector<int64_t> partial(4);
        for (int round = 0; round < 3; ++round) {
            pool.run([&](int index, int count) {
                const Range r = split_range(1000000, index, count);
                int64_t sum = 0;
                for (int64_t i = r.begin; i < r.end; ++i)
                    sum += i;
                partial[static_cast<size_t>(index)] = sum;
            });
            QCOMPARE(partial[0] + partial[1] + partial[2] + partial[3], int64_t(999999) * 1000000 / 2);
            std::this_thread::sleep_for(std::chrono::milliseconds(5)); // past the spin: workers sleep
        }
    }

    void exception_reaches_caller() {
        ThreadPool pool(4);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, pool.run([](int index, int) {
            if (index == 2) throw std::runtime_error("worker failed");
        }));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, pool.run([](int index, int) {
            if (index == 0) throw std::logic_error("caller failed");
        }));
        // The pool still works afterwards.
        std::atomic<int> ran{0};
        pool.run([&](int, int) { ran.fetch_add(1); });
        QCOMPARE(ran.load(), 4);
    }

    // A pool made and used from another thread, then destroyed while its workers sleep.
    void other_thread_and_shutdown() {
        std::atomic<int> total{0};
        std::thread user([&] {
            ThreadPool pool(3);
            for (int i = 0; i < 100; ++i)
                pool.run([&](int, int) { total.fetch_add(1); });
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        });
        user.join();
        QCOMPARE(total.load(), 300);
        { ThreadPool unused(4); } // constructed and destroyed without a run
    }

    void split_range_tiles_data() {
        QTest::addColumn<int>("total");
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("granule");
        QTest::newRow("even") << 100 << 4 << 1;
        QTest::newRow("uneven") << 17 << 4 << 1;
        QTest::newRow("fewer items than threads") << 3 << 8 << 1;
        QTest::newRow("granule") << 1000 << 3 << 32;
        QTest::newRow("granule larger than total") << 10 << 2 << 64;
        QTest::newRow("empty") << 0 << 4 << 1;
        QTest::newRow("one thread") << 33 << 1 << 4;
    }
    void split_range_tiles() {
        QFETCH(int, total);
        QFETCH(int, count);
        QFETCH(int, granule);
        int64_t expected_begin = 0;
        int64_t largest = 0, smallest = total;
        for (int i = 0; i < count; ++i) {
            const Range r = split_range(total, i, count, granule);
            QCOMPARE(r.begin, expected_begin); // contiguous, in order, no overlap
            QVERIFY(r.end >= r.begin);
            if (r.begin % granule != 0) QFAIL("a share does not start on a granule");
            expected_begin = r.end;
            largest = std::max(largest, r.end - r.begin);
            smallest = std::min(smallest, r.end - r.begin);
        }
        QCOMPARE(expected_begin, int64_t(total));
        QVERIFY(largest - smallest <= granule); // balanced to within one granule
    }
};

QTEST_MAIN(TestThreadPool)
#include "test_thread_pool.moc"
