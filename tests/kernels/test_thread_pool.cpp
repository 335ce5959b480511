// The kernel thread pool: every index runs exactly once per job, jobs repeat, results are
// visible when for_each returns, exceptions reach the caller, the caller alone may do a job,
// and split_range tiles its range.
#include "kernels/thread_pool.h"

#include <QTest>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace hearth::kernels;

namespace {

// Waits until every worker of the pool is past its spin, asleep (false after 30 s).
bool all_workers_asleep(const ThreadPool& pool) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (pool.sleeping_workers() < pool.size() - 1) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::yield();
    }
    return true;
}

} // namespace

class TestThreadPool : public QObject {
    Q_OBJECT
private slots:
    void every_index_once_data() {
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("n");
        for (int threads : {1, 2, 4})
            for (int n : {1, 2, 3, 7, 64, 1000})
                QTest::addRow("%d threads, %d indices", threads, n) << threads << n;
    }
    void every_index_once() {
        QFETCH(int, threads);
        QFETCH(int, n);
        ThreadPool pool(threads);
        QCOMPARE(pool.size(), threads);
        for (int job = 0; job < 500; ++job) {
            std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
            pool.for_each(n, [&](int64_t i) { hits[static_cast<size_t>(i)].fetch_add(1); });
            // for_each returned: every call has returned.
            for (int i = 0; i < n; ++i)
                QCOMPARE(hits[static_cast<size_t>(i)].load(), 1);
        }
        pool.for_each(0, [](int64_t) { QFAIL("an empty job calls nothing"); });
    }

    // The indices of large jobs are shared: with 4 threads, over many jobs more than one
    // thread takes part (the workers do not sit idle while the caller does everything).
    void workers_and_caller_share_the_work() {
        ThreadPool pool(4);
        std::set<std::thread::id> seen;
        for (int job = 0; job < 200; ++job) {
            std::mutex m;
            std::set<std::thread::id> here;
            pool.for_each(256, [&](int64_t) {
                volatile double x = 0; // a little work per index
                for (int k = 0; k < 2000; ++k)
                    x = x + k;
                std::lock_guard lock(m);
                here.insert(std::this_thread::get_id());
            });
            seen.insert(here.begin(), here.end());
        }
        QVERIFY2(seen.size() > 1, "no worker ever took an index");
    }

    // Work written by the workers is visible to the caller after for_each (no lost updates),
    // including after the workers have gone to sleep between jobs.
    void results_visible_after_sleep() {
        ThreadPool pool(4);
        std::vector<int64_t> partial(16);
        for (int round = 0; round < 3; ++round) {
            pool.for_each(16, [&](int64_t part) {
                const Range r = split_range(1000000, static_cast<int>(part), 16);
                int64_t sum = 0;
                for (int64_t i = r.begin; i < r.end; ++i)
                    sum += i;
                partial[static_cast<size_t>(part)] = sum;
            });
            int64_t total = 0;
            for (int64_t p : partial)
                total += p;
            QCOMPARE(total, int64_t(999999) * 1000000 / 2);
            QVERIFY(all_workers_asleep(pool)); // past the spin
        }
    }

    void exception_reaches_caller() {
        ThreadPool pool(4);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, pool.for_each(100, [](int64_t i) {
            if (i == 57) throw std::runtime_error("a call failed");
        }));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, pool.for_each(2, [](int64_t i) {
            if (i == 0) throw std::logic_error("the first call failed");
        }));
        // The pool still works afterwards.
        std::atomic<int> ran{0};
        pool.for_each(40, [&](int64_t) { ran.fetch_add(1); });
        QCOMPARE(ran.load(), 40);
    }

    // Short jobs that start while every worker sleeps (past its spin), with more threads than
    // cores: the caller may finish before any worker wakes, and late workers must not touch a
    // finished job; every index still runs exactly once.
    void short_jobs_with_sleeping_workers() {
        ThreadPool pool(8); // more threads than this machine has cores
        for (int job = 0; job < 50; ++job) {
            QVERIFY(all_workers_asleep(pool));
            std::atomic<int> ran{0};
            pool.for_each(3, [&](int64_t) { ran.fetch_add(1); });
            QCOMPARE(ran.load(), 3);
        }
    }

    // A pool made and used from another thread, then destroyed while its workers sleep.
    void other_thread_and_shutdown() {
        std::atomic<int> total{0};
        std::atomic<bool> slept{false};
        std::thread user([&] {
            ThreadPool pool(3);
            for (int i = 0; i < 100; ++i)
                pool.for_each(3, [&](int64_t) { total.fetch_add(1); });
            slept = all_workers_asleep(pool);
        });
        user.join();
        QCOMPARE(total.load(), 300);
        QVERIFY(slept.load());
        { ThreadPool unused(4); } // constructed and destroyed without a job
    }

    void split_range_tiles_data() {
        QTest::addColumn<int>("total");
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("granule");
        QTest::newRow("even") << 100 << 4 << 1;
        QTest::newRow("uneven") << 17 << 4 << 1;
        QTest::newRow("fewer items than parts") << 3 << 8 << 1;
        QTest::newRow("granule") << 1000 << 3 << 32;
        QTest::newRow("granule larger than total") << 10 << 2 << 64;
        QTest::newRow("empty") << 0 << 4 << 1;
        QTest::newRow("one part") << 33 << 1 << 4;
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
