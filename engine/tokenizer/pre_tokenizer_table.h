#pragma once
// The pre-tokenizers of byte-level BPE vocabularies, as data: every
// tokenizer.ggml.pre name llama.cpp recognizes, mapped to a named set of
// regular expressions (PCRE2 syntax) and the few flags that go with the name.
// Names that share a set split text identically; the sets are written from the
// models' own tokenizer.json expressions.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::tokenizer {

// A named list of expressions; each splits the pieces the previous one produced.
struct RegexSet {
    std::string_view name;
    std::vector<std::string> patterns;
    // false: SentencePiece-style BPE (Gemma 4): spaces are written as U+2581,
    // words are merged as raw UTF-8, and bytes missing from the vocabulary
    // become <0xAB> tokens. true: GPT-2's byte alphabet.
    bool byte_level = true;
};

// One tokenizer.ggml.pre name and what it selects.
struct PreTokenizerName {
    std::string_view name;
    std::string_view regex_set;
    bool ignore_merges = false;      // a word that is a token as a whole is taken as it is
    bool add_bos = false;            // the family's default for tokenizer.ggml.add_bos_token
    bool whole_newline_runs = false; // a run of "\n" that is a token is taken whole (Gemma 4)
    bool always_add_bos = false;     // BOS even where tokenizer.ggml.add_bos_token says no (Gemma 4)
};

// Every regex set, "default" first.
std::span<const RegexSet> regex_sets();
// Every name, in llama.cpp's order of recognition.
std::span<const PreTokenizerName> pre_tokenizer_names();
const RegexSet* find_regex_set(std::string_view name);

// What a tokenizer needs from its pre-tokenizer.
struct PreTokenizerSpec {
    std::string name; // the regex set's name
    std::vector<std::string> patterns;
    bool byte_level = true;
    bool ignore_merges = false;
    bool add_bos = false;
    bool whole_newline_runs = false;
    bool always_add_bos = false;
};

// The spec for a tokenizer.ggml.pre name; nullopt if the name is not known.
std::optional<PreTokenizerSpec> find_pre_tokenizer(std::string_view name);

// The spec for what a file declares (nullopt: it declares nothing). A missing or
// unknown name gets llama.cpp's "default" set and a warning for the user; a
// known one no warning.
struct PreTokenizerChoice {
    PreTokenizerSpec spec;
    std::string warning; // empty when the name is known
};
PreTokenizerChoice choose_pre_tokenizer(std::optional<std::string_view> declared);

} // namespace hearth::tokenizer
