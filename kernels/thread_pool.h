#pragma once
// Persistent worker threads that share out the indices of one job at a time: workers spin
// briefly waiting for the next job, then sleep. No allocation or thread creation per job.
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
    // Workers past their spin, asleep until the next job (a test waits for them to sleep).
    int sleeping_workers() const;

    // Calls fn(i) exactly once for every i in [0, n), on the pool's threads and the caller's,
    // and returns when every call has returned. Threads claim indices from a shared counter,
    // so no index belongs to a thread: one the OS has not run yet (a desktop app shares its
    // cores with its window and whatever else the user runs) takes none and is not waited
    // for, and the caller may do them all. Indices should be worth a few microseconds each.
    // The first exception thrown by fn reaches the caller (indices not yet claimed are skipped).
    template <class F> void for_each(int64_t n, F&& fn) {
        using Fn = std::remove_reference_t<F>;
        for_each_erased(
            n, [](void* ctx, int64_t i) { (*static_cast<Fn*>(ctx))(i); },
            const_cast<void*>(static_cast<const void*>(&fn)));
    }
    // fn(begin, end) for each non-empty share of [0, total) split into `parts` (split_range),
    // shared out as for_each's indices are.
    template <class F> void for_each_part(int64_t total, int parts, F&& fn);

private:
    void for_each_erased(int64_t n, void (*call)(void*, int64_t), void* ctx);
    struct State;
    std::unique_ptr<State> state_;
};

// The [begin, end) share of `total` items for part `index` of `count`, in chunks of `granule`.
struct Range {
    int64_t begin, end;
};
Range split_range(int64_t total, int index, int count, int64_t granule = 1);

template <class F> void ThreadPool::for_each_part(int64_t total, int parts, F&& fn) {
    for_each(parts, [&](int64_t part) {
        const Range r = split_range(total, static_cast<int>(part), parts);
        if (r.end > r.begin) fn(r.begin, r.end);
    });
}

} // namespace hearth::kernels
