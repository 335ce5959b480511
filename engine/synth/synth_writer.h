#pragma once
// Writes a model with random weights and the exact tensor names, shapes and types
// of a real one (synth_shape.h, synth_recipe.h), with the tokenizer of a real vocab
// file. Tensors are generated row by row on several threads while the file is
// written, so memory stays bounded whatever the model size.
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/synth/synth_recipe.h"
#include "engine/synth/synth_shape.h"
#include <cstdint>
#include <functional>
#include <string>

namespace hearth::gguf {

struct SynthOptions {
    ModelShape shape;
    FileType file_type = FileType::Q4_K_M;
    uint64_t seed = 1;
    float weight_std = 0.02f; // of the weights; norms are 1 +- weight_std
    int threads = 0;          // 0: every hardware thread
    // Quantize every block of every weight row from its own random values. Otherwise rows of
    // block-quantized types are assembled from a pool of a few thousand such blocks per type,
    // drawn at random: the same statistics, without running the quantizers' slow searches
    // over a billion weights.
    bool exact = false;
    // A vocab with fewer tokens than the shape is padded with unused tokens to the shape's
    // n_vocab (synth_vocab.h), so the embedding and output keep their real sizes. Otherwise,
    // and always when the vocab has more tokens, the model follows the vocab.
    bool pad_vocab = false;
};

struct SynthResult {
    ModelShape shape; // as written: n_vocab follows the vocab file
    size_t tensor_count = 0;
    size_t file_bytes = 0;
};

// Copies every tokenizer.* key of vocab. When the vocab's token count differs from
// shape.n_vocab (and is not padded up to it), the model follows the vocab and `note` is
// told why. Throws
// hearth::Error naming the vocab file (no tokens) or the output (write failure), or
// when the kernels have no quantizer for a planned type.
SynthResult synthesize(const SynthOptions& options, const GgufFile& vocab, const std::string& out_path,
                       const std::function<void(const std::string&)>& note = {});

// The metadata keys the file gets besides the tokenizer's, for a shape and file type.
void add_model_metadata(GgufWriter& writer, const ModelShape& shape, FileType file_type);

} // namespace hearth::gguf
