#pragma once
// Text <-> token ids for the vocabularies GGUF files carry: SentencePiece-style
// ("llama": Llama 2, Phi-3, TinyLlama) and byte-level BPE ("gpt2": GPT-2,
// Llama 3, Qwen2, SmolLM). Build one with from_gguf; all methods are const and
// safe to call from several threads at once.
#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/vocab.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::tokenizer {

class Tokenizer {
public:
    // Reads the tokenizer.ggml.* metadata; throws hearth::Error("<file>: <problem>")
    // when the vocabulary is missing, malformed or of an unsupported kind.
    static std::unique_ptr<Tokenizer> from_gguf(const gguf::GgufFile& file);
    virtual ~Tokenizer();
    Tokenizer(const Tokenizer&) = delete;
    Tokenizer& operator=(const Tokenizer&) = delete;

    // add_bos: put BOS first (if the vocabulary has one). parse_special: control
    // tokens written in the text ("<|im_start|>") become their ids; otherwise only
    // user-defined tokens are matched and the rest is tokenized as plain text.
    std::vector<int32_t> encode(std::string_view text, bool add_bos, bool parse_special) const;

    // The bytes the token stands for in decoded text: "▁" is a space in
    // SentencePiece vocabularies, "<0xAB>" the byte 0xAB, byte-level BPE text is
    // mapped back to bytes. Control and unknown tokens give "" unless `special`.
    // A piece may be part of a UTF-8 character; see IncrementalDecoder.
    std::string token_to_piece(int32_t id, bool special = false) const;
    // The text of a whole sequence: the pieces joined, without the space a
    // SentencePiece vocabulary puts before the first word.
    std::string decode(std::span<const int32_t> ids, bool special = false) const;

    int32_t n_vocab() const { return vocab_.size(); }
    int32_t bos_id() const { return vocab_.bos; } // -1 if none
    int32_t eos_id() const { return vocab_.eos; } // -1 if none
    int32_t eot_id() const { return vocab_.eot; } // end of turn ("<|im_end|>", "<|eot_id|>"); -1 if none
    int32_t unk_id() const { return vocab_.unk; } // -1 if none
    bool is_end_of_generation(int32_t id) const { return vocab_.end_of_generation.count(id) > 0; }
    // tokenizer.ggml.add_bos_token, or llama.cpp's default for the kind of vocabulary.
    bool add_bos_by_default() const { return vocab_.add_bos; }
    bool adds_space_prefix() const { return vocab_.add_space_prefix; }

    const std::string& token_text(int32_t id) const { return token(id).text; }
    TokenType token_type(int32_t id) const { return token(id).type; }
    float token_score(int32_t id) const { return token(id).score; }
    std::optional<int32_t> find_token(std::string_view text) const { return vocab_.find(text); }

    // What the loader accepted but a user may want to know (an unknown
    // pre-tokenizer replaced by GPT-2's, a special id out of range, ...).
    const std::vector<std::string>& warnings() const { return vocab_.warnings; }

protected:
    explicit Tokenizer(Vocab vocab);

    // Tokenizes plain text with no special tokens in it. `after_special` is true
    // at the start of the text and right after a special token.
    virtual void encode_text(std::string_view text, bool after_special, std::vector<int32_t>& out) const = 0;
    // The decoded bytes of a normal token's text.
    virtual std::string normal_piece(const std::string& text) const = 0;

    const TokenData& token(int32_t id) const; // throws std::out_of_range for a bad id
    const Vocab& vocab() const { return vocab_; }

private:
    struct Fragment {
        std::string_view text; // plain text when token < 0
        int32_t token = -1;
    };
    std::vector<Fragment> split_special_tokens(std::string_view text, bool parse_special) const;

    Vocab vocab_;
};

// What a user should know about how a file's text will be split, read from its
// metadata alone (cheap: no vocabulary is built): the warning for an unknown or
// missing tokenizer.ggml.pre, which from_gguf gives among warnings() too. Empty
// when there is nothing to say.
std::vector<std::string> pre_tokenizer_warnings(const gguf::GgufFile& file);

// Turns a stream of token ids into text, emitting only complete UTF-8 characters:
// a character split across byte tokens comes out whole once its last byte arrives.
// Bytes that can never form a character come out as U+FFFD.
class IncrementalDecoder {
public:
    explicit IncrementalDecoder(const Tokenizer& tokenizer) : tokenizer_(tokenizer) {}
    std::string push(int32_t id);
    // Whatever is still held back (an unfinished character, as U+FFFD); the decoder is then empty.
    std::string flush();

private:
    const Tokenizer& tokenizer_;
    std::string pending_;
};

} // namespace hearth::tokenizer
