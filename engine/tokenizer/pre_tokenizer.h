#pragma once
// Splits text into words before byte-level BPE merges them, with the regular
// expressions of the model's pre-tokenizer (tokenizer.ggml.pre). Each expression
// splits the pieces the previous one produced; text between matches is kept as
// pieces of its own, so nothing is lost.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::tokenizer {

struct PreTokenizerSpec {
    std::vector<std::string_view> patterns;
    bool ignore_merges = false; // a word that is a token as a whole is taken as it is (Llama 3)
    bool add_bos = false;       // the family's default for tokenizer.ggml.add_bos_token
};

// The spec for a tokenizer.ggml.pre name (llama.cpp's names); nullopt if unknown.
std::optional<PreTokenizerSpec> find_pre_tokenizer(std::string_view name);
// GPT-2's own expression: what unknown names fall back to.
PreTokenizerSpec gpt2_pre_tokenizer();

class PreTokenizer {
public:
    // Compiles the patterns (PCRE2, UTF + UCP, JIT); throws std::runtime_error on a bad one.
    explicit PreTokenizer(const std::vector<std::string_view>& patterns);
    ~PreTokenizer();
    PreTokenizer(const PreTokenizer&) = delete;
    PreTokenizer& operator=(const PreTokenizer&) = delete;

    // The words of `text`, in order, covering it exactly. Bytes that are not valid
    // UTF-8 become words of one byte. Safe to call from several threads at once.
    std::vector<std::string_view> split(std::string_view text) const;

private:
    struct Pattern;
    void split_with(const Pattern& pattern, std::string_view text, std::vector<std::string_view>& out) const;
    std::vector<std::unique_ptr<Pattern>> patterns_;
};

} // namespace hearth::tokenizer
