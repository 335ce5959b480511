#pragma once
// Counts and latencies of kernel dispatches per (operation, tensor type, kernel that ran), for
// the metrics panels. Recording is lock-free and allocation-free: a few relaxed atomics in a
// fixed table and one steady_clock read pair. Readers take a snapshot, a plain copy, from any
// thread.
#include "kernels/kernel_table.h"
#include "kernels/tensor_type.h"
#include <chrono>
#include <cstdint>
#include <string_view>
#include <vector>

namespace hearth::kernels::dispatch_metrics {

enum class Op : uint8_t {
    MatVec,              // matmul with batch 1 (decode)
    MatMat,              // matmul with batch > 1 (prefill)
    QuantizeActivations, // the activation quantization inside matmul
    Attention,
    RmsNorm,
    Rope,
    Softmax,
    Other,
};
inline constexpr int kOpCount = 8;
// Bucket b counts calls of [2^b, 2^(b+1)) nanoseconds; bucket 0 also takes 0 ns and the
// last bucket everything longer.
inline constexpr int kBuckets = 32;
// (operation, type, kernel) triples recorded at most; later new ones are not counted.
inline constexpr int kMaxCells = 1024;

std::string_view op_name(Op op);

struct Cell {
    uint64_t calls = 0;
    uint64_t total_ns = 0;
    uint64_t histogram[kBuckets] = {};
};

struct Snapshot {
    struct Entry {
        Op op;
        TensorType type;
        KernelId kernel; // kernel_name(kernel): its name and backend
        Cell cell;
    };
    std::vector<Entry> entries; // those with calls, in no particular order

    // Calls of one operation summed over types and kernels.
    uint64_t calls(Op op) const;
    // One (operation, type)'s figures summed over the kernels of one CPU tier.
    Cell at(Op op, TensorType type, Isa tier) const;
};

// The histogram bucket of a duration.
int bucket_of(uint64_t ns);

void record(Op op, TensorType type, KernelId kernel, uint64_t ns);
Snapshot snapshot();
void reset();
void set_enabled(bool on); // on by default
bool enabled();

// Records the time from construction to destruction (nothing when metrics are off).
class ScopedTimer {
public:
    ScopedTimer(Op op, TensorType type, KernelId kernel)
        : op_(op), type_(type), kernel_(kernel), active_(enabled()) {
        if (active_) start_ = std::chrono::steady_clock::now();
    }
    ~ScopedTimer() {
        if (!active_) return;
        const auto elapsed = std::chrono::steady_clock::now() - start_;
        record(op_, type_, kernel_,
               static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count()));
    }
    ScopedTimer(const ScopedTimer&) = delete;
    ScopedTimer& operator=(const ScopedTimer&) = delete;

private:
    Op op_;
    TensorType type_;
    KernelId kernel_;
    bool active_;
    std::chrono::steady_clock::time_point start_;
};

} // namespace hearth::kernels::dispatch_metrics
