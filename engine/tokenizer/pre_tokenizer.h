#pragma once
// Splits text into words before byte-level BPE merges them, with the regular
// expressions of the model's pre-tokenizer (tokenizer.ggml.pre). Each expression
// splits the pieces the previous one produced; text between matches is kept as
// pieces of its own, so nothing is lost. The expressions of each name are in
// pre_tokenizer_table.h.
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::tokenizer {

class PreTokenizer {
public:
    // Compiles the patterns (PCRE2, UTF + UCP, JIT); throws std::runtime_error on a bad one.
    explicit PreTokenizer(std::span<const std::string> patterns);
    ~PreTokenizer();
    PreTokenizer(const PreTokenizer&) = delete;
    PreTokenizer& operator=(const PreTokenizer&) = delete;

    // The words of `text`, in order, covering it exactly. Bytes that are not valid
    // UTF-8 become words of one byte. An empty match cuts the text where it is
    // (as llama.cpp's splitter does). Safe to call from several threads at once.
    std::vector<std::string_view> split(std::string_view text) const;

private:
    struct Pattern;
    void split_with(const Pattern& pattern, std::string_view text, std::vector<std::string_view>& out) const;
    std::vector<std::unique_ptr<Pattern>> patterns_;
};

} // namespace hearth::tokenizer
