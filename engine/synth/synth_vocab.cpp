#include "engine/synth/synth_vocab.h"
#include "engine/gguf/gguf_value.h"
#include <string>

namespace hearth::gguf {

namespace {

constexpr int32_t kUnusedTokenType = 5; // llama.cpp's LLAMA_TOKEN_TYPE_UNUSED
constexpr float kPaddingScore = -1000.0f;

// One per-token array, grown to n_vocab items made by pad(id).
template <typename MakeItem>
void pad_array(GgufWriter& writer, const GgufFile& vocab, const std::string& key, ValueType element_type,
               int64_t n_vocab, const MakeItem& pad) {
    const Array* array = vocab.get_array(key);
    if (!array) return;
    if (array->element_type != element_type) vocab.fail(key + " has an unexpected element type");
    std::vector<Value> items = array->items;
    const int64_t n_tokens = vocab_token_count(vocab);
    if (static_cast<int64_t>(items.size()) != n_tokens)
        vocab.fail(key + " has " + std::to_string(items.size()) + " items for " + std::to_string(n_tokens) +
                   " tokens");
    for (int64_t id = n_tokens; id < n_vocab; ++id)
        items.push_back(pad(id));
    writer.set(key, array_value(element_type, std::move(items)));
}

} // namespace

int64_t vocab_token_count(const GgufFile& vocab) {
    const Array* tokens = vocab.get_array("tokenizer.ggml.tokens");
    if (!tokens || tokens->items.empty()) vocab.fail("no tokenizer.ggml.tokens: not a vocab or model file");
    return static_cast<int64_t>(tokens->items.size());
}

int64_t write_vocab(GgufWriter& writer, const GgufFile& vocab, int64_t n_vocab) {
    const int64_t n_tokens = vocab_token_count(vocab);
    writer.copy_prefix(vocab, "tokenizer.");
    if (n_vocab <= n_tokens) return n_tokens;
    pad_array(writer, vocab, "tokenizer.ggml.tokens", ValueType::String, n_vocab,
              [](int64_t id) { return string_value("[PAD" + std::to_string(id) + "]"); });
    pad_array(writer, vocab, "tokenizer.ggml.token_type", ValueType::Int32, n_vocab,
              [](int64_t) { return int32_value(kUnusedTokenType); });
    pad_array(writer, vocab, "tokenizer.ggml.scores", ValueType::Float32, n_vocab,
              [](int64_t) { return float32_value(kPaddingScore); });
    return n_vocab;
}

} // namespace hearth::gguf
