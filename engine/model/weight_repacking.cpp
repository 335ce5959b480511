#include "engine/model/weight_repacking.h"

#include "kernels/interleaved_rows.h"
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <thread>
#include <vector>

namespace hearth::engine {
namespace {

using kernels::WeightMatrix;

struct Source {
    WeightMatrix matrix; // as bound to the file
    size_t offset;       // of its copy in the mapping
};

bool same_matrix(const WeightMatrix& a, const WeightMatrix& b) {
    return a.data == b.data && a.type == b.type && a.rows == b.rows && a.cols == b.cols;
}

size_t file_bytes(const WeightMatrix& m) {
    return kernels::row_bytes(m.type, m.cols) * static_cast<size_t>(m.rows);
}

size_t copy_bytes(const WeightMatrix& m) {
    return kernels::interleaves_rows16(m.type, m.rows, m.cols)
               ? kernels::interleaved_rows16_bytes(m.type, m.rows, m.cols)
               : file_bytes(m);
}

bool repacking_disabled() {
    const char* value = std::getenv("HEARTH_REPACK");
    return value != nullptr && std::strcmp(value, "0") == 0;
}

} // namespace

RepackedWeights::~RepackedWeights() {
    if (base_ != nullptr) ::munmap(base_, bytes_);
}

void RepackedWeights::repack(std::span<WeightMatrix* const> matrices, const gguf::GgufFile& file) {
    if (base_ != nullptr || repacking_disabled()) return;
    std::vector<Source> sources;
    size_t total = 0;
    for (const WeightMatrix* m : matrices) {
        if (m->layout != kernels::RowLayout::RowMajor || m->data == nullptr) continue;
        if (std::any_of(sources.begin(), sources.end(),
                        [&](const Source& s) { return same_matrix(s.matrix, *m); }))
            continue;
        sources.push_back({*m, total});
        total += (copy_bytes(*m) + 63) / 64 * 64;
    }
    if (sources.empty()) return;
    void* base = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return; // the file's layout still runs
    // Huge pages where the system allows them: decode streams every weight once per token, and
    // 4 KB pages cost a TLB miss every 4 KB.
    ::madvise(base, total, MADV_HUGEPAGE);
    base_ = base;
    bytes_ = total;

    // Matrices are independent: a few threads share them out.
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next++; i < sources.size(); i = next++) {
            const WeightMatrix& m = sources[i].matrix;
            auto* copy = static_cast<std::byte*>(base) + sources[i].offset;
            if (kernels::interleaves_rows16(m.type, m.rows, m.cols))
                kernels::interleave_rows16(m.type, m.data, m.rows, m.cols, copy);
            else
                std::memcpy(copy, m.data, file_bytes(m));
            file.release_pages(m.data, file_bytes(m));
        }
    };
    const unsigned n_threads = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < n_threads; ++t)
        threads.emplace_back(work);
    work();
    for (std::thread& t : threads)
        t.join();

    for (WeightMatrix* m : matrices)
        for (const Source& s : sources)
            if (m->layout == kernels::RowLayout::RowMajor && same_matrix(s.matrix, *m)) {
                m->data = static_cast<std::byte*>(base) + s.offset;
                if (kernels::interleaves_rows16(m->type, m->rows, m->cols))
                    m->layout = kernels::RowLayout::Interleaved16;
                break;
            }
}

kernels::WeightMatrix row_range(const kernels::WeightMatrix& m, int64_t begin, int64_t end) {
    kernels::WeightMatrix view = m;
    view.rows = end - begin;
    const size_t offset = m.layout == kernels::RowLayout::Interleaved16
                              ? static_cast<size_t>(begin / kernels::kInterleavedRows) *
                                    kernels::interleaved_group_bytes(m.type, m.cols)
                              : static_cast<size_t>(begin) * kernels::row_bytes(m.type, m.cols);
    view.data = static_cast<const std::byte*>(m.data) + offset;
    return view;
}

bool can_cut_after_repacking(const kernels::WeightMatrix& m, int64_t every) {
    return !kernels::interleaves_rows16(m.type, m.rows, m.cols) || every % kernels::kInterleavedRows == 0;
}

} // namespace hearth::engine
