#pragma once
// A runnable model with a small byte-level BPE vocabulary and a chosen
// tokenizer.ggml.pre: tiny-qwen2's weights and hyperparameters, its own
// SentencePiece tokenizer replaced by GPT-2's 256 byte tokens plus "12", "123"
// and "1234" (so how a pre-tokenizer cuts digits shows in the ids). Shared by
// the CLI and app tests of pre-tokenizer warnings.
#include "engine/gguf/gguf_value.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/tokenizer/byte_level.h"
#include "tests/support/test_support.h"
#include <string>
#include <vector>

namespace hearth::test {

struct BpeDigitIds {
    static constexpr int32_t t123 = 257;
    static constexpr int32_t t1234 = 258;
    static constexpr int32_t digit4 = '4'; // the byte tokens are ids 0..255
};

// `chat_template`: tokenizer.chat_template, none when empty.
inline std::string write_bpe_model(const std::string& dir, const std::string& pre,
                                   const std::string& chat_template = {}, const std::string& file_name = {}) {
    const auto file = gguf::GgufFile::open(testdata("models/tiny-qwen2.gguf"));
    gguf::GgufWriter writer;
    for (const auto& entry : file->metadata())
        if (!entry.key.starts_with("tokenizer.")) writer.set(entry.key, entry.value);
    std::vector<std::string> tokens;
    for (int byte = 0; byte < 256; ++byte) {
        std::string text;
        tokenizer::byte_level::encode(std::string(1, static_cast<char>(byte)), text);
        tokens.push_back(text);
    }
    for (const char* text : {"12", "123", "1234", "<|endoftext|>"})
        tokens.push_back(text);
    std::vector<int32_t> types(tokens.size(), 1);
    types.back() = 3; // control
    writer.set("tokenizer.ggml.model", gguf::string_value("gpt2"));
    writer.set("tokenizer.ggml.pre", gguf::string_value(pre));
    writer.set("tokenizer.ggml.tokens", gguf::string_array(tokens));
    writer.set("tokenizer.ggml.token_type", gguf::int32_array(types));
    writer.set("tokenizer.ggml.merges", gguf::string_array({"1 2", "12 3", "123 4"}));
    if (!chat_template.empty()) writer.set("tokenizer.chat_template", gguf::string_value(chat_template));
    writer.set("tokenizer.ggml.eos_token_id", gguf::uint32_value(static_cast<uint32_t>(tokens.size() - 1)));
    writer.copy_tensors(*file);
    const std::string path = dir + "/" + (file_name.empty() ? "bpe-" + pre : file_name) + ".gguf";
    writer.write(path);
    return path;
}

} // namespace hearth::test
