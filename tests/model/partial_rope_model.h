#pragma once
// A model that rotates only part of each head, as Phi-4-mini does (96 of 128 dimensions) and
// other families that declare rope.dimension_count below their head size: tiny-phi3 (head size
// 32) written again with rope.dimension_count 24, its tensors unchanged. The test data holds
// none such.
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_value.h"
#include "engine/gguf/gguf_writer.h"
#include "tests/support/test_support.h"
#include <cstdint>
#include <string>

namespace hearth::test {

// Three quarters of tiny-phi3's 32, Phi-4-mini's share.
inline constexpr uint32_t kPartialRopeDims = 24;

// Writes the model to `path`. GgufWriter writes the same bytes for the same source, so
// llama.cpp's run on it (data/tiny-phi3-partial-rope.golden.json) holds while the file's
// SHA-256 is the one recorded there.
inline void write_partial_rope_phi3(const std::string& path) {
    const auto source = gguf::GgufFile::open(testdata("models/tiny-phi3.gguf"));
    gguf::GgufWriter writer;
    writer.copy_prefix(*source, "");
    // Not "phi3" in the name: llama.cpp gives such a vocab Phi-3's special tokens, which the
    // stories vocab lacks.
    writer.set("general.name", gguf::string_value("tiny-phi-partial-rope"));
    writer.set("phi3.rope.dimension_count", gguf::uint32_value(kPartialRopeDims));
    writer.copy_tensors(*source);
    writer.write(path);
}

} // namespace hearth::test
