#pragma once
// Bounds the GGUF reader enforces and the writer respects, so that a hostile
// file can neither exhaust memory nor overflow a computation.
#include <cstddef>
#include <cstdint>

namespace hearth::gguf {

inline constexpr uint32_t kMaxDims = 4;  // ggml's GGML_MAX_DIMS
inline constexpr int kMaxArrayDepth = 8; // arrays of arrays ...; real files use at most 1
inline constexpr size_t kMaxAlignment = 1u << 20;
// All metadata array elements of a file together (the largest real vocabs hold about 1.5M).
inline constexpr uint64_t kMaxMetadataArrayElements = uint64_t{1} << 25;

} // namespace hearth::gguf
