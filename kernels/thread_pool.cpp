// Persistent workers woken by a generation counter. A job is n indices claimed from one
// counter by whichever threads are running; a worker joins a job only while it is open, and
// the caller, once no index is left, closes the job and waits just for the workers that
// joined. A worker that finishes spins for a short while (the next job usually follows within
// microseconds), then sleeps in an atomic wait until the generation changes again.
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

// Spins until value differs from `old` or the spin time is over, then waits on the atomic,
// counted in `sleepers` (if given) while it does. Returns the new value.
template <class T>
T wait_for_change(const std::atomic<T>& value, T old, std::atomic<int>* sleepers = nullptr) {
    const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
    for (;;) {
        for (int i = 0; i < kSpinsPerClockRead; ++i) {
            const T now = value.load(std::memory_order_acquire);
            if (now != old) return now;
            cpu_relax();
        }
        if (std::chrono::steady_clock::now() >= deadline) break;
    }
    if (sleepers) sleepers->fetch_add(1, std::memory_order_relaxed);
    for (;;) {
        value.wait(old, std::memory_order_acquire);
        const T now = value.load(std::memory_order_acquire);
        if (now != old) {
            if (sleepers) sleepers->fetch_sub(1, std::memory_order_relaxed);
            return now;
        }
    }
}

} // namespace

// The job word: the generation of the current job in the high 32 bits, then whether it is
// closed to new workers, then how many workers are inside it.
constexpr uint64_t kClosed = uint64_t{1} << 31;
constexpr uint64_t kActiveMask = kClosed - 1;
constexpr uint64_t job_word(uint32_t generation) {
    return uint64_t{generation} << 32;
}

struct ThreadPool::State {
    int n_threads = 1;
    std::vector<std::thread> workers;
    std::mutex run_mutex; // one job at a time when several threads share a pool

    // The current job; written before the job word is published (release).
    void (*call)(void*, int64_t) = nullptr;
    void* ctx = nullptr;
    int64_t n = 0;
    std::atomic<int64_t> next{0}; // the next index to claim
    // Set by the destructor; a worker woken for an earlier job may read it at the same time.
    std::atomic<bool> stopping{false};

    std::atomic<uint32_t> generation{0}; // what sleeping workers wait on
    std::atomic<int> sleeping{0};        // workers past their spin, waiting on generation
    std::atomic<uint64_t> job{0};

    std::atomic<bool> failed{false};
    std::exception_ptr failure; // the first exception a call threw in this job

    // Claims and runs indices until none is left.
    void work() {
        for (;;) {
            const int64_t i = next.fetch_add(1, std::memory_order_relaxed);
            if (i >= n) return;
            try {
                call(ctx, i);
            } catch (...) {
                if (!failed.exchange(true, std::memory_order_acq_rel)) failure = std::current_exception();
                next.store(n, std::memory_order_relaxed); // the rest is skipped
            }
        }
    }

    void worker_loop() {
        uint32_t seen = 0;
        for (;;) {
            seen = wait_for_change(generation, seen, &sleeping);
            if (stopping.load(std::memory_order_acquire)) return;
            // Join the job of that generation if it is still open; otherwise it is done (or
            // being finished by others) and this worker must not touch its ctx.
            uint64_t word = job.load(std::memory_order_acquire);
            bool joined = false;
            while (!(word & kClosed) && word >> 32 == seen)
                if (job.compare_exchange_weak(word, word + 1, std::memory_order_acq_rel)) {
                    joined = true;
                    break;
                }
            if (!joined) continue;
            work();
            const uint64_t before = job.fetch_sub(1, std::memory_order_acq_rel);
            if ((before & kActiveMask) == 1 && (before & kClosed)) job.notify_all();
        }
    }

    void publish(uint32_t g) {
        job.store(job_word(g), std::memory_order_release);
        generation.store(g, std::memory_order_release);
        generation.notify_all();
    }
};

ThreadPool::ThreadPool(int n_threads) : state_(std::make_unique<State>()) {
    state_->n_threads = std::max(1, n_threads);
    state_->workers.reserve(static_cast<size_t>(state_->n_threads - 1));
    for (int i = 1; i < state_->n_threads; ++i)
        state_->workers.emplace_back([this] { state_->worker_loop(); });
}

ThreadPool::~ThreadPool() {
    state_->stopping.store(true, std::memory_order_release);
    state_->publish(state_->generation.load() + 1);
    for (std::thread& worker : state_->workers)
        worker.join();
}

int ThreadPool::size() const {
    return state_->n_threads;
}

int ThreadPool::sleeping_workers() const {
    return state_->sleeping.load(std::memory_order_relaxed);
}

void ThreadPool::for_each_erased(int64_t n, void (*call)(void*, int64_t), void* ctx) {
    if (n <= 0) return;
    State& s = *state_;
    if (s.n_threads == 1 || n == 1) { // nothing to share: not worth waking anyone
        for (int64_t i = 0; i < n; ++i)
            call(ctx, i);
        return;
    }
    std::lock_guard lock(s.run_mutex);
    s.call = call;
    s.ctx = ctx;
    s.n = n;
    s.next.store(0, std::memory_order_relaxed);
    s.failed.store(false, std::memory_order_relaxed);
    s.failure = nullptr;
    s.publish(s.generation.load(std::memory_order_relaxed) + 1);

    s.work();
    // No index is left unclaimed: close the job and wait for the workers inside it.
    uint64_t word = s.job.fetch_or(kClosed, std::memory_order_acq_rel) | kClosed;
    while ((word & kActiveMask) != 0)
        word = wait_for_change(s.job, word);
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
