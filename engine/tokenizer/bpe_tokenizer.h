#pragma once
// Byte-level BPE ("gpt2" vocabularies: GPT-2, Llama 3, Qwen2, SmolLM): the text
// is split into words by the pre-tokenizer, each word's bytes are written in
// GPT-2's byte alphabet, and adjacent pieces are merged in the order of
// tokenizer.ggml.merges (lowest rank first). SentencePiece-style BPE (Gemma 4)
// merges raw UTF-8 with spaces written as U+2581 instead, falling back to
// <0xAB> byte tokens.
#include "engine/tokenizer/merge_table.h"
#include "engine/tokenizer/pre_tokenizer.h"
#include "engine/tokenizer/pre_tokenizer_table.h"
#include "engine/tokenizer/tokenizer.h"

namespace hearth::tokenizer {

class BpeTokenizer final : public Tokenizer {
public:
    // Reads tokenizer.ggml.merges; throws hearth::Error naming the file on a
    // missing list or an entry that is not two tokens whose join is a token.
    BpeTokenizer(Vocab vocab, const gguf::GgufFile& file, const PreTokenizerSpec& pre_tokenizer);

protected:
    void encode_text(std::string_view text, bool after_special, std::vector<int32_t>& out) const override;
    std::string normal_piece(const std::string& text) const override;

private:
    void encode_word(std::string_view word, std::vector<int32_t>& out) const;
    // A piece of a word that is no token: its bytes' <0xAB> tokens (SentencePiece
    // style), or the unknown token.
    void encode_unknown(std::string_view piece, std::vector<int32_t>& out) const;

    MergeTable merges_;
    PreTokenizer pre_tokenizer_;
    bool byte_level_;
    bool ignore_merges_;
    bool whole_newline_runs_;
};

} // namespace hearth::tokenizer
