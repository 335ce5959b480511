#pragma once
// The weight matrices, copied once at load into one anonymous mapping with huge pages, in the
// layout their decode reads fastest: Q4_K, Q6_K and Q8_0 in groups of 16 interleaved rows
// (kernels/interleaved_rows.h), every other type as in the file. Decode streams every weight
// once per token, and from the file's 4 KB page-cache pages it streams slower than from huge
// pages (a TLB miss every 4 KB). The copy is made in
// pieces of ~4 MiB, and the file's pages of each piece are given back as soon as it is copied, so
// the resident memory stays about the file's size, not twice it. A large copy is also kept in a
// file of the cache (repacked_cache.h), from which the next load of the model copies it instead
// of repacking it again (decode still reads the anonymous copy).
#include "engine/gguf/gguf_file.h"
#include "engine/model/repacked_cache.h"
#include "kernels/matmul.h"
#include <cstddef>
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
    void repack(std::span<kernels::WeightMatrix* const> matrices, const gguf::GgufFile& file,
                const RepackCacheOptions& cache = repack_cache_options());
    size_t bytes() const { return bytes_; }
    // Whether the copy came from the cache rather than from this load's repacking.
    bool from_cache() const { return from_cache_; }

private:
    void* anonymous_ = nullptr; // the copy
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
