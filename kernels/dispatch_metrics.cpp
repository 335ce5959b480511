#include "kernels/dispatch_metrics.h"

#include <atomic>
#include <bit>

namespace hearth::kernels::dispatch_metrics {
namespace {

// Calls are not counted separately: they are the sum of the histogram, so that a
// record costs two atomic adds.
struct AtomicCell {
    std::atomic<uint64_t> total_ns{0};
    std::atomic<uint64_t> histogram[kBuckets] = {};
};

AtomicCell g_cells[kOpCount][kTypeSlots][kIsaCount];
std::atomic<bool> g_enabled{true};

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

void record(Op op, TensorType type, Isa isa, uint64_t ns) {
    const auto op_index = static_cast<unsigned>(op);
    const auto type_index = static_cast<uint32_t>(type);
    const auto isa_index = static_cast<unsigned>(isa);
    if (op_index >= kOpCount || type_index >= kTypeSlots || isa_index >= kIsaCount) return;
    AtomicCell& cell = g_cells[op_index][type_index][isa_index];
    cell.total_ns.fetch_add(ns, std::memory_order_relaxed);
    cell.histogram[bucket_of(ns)].fetch_add(1, std::memory_order_relaxed);
}

uint64_t Snapshot::calls(Op op) const {
    uint64_t sum = 0;
    for (const auto& by_isa : cells[static_cast<int>(op)])
        for (const Cell& cell : by_isa)
            sum += cell.calls;
    return sum;
}

Snapshot snapshot() {
    Snapshot out;
    for (int o = 0; o < kOpCount; ++o)
        for (int t = 0; t < kTypeSlots; ++t)
            for (int i = 0; i < kIsaCount; ++i) {
                const AtomicCell& from = g_cells[o][t][i];
                Cell& to = out.cells[o][t][i];
                to.total_ns = from.total_ns.load(std::memory_order_relaxed);
                to.calls = 0;
                for (int b = 0; b < kBuckets; ++b) {
                    to.histogram[b] = from.histogram[b].load(std::memory_order_relaxed);
                    to.calls += to.histogram[b];
                }
            }
    return out;
}

void reset() {
    for (auto& by_type : g_cells)
        for (auto& by_isa : by_type)
            for (AtomicCell& cell : by_isa) {
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
