#pragma once
// Counts and latencies of kernel dispatches per (operation, tensor type, ISA), for
// the metrics panels. Recording is lock-free and allocation-free: two relaxed atomic
// adds into fixed arrays and one steady_clock read pair. Readers take a snapshot,
// a plain copy, from any thread.
#include "kernels/kernel_table.h"
#include "kernels/tensor_type.h"
#include <chrono>
#include <cstdint>
#include <string_view>

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
inline constexpr int kTypeSlots = static_cast<int>(kTensorTypeSlots); // as KernelTable::by_type
inline constexpr int kIsaCount = kIsaTierCount;
// Bucket b counts calls of [2^b, 2^(b+1)) nanoseconds; bucket 0 also takes 0 ns and the
// last bucket everything longer.
inline constexpr int kBuckets = 32;

std::string_view op_name(Op op);

struct Cell {
    uint64_t calls = 0;
    uint64_t total_ns = 0;
    uint64_t histogram[kBuckets] = {};
};

struct Snapshot {
    Cell cells[kOpCount][kTypeSlots][kIsaCount];
    const Cell& at(Op op, TensorType type, Isa isa) const {
        return cells[static_cast<int>(op)][static_cast<uint32_t>(type)][static_cast<int>(isa)];
    }
    // Calls of one operation summed over types and ISAs.
    uint64_t calls(Op op) const;
};

// The histogram bucket of a duration.
int bucket_of(uint64_t ns);

void record(Op op, TensorType type, Isa isa, uint64_t ns);
Snapshot snapshot();
void reset();
void set_enabled(bool on); // on by default
bool enabled();

// Records the time from construction to destruction (nothing when metrics are off).
class ScopedTimer {
public:
    ScopedTimer(Op op, TensorType type, Isa isa) : op_(op), type_(type), isa_(isa), active_(enabled()) {
        if (active_) start_ = std::chrono::steady_clock::now();
    }
    ~ScopedTimer() {
        if (!active_) return;
        const auto elapsed = std::chrono::steady_clock::now() - start_;
        record(op_, type_, isa_,
               static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count()));
    }
    ScopedTimer(const ScopedTimer&) = delete;
    ScopedTimer& operator=(const ScopedTimer&) = delete;

private:
    Op op_;
    TensorType type_;
    Isa isa_;
    bool active_;
    std::chrono::steady_clock::time_point start_;
};

} // namespace hearth::kernels::dispatch_metrics
