// Persistent workers woken by a generation counter. A worker that finishes a job
// spins for a short while (the next matmul usually follows within microseconds),
// then sleeps in an atomic wait until the generation changes again.
#include "kernels/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace hearth::kernels {
namespace {

constexpr auto kSpinTime = std::chrono::microseconds(50);
constexpr int kSpinsPerClockRead = 64;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

// Spins until value differs from `old` or the spin time is over, then waits on the atomic.
// Returns the new value.
template <class T> T wait_for_change(const std::atomic<T>& value, T old) {
    const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
    for (;;) {
        for (int i = 0; i < kSpinsPerClockRead; ++i) {
            const T now = value.load(std::memory_order_acquire);
            if (now != old) return now;
            cpu_relax();
        }
        if (std::chrono::steady_clock::now() >= deadline) break;
    }
    for (;;) {
        value.wait(old, std::memory_order_acquire);
        const T now = value.load(std::memory_order_acquire);
        if (now != old) return now;
    }
}

} // namespace

struct ThreadPool::State {
    int n_threads = 1;
    std::vector<std::thread> workers;
    std::mutex run_mutex; // one run at a time when several threads share a pool

    // The job of the current generation; written before generation is bumped (release).
    void (*call)(void*, int, int) = nullptr;
    void* ctx = nullptr;
    bool stopping = false;

    std::atomic<uint32_t> generation{0};
    std::atomic<int> unfinished{0}; // workers that have not finished the current job

    std::atomic<bool> failed{false};
    std::exception_ptr failure; // the first exception thrown by a worker in this run

    void worker_loop(int index) {
        uint32_t seen = 0;
        for (;;) {
            seen = wait_for_change(generation, seen);
            if (stopping) return;
            try {
                call(ctx, index, n_threads);
            } catch (...) {
                if (!failed.exchange(true, std::memory_order_acq_rel)) failure = std::current_exception();
            }
            if (unfinished.fetch_sub(1, std::memory_order_acq_rel) == 1) unfinished.notify_one();
        }
    }

    void start_generation() {
        unfinished.store(n_threads - 1, std::memory_order_relaxed);
        generation.fetch_add(1, std::memory_order_release);
        generation.notify_all();
    }

    void wait_for_workers() {
        int left = unfinished.load(std::memory_order_acquire);
        while (left != 0)
            left = wait_for_change(unfinished, left);
    }
};

ThreadPool::ThreadPool(int n_threads) : state_(std::make_unique<State>()) {
    state_->n_threads = std::max(1, n_threads);
    state_->workers.reserve(static_cast<size_t>(state_->n_threads - 1));
    for (int i = 1; i < state_->n_threads; ++i)
        state_->workers.emplace_back([this, i] { state_->worker_loop(i); });
}

ThreadPool::~ThreadPool() {
    state_->stopping = true;
    state_->start_generation();
    for (std::thread& worker : state_->workers)
        worker.join();
}

int ThreadPool::size() const {
    return state_->n_threads;
}

void ThreadPool::run_erased(void (*call)(void*, int, int), void* ctx) {
    State& s = *state_;
    if (s.n_threads == 1) {
        call(ctx, 0, 1);
        return;
    }
    std::lock_guard lock(s.run_mutex);
    s.call = call;
    s.ctx = ctx;
    s.failed.store(false, std::memory_order_relaxed);
    s.failure = nullptr;
    s.start_generation();

    std::exception_ptr caller_failure;
    try {
        call(ctx, 0, s.n_threads);
    } catch (...) {
        caller_failure = std::current_exception(); // still wait: workers use ctx
    }
    s.wait_for_workers(); // the barrier: every thread has finished this job
    if (caller_failure) std::rethrow_exception(caller_failure);
    if (s.failed.load(std::memory_order_acquire)) std::rethrow_exception(s.failure);
}

Range split_range(int64_t total, int index, int count, int64_t granule) {
    if (total <= 0 || count <= 0) return {0, 0};
    granule = std::max<int64_t>(1, granule);
    const int64_t chunks = (total + granule - 1) / granule;
    const int64_t first = chunks * index / count;
    const int64_t last = chunks * (index + 1) / count;
    return {std::min(total, first * granule), std::min(total, last * granule)};
}

} // namespace hearth::kernels
