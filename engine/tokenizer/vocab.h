#pragma once
// The token table every tokenizer shares: texts, scores and types of the tokens,
// the text -> id index, and the special ids, read from a GGUF file's
// tokenizer.ggml.* metadata.
#include "engine/gguf/gguf_file.h"
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace hearth::tokenizer {

enum class TokenType { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };

struct TokenData {
    std::string text;
    float score = 0.0f;
    TokenType type = TokenType::Normal;
};

struct Vocab {
    std::vector<TokenData> tokens;
    int32_t bos = -1;
    int32_t eos = -1;
    int32_t eot = -1;
    int32_t eom = -1;
    int32_t unk = -1;
    std::unordered_set<int32_t> end_of_generation;
    // Control, user-defined and unknown tokens, longest text first: the ones that
    // are cut out of the text before the rest is tokenized.
    std::vector<int32_t> special_longest_first;
    bool add_bos = false;
    bool add_space_prefix = false;
    std::vector<std::string> warnings; // things a loader accepted but a user may want to know

    std::optional<int32_t> find(std::string_view text) const;
    int32_t size() const { return static_cast<int32_t>(tokens.size()); }
    bool contains(int64_t id) const { return id >= 0 && id < static_cast<int64_t>(tokens.size()); }

    // Reads tokens, scores and types; throws hearth::Error naming the file on a
    // missing token list, mismatched array lengths, bad types or duplicate tokens.
    static Vocab read_tokens(const gguf::GgufFile& file);

    // Applies the special-token metadata over the defaults the caller has set
    // (bos/eos/unk, add_bos, add_space_prefix), then finds the end-of-generation
    // tokens and the special tokens.
    void read_special_tokens(const gguf::GgufFile& file);

private:
    // Text -> id as an open-addressing table of ids pointing into `tokens`
    // rather than a map of copied texts: a lookup touches a few cache lines,
    // which matters while 300k merges are read and on every merge step.
    struct IndexSlot {
        int32_t id = -1;  // -1: empty
        uint32_t tag = 0; // high bits of the text's hash, to skip most comparisons
    };
    // Records `id` under its text; returns the id that already had that text, if any.
    std::optional<int32_t> index_token(int32_t id);
    std::vector<IndexSlot> index_;
};

} // namespace hearth::tokenizer
