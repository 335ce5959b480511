#pragma once
// Persistent worker threads with a barrier between jobs: workers spin briefly
// waiting for the next job, then sleep. No allocation or thread creation per job.
#include <cstdint>
#include <memory>
#include <type_traits>

namespace hearth::kernels {

class ThreadPool {
public:
    explicit ThreadPool(int n_threads); // n_threads includes the calling thread
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const;

    // Runs fn(thread_index, n_threads) on every thread (the caller is index 0)
    // and returns when all have finished.
    template <class F> void run(F&& fn) {
        using Fn = std::remove_reference_t<F>;
        run_erased([](void* ctx, int index, int count) { (*static_cast<Fn*>(ctx))(index, count); },
                   const_cast<void*>(static_cast<const void*>(&fn)));
    }

private:
    void run_erased(void (*call)(void*, int, int), void* ctx);
    struct State;
    std::unique_ptr<State> state_;
};

// The [begin, end) share of `total` items for one of `count` threads, in chunks of `granule`.
struct Range {
    int64_t begin, end;
};
Range split_range(int64_t total, int index, int count, int64_t granule = 1);

} // namespace hearth::kernels
