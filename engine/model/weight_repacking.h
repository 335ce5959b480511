#pragma once
// The weight matrices, copied once at load into one anonymous mapping with huge pages, in the
// layout their decode reads fastest: Q4_K in groups of 16 interleaved rows
// (kernels/interleaved_rows.h), every other type as in the file. Decode streams every weight
// once per token, and from the file's 4 KB page-cache pages it streams slower (a TLB miss every
// 4 KB; measured 29 GB/s on 2 threads against 31-33 from anonymous memory). The file's pages
// of each matrix are given back as soon as it is copied, so the resident memory stays about
// the file's size, not twice it.
#include "engine/gguf/gguf_file.h"
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
    // as tied embeddings do, share one copy). HEARTH_REPACK=0 in the environment keeps them in
    // the file's mapping (to compare the two); so does a failed allocation.
    void repack(std::span<kernels::WeightMatrix* const> matrices, const gguf::GgufFile& file);
    size_t bytes() const { return bytes_; }

private:
    void* base_ = nullptr;
    size_t bytes_ = 0;
};

} // namespace hearth::engine
