#include "engine/model/weight_repacking.h"

#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include "kernels/thread_pool.h"
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

kernels::RowLayout copy_layout(const WeightMatrix& m) {
    return kernels::load_layout(kernels::active_kernels(), m.type, m.rows, m.cols);
}

// Where row `row` (a multiple of 16 in the interleaved layout) starts, from the matrix's start.
size_t offset_of_row(kernels::TensorType type, int64_t cols, kernels::RowLayout layout, int64_t row) {
    return layout == kernels::RowLayout::Interleaved16
               ? static_cast<size_t>(row / kernels::kInterleavedRows) *
                     kernels::interleaved_group_bytes(type, cols)
               : static_cast<size_t>(row) * kernels::row_bytes(type, cols);
}

size_t copy_bytes(const WeightMatrix& m) {
    return copy_layout(m) == kernels::RowLayout::Interleaved16
               ? kernels::interleaved_rows16_bytes(m.type, m.rows, m.cols)
               : file_bytes(m);
}

// Rows [first_row, first_row + rows) of one matrix.
struct Piece {
    const Source* source;
    int64_t first_row;
    int64_t rows;
};

constexpr size_t kPieceBytes = size_t{4} << 20;

// Pieces of an interleaved matrix are whole groups of 16 rows.
void cut_into_pieces(const Source& source, std::vector<Piece>& pieces) {
    const WeightMatrix& m = source.matrix;
    const int64_t step = copy_layout(m) == kernels::RowLayout::Interleaved16 ? kernels::kInterleavedRows : 1;
    const auto row_size = static_cast<int64_t>(kernels::row_bytes(m.type, m.cols));
    const int64_t rows_per_piece =
        std::max<int64_t>(step, static_cast<int64_t>(kPieceBytes) / row_size / step * step);
    for (int64_t first = 0; first < m.rows; first += rows_per_piece)
        pieces.push_back({&source, first, std::min(rows_per_piece, m.rows - first)});
}

// The bytes of a piece's copy (the repacked layout has the file's bytes per group).
size_t piece_bytes(const Piece& piece) {
    return kernels::row_bytes(piece.source->matrix.type, piece.source->matrix.cols) *
           static_cast<size_t>(piece.rows);
}

std::byte* piece_copy(const Piece& piece, std::byte* base) {
    const WeightMatrix& m = piece.source->matrix;
    return base + piece.source->offset + offset_of_row(m.type, m.cols, copy_layout(m), piece.first_row);
}

// The copy's layout: each matrix's place in the file and in the copy, its type, shape and layout.
uint64_t plan_hash(const std::vector<Source>& sources, const gguf::GgufFile& file) {
    const gguf::TensorInfo& first = file.tensors().front();
    const std::byte* data_section = first.data - first.offset;
    std::vector<uint64_t> fields;
    for (const Source& s : sources)
        fields.insert(fields.end(),
                      {static_cast<uint64_t>(static_cast<const std::byte*>(s.matrix.data) - data_section),
                       static_cast<uint64_t>(s.matrix.type), static_cast<uint64_t>(s.matrix.rows),
                       static_cast<uint64_t>(s.matrix.cols), static_cast<uint64_t>(copy_layout(s.matrix)),
                       s.offset});
    return hash_bytes(fields.data(), fields.size() * sizeof(uint64_t));
}

// The checksum of a found copy, read from its file a piece at a time.
uint64_t checksum_in_file(const RepackCacheMapping& found, const std::vector<Piece>& pieces,
                          kernels::ThreadPool& pool) {
    std::atomic<uint64_t> checksum{0};
    pool.for_each(static_cast<int64_t>(pieces.size()), [&](int64_t i) {
        const Piece& piece = pieces[static_cast<size_t>(i)];
        checksum += found.read_checksum(piece_copy(piece, found.data()), piece_bytes(piece),
                                        static_cast<uint64_t>(i));
    });
    return checksum;
}

// Copies a found copy into `base` a piece at a time, each piece's pages of the file given back;
// returns the checksum of what was copied.
uint64_t copy_from_cache(const RepackCacheMapping& found, std::byte* base, const std::vector<Piece>& pieces,
                         kernels::ThreadPool& pool) {
    std::atomic<uint64_t> checksum{0};
    pool.for_each(static_cast<int64_t>(pieces.size()), [&](int64_t i) {
        const Piece& piece = pieces[static_cast<size_t>(i)];
        const std::byte* from = piece_copy(piece, found.data());
        std::byte* to = piece_copy(piece, base);
        std::memcpy(to, from, piece_bytes(piece));
        found.release_pages(from, piece_bytes(piece));
        checksum += piece_checksum(to, piece_bytes(piece), static_cast<uint64_t>(i));
    });
    return checksum;
}

// Makes the copy at `base` from the file a piece at a time, each piece's pages of the file given
// back; returns its checksum (0 without `with_checksum`).
uint64_t repack_into(std::byte* base, const gguf::GgufFile& file, const std::vector<Piece>& pieces,
                     kernels::ThreadPool& pool, bool with_checksum) {
    std::atomic<uint64_t> checksum{0};
    pool.for_each(static_cast<int64_t>(pieces.size()), [&](int64_t i) {
        const Piece& piece = pieces[static_cast<size_t>(i)];
        const WeightMatrix& m = piece.source->matrix;
        const WeightMatrix from = row_range(m, piece.first_row, piece.first_row + piece.rows);
        std::byte* to = piece_copy(piece, base);
        if (copy_layout(m) == kernels::RowLayout::Interleaved16)
            kernels::interleave_rows16(m.type, from.data, piece.rows, m.cols, to);
        else
            std::memcpy(to, from.data, file_bytes(from));
        file.release_pages(from.data, file_bytes(from));
        if (with_checksum) checksum += piece_checksum(to, piece_bytes(piece), static_cast<uint64_t>(i));
    });
    return checksum;
}

bool repacking_disabled() {
    const char* value = std::getenv("HEARTH_REPACK");
    return value != nullptr && std::strcmp(value, "0") == 0;
}

} // namespace

RepackedWeights::~RepackedWeights() {
    if (anonymous_ != nullptr) ::munmap(anonymous_, anonymous_bytes_);
}

std::byte* RepackedWeights::allocate_anonymous(size_t bytes, const std::function<void()>& before_copying) {
    if (before_copying) before_copying();
    void* mapping = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) return nullptr;
    ::madvise(mapping, bytes, MADV_HUGEPAGE);
    anonymous_ = mapping;
    anonymous_bytes_ = bytes;
    return static_cast<std::byte*>(mapping);
}

void RepackedWeights::repack(std::span<WeightMatrix* const> matrices, const gguf::GgufFile& file,
                             const RepackCacheOptions& cache, const std::function<void()>& before_copying) {
    if (bytes_ != 0 || repacking_disabled()) return;
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

    // The work is cut into pieces of ~4 MiB of the file, and each piece gives back its file pages
    // once copied: what is resident twice at any moment is a piece per thread, not the matrices in
    // flight (a 215 MB embedding matrix copied last had put the peak 18 MB over the bound).
    std::vector<Piece> pieces;
    for (const Source& source : sources)
        cut_into_pieces(source, pieces);
    kernels::ThreadPool pool(static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u)));

    std::optional<RepackCacheKey> key;
    if (!cache.dir.empty() && total >= cache.min_bytes)
        key = repack_cache_key(file, plan_hash(sources, file), total);
    std::byte* base = nullptr;
    if (key)
        if (std::optional<RepackCacheMapping> found = RepackCacheMapping::open(cache, file.path(), *key)) {
            if (cache.read_in_place && found->maps_in_huge_pages()) {
                // Read where it lies: no memory to clear and fill, and huge pages all the same.
                if (checksum_in_file(*found, pieces, pool) == found->checksum()) {
                    in_file_ = std::move(found);
                    base = in_file_->data();
                    from_cache_ = true;
                } else {
                    found->discard(); // made again below
                }
            } else {
                base = allocate_anonymous(total, before_copying);
                if (base == nullptr) return; // the file's layout still runs
                from_cache_ = copy_from_cache(*found, base, pieces, pool) == found->checksum();
                if (!from_cache_) found->discard(); // the repacking below writes over what was copied
            }
        }

    if (!from_cache_) {
        if (base == nullptr) base = allocate_anonymous(total, before_copying);
        if (base == nullptr) return;
        const uint64_t checksum = repack_into(base, file, pieces, pool, key.has_value());
        // Kept for the next load.
        if (key)
            if (std::optional<RepackCacheMapping> created =
                    RepackCacheMapping::create(cache, file.path(), *key)) {
                pool.for_each(static_cast<int64_t>(created->chunks()),
                              [&](int64_t i) { created->write_chunk(static_cast<size_t>(i), base); });
                created->publish(checksum);
            }
    }
    bytes_ = total;

    for (WeightMatrix* m : matrices)
        for (const Source& s : sources)
            if (m->layout == kernels::RowLayout::RowMajor && same_matrix(s.matrix, *m)) {
                m->data = base + s.offset;
                m->layout = copy_layout(*m);
                break;
            }
}

kernels::WeightMatrix row_range(const kernels::WeightMatrix& m, int64_t begin, int64_t end) {
    kernels::WeightMatrix view = m;
    view.rows = end - begin;
    view.data = static_cast<const std::byte*>(m.data) + offset_of_row(m.type, m.cols, m.layout, begin);
    return view;
}

bool can_cut_after_repacking(const kernels::WeightMatrix& m, int64_t every) {
    return copy_layout(m) == kernels::RowLayout::RowMajor || every % kernels::kInterleavedRows == 0;
}

} // namespace hearth::engine
