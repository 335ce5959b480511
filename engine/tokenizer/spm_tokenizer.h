#pragma once
// SentencePiece-style BPE as llama.cpp runs it for "llama" vocabularies: spaces
// become "▁", adjacent pieces are merged highest score first as long as the
// merged text is a token, and characters no token covers fall back to <0xXX>
// byte tokens.
#include "engine/tokenizer/tokenizer.h"
#include <array>

namespace hearth::tokenizer {

class SpmTokenizer final : public Tokenizer {
public:
    explicit SpmTokenizer(Vocab vocab);

protected:
    void encode_text(std::string_view text, bool after_special, std::vector<int32_t>& out) const override;
    std::string normal_piece(const std::string& text) const override;

private:
    // Merges one stretch of escaped text that no token crosses out of.
    void encode_segment(std::string_view text, std::vector<int32_t>& out) const;
    void append_bytes(std::string_view bytes, std::vector<int32_t>& out) const;

    std::array<int32_t, 256> byte_tokens_{}; // <0xXX> ids; -1 where the vocabulary lacks one
    // True when no token holds "▁" right after another character, as in every
    // SentencePiece vocabulary we know: then no merge crosses the start of a word
    // and words can be merged one at a time, which gives the same tokens with
    // far smaller queues than merging a long prompt in one piece.
    bool words_are_independent_ = false;
};

} // namespace hearth::tokenizer
