#pragma once
// The weight matrices, copied once at load into one anonymous mapping with huge pages, in the
// layout their decode reads fastest: Q4_K, Q6_K and Q8_0 in groups of 16 interleaved rows
// (kernels/interleaved_rows.h), every other type as in the file. Decode streams every weight
// once per token, and from 4 KB pages it streams slower than from huge pages (a TLB miss every
// 4 KB). The copy is made in pieces of ~4 MiB, and the file's pages of each piece are given back
// as soon as it is copied, so the resident memory stays about the file's size, not twice it.
// A large copy is also kept in a file of the cache (repacked_cache.h). The next load of the model
// reads that file where it lies when the system maps it in huge pages (a file system with large
// folios: no memory to clear, nothing to copy), and copies it into anonymous huge pages otherwise.
#include "engine/gguf/gguf_file.h"
#include "engine/model/repacked_cache.h"
#include "kernels/matmul.h"
#include <cstddef>
#include <functional>
#include <optional>
#include <span>

namespace hearth::engine {

class RepackedWeights {
public:
    RepackedWeights() = default;
    RepackedWeights(const RepackedWeights&) = delete;
    RepackedWeights& operator=(const RepackedWeights&) = delete;
    ~RepackedWeights();

    // Copies every matrix of `matrices`, pointing it at its copy (matrices sharing their data,
    // as tied embeddings do, share one copy), or copies what a cache file holds.
    // HEARTH_REPACK=0 in the environment keeps them in the file's mapping (to compare the two);
    // so does a failed allocation.
    // before_copying runs before memory for a copy is taken (not when the cache file is read
    // where it lies): the loader frees what it can first, so that it is not resident beside it.
    void repack(std::span<kernels::WeightMatrix* const> matrices, const gguf::GgufFile& file,
                const RepackCacheOptions& cache = repack_cache_options(),
                const std::function<void()>& before_copying = {});
    size_t bytes() const { return bytes_; }
    // Whether the copy came from the cache rather than from this load's repacking.
    bool from_cache() const { return from_cache_; }
    // Whether decode reads the cache file's pages themselves rather than a copy in memory.
    bool reads_cache_file() const { return in_file_.has_value(); }

private:
    // nullptr if the system refuses.
    std::byte* allocate_anonymous(size_t bytes, const std::function<void()>& before_copying);

    void* anonymous_ = nullptr; // the copy in memory, if any
    size_t anonymous_bytes_ = 0;
    std::optional<RepackCacheMapping> in_file_; // the cache file decode reads, if it reads one
    size_t bytes_ = 0;
    bool from_cache_ = false;
};

// Rows [begin, end) of a matrix as a matrix of its own, in its layout: a repacked matrix is cut
// on whole groups of 16 rows (begin and end multiples of 16, or end its last row).
kernels::WeightMatrix row_range(const kernels::WeightMatrix& m, int64_t begin, int64_t end);
// Whether a matrix can be repacked and still be cut every `every` rows (fused Q/K/V, fused gate
// and up, experts): its type is not repacked, or the cuts fall on whole groups.
bool can_cut_after_repacking(const kernels::WeightMatrix& m, int64_t every);

} // namespace hearth::engine
