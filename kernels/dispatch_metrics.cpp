#include "kernels/dispatch_metrics.h"

#include <atomic>
#include <bit>

namespace hearth::kernels::dispatch_metrics {
namespace {

// Calls are not counted separately: they are the sum of the histogram, so that a record
// costs two atomic adds once its cell is found. A cell is claimed by the first record of its
// key (open addressing: the key's hash, then the next cells) and keeps it until the process
// ends; reset clears the figures only.
struct AtomicCell {
    std::atomic<uint32_t> key{0}; // 0: free
    std::atomic<uint64_t> total_ns{0};
    std::atomic<uint64_t> histogram[kBuckets] = {};
};

AtomicCell g_cells[kMaxCells];
std::atomic<bool> g_enabled{true};

// op (8 bits), type (8 bits), kernel (16 bits), with 1 added so that no key is 0.
constexpr uint32_t kTypeShift = 16, kOpShift = 24;
uint32_t key_of(Op op, TensorType type, KernelId kernel) {
    return ((static_cast<uint32_t>(op) << kOpShift) | (static_cast<uint32_t>(type) << kTypeShift) | kernel) +
           1;
}

AtomicCell* cell_of(uint32_t key) {
    const uint32_t start = (key * 2654435761u) % kMaxCells;
    for (uint32_t probe = 0; probe < kMaxCells; ++probe) {
        AtomicCell& cell = g_cells[(start + probe) % kMaxCells];
        uint32_t found = cell.key.load(std::memory_order_acquire);
        if (found == 0 && cell.key.compare_exchange_strong(found, key, std::memory_order_acq_rel))
            return &cell;
        if (found == key) return &cell;
    }
    return nullptr; // full
}

} // namespace

std::string_view op_name(Op op) {
    switch (op) {
    case Op::MatVec:
        return "matvec";
    case Op::MatMat:
        return "matmat";
    case Op::QuantizeActivations:
        return "quantize_activations";
    case Op::Attention:
        return "attention";
    case Op::RmsNorm:
        return "rms_norm";
    case Op::Rope:
        return "rope";
    case Op::Softmax:
        return "softmax";
    case Op::Other:
        return "other";
    }
    return "unknown";
}

int bucket_of(uint64_t ns) {
    if (ns == 0) return 0;
    const int log2 = 63 - std::countl_zero(ns);
    return log2 < kBuckets ? log2 : kBuckets - 1;
}

void record(Op op, TensorType type, KernelId kernel, uint64_t ns) {
    if (static_cast<unsigned>(op) >= kOpCount || static_cast<uint32_t>(type) >= kTensorTypeSlots) return;
    AtomicCell* cell = cell_of(key_of(op, type, kernel));
    if (cell == nullptr) return;
    cell->total_ns.fetch_add(ns, std::memory_order_relaxed);
    cell->histogram[bucket_of(ns)].fetch_add(1, std::memory_order_relaxed);
}

uint64_t Snapshot::calls(Op op) const {
    uint64_t sum = 0;
    for (const Entry& e : entries)
        if (e.op == op) sum += e.cell.calls;
    return sum;
}

Cell Snapshot::at(Op op, TensorType type, Isa tier) const {
    Cell sum;
    for (const Entry& e : entries) {
        if (e.op != op || e.type != type || kernel_name(e.kernel).backend != cpu(tier)) continue;
        sum.calls += e.cell.calls;
        sum.total_ns += e.cell.total_ns;
        for (int b = 0; b < kBuckets; ++b)
            sum.histogram[b] += e.cell.histogram[b];
    }
    return sum;
}

Snapshot snapshot() {
    Snapshot out;
    for (const AtomicCell& from : g_cells) {
        const uint32_t key = from.key.load(std::memory_order_acquire);
        if (key == 0) continue;
        Snapshot::Entry e{static_cast<Op>((key - 1) >> kOpShift),
                          static_cast<TensorType>(((key - 1) >> kTypeShift) & 0xff),
                          static_cast<KernelId>((key - 1) & 0xffff),
                          {}};
        e.cell.total_ns = from.total_ns.load(std::memory_order_relaxed);
        for (int b = 0; b < kBuckets; ++b) {
            e.cell.histogram[b] = from.histogram[b].load(std::memory_order_relaxed);
            e.cell.calls += e.cell.histogram[b];
        }
        if (e.cell.calls > 0) out.entries.push_back(e);
    }
    return out;
}

void reset() {
    for (AtomicCell& cell : g_cells) {
        cell.total_ns.store(0, std::memory_order_relaxed);
        for (auto& bucket : cell.histogram)
            bucket.store(0, std::memory_order_relaxed);
    }
}

void set_enabled(bool on) {
    g_enabled.store(on, std::memory_order_relaxed);
}
bool enabled() {
    return g_enabled.load(std::memory_order_relaxed);
}

} // namespace hearth::kernels::dispatch_metrics
