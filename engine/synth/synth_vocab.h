#pragma once
// The tokenizer of a synthesized model: a real vocab file's tokenizer.* keys, optionally padded
// with unused tokens up to the model's vocabulary size, as llama.cpp's converter pads a
// tokenizer smaller than the model's embedding (Qwen's 151936 rows, Phi-4-mini's 200064).
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_writer.h"
#include <cstdint>

namespace hearth::gguf {

// Copies every tokenizer.* key of vocab into writer. When n_vocab exceeds the vocab's token
// count, appends tokens "[PAD<id>]" of type unused (score -1000 where the vocab has scores)
// until there are n_vocab. Returns the token count written. Throws hearth::Error naming the
// vocab file when it has no tokens, or per-token arrays of another length or element type.
int64_t write_vocab(GgufWriter& writer, const GgufFile& vocab, int64_t n_vocab);

// The vocab file's token count; throws hearth::Error naming the file when it has none.
int64_t vocab_token_count(const GgufFile& vocab);

} // namespace hearth::gguf
