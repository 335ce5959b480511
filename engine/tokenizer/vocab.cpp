#include "engine/tokenizer/vocab.h"
#include <algorithm>
#include <array>

namespace hearth::tokenizer {

namespace {

std::optional<double> number_of(const gguf::Value& v) {
    if (const auto* d = std::get_if<double>(&v.data)) return *d;
    if (const auto* i = std::get_if<int64_t>(&v.data)) return static_cast<double>(*i);
    if (const auto* u = std::get_if<uint64_t>(&v.data)) return static_cast<double>(*u);
    return std::nullopt;
}

// Texts that mark the end of a turn or of a text in the vocabularies of common
// chat models (llama.cpp finds them the same way, since few files name them).
// The first one present becomes eot_id when the file names none.
constexpr std::array kEndOfTurnTexts = {
    std::string_view{"<|eot_id|>"},
    std::string_view{"<|im_end|>"},
    std::string_view{"<|end|>"},
    std::string_view{"<end_of_turn>"},
    std::string_view{"<EOT>"},
    std::string_view{"<\xEF\xBD\x9C"
                     "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>"}, // DeepSeek
    std::string_view{"<|endoftext|>"},
};
// Further tokens that end generation: the end of a message with a tool call and
// fill-in-the-middle separators that code models emit when they are done.
constexpr std::array kOtherEndOfGenerationTexts = {
    std::string_view{"<|eom_id|>"},   std::string_view{"<|fim_pad|>"},  std::string_view{"<|repo_name|>"},
    std::string_view{"<|fim_repo|>"}, std::string_view{"<|file_sep|>"},
};

uint64_t text_hash(std::string_view text) {
    // FNV-1a, then a final mix so that the low bits (the slot) and the high bits
    // (the tag) are both well spread.
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char c : text)
        h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

} // namespace

std::optional<int32_t> Vocab::find(std::string_view text) const {
    if (index_.empty()) return std::nullopt;
    const uint64_t h = text_hash(text);
    const uint32_t tag = static_cast<uint32_t>(h >> 32);
    const size_t mask = index_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        const IndexSlot& slot = index_[i];
        if (slot.id < 0) return std::nullopt;
        if (slot.tag == tag && tokens[slot.id].text == text) return slot.id;
    }
}

std::optional<int32_t> Vocab::index_token(int32_t id) {
    const std::string& text = tokens[id].text;
    const uint64_t h = text_hash(text);
    const uint32_t tag = static_cast<uint32_t>(h >> 32);
    const size_t mask = index_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        IndexSlot& slot = index_[i];
        if (slot.id < 0) {
            slot = {id, tag};
            return std::nullopt;
        }
        if (slot.tag == tag && tokens[slot.id].text == text) return slot.id;
    }
}

Vocab Vocab::read_tokens(const gguf::GgufFile& file) {
    const gguf::Array* texts = file.get_array("tokenizer.ggml.tokens");
    if (!texts) file.fail("no tokenizer.ggml.tokens: the file has no vocabulary");
    if (texts->element_type != gguf::ValueType::String)
        file.fail("tokenizer.ggml.tokens holds " + std::string(gguf::value_type_name(texts->element_type)) +
                  ", expected strings");
    const size_t n = texts->items.size();
    if (n == 0) file.fail("tokenizer.ggml.tokens is empty");
    if (n > static_cast<size_t>(INT32_MAX)) file.fail("tokenizer.ggml.tokens has too many tokens");

    const gguf::Array* scores = file.get_array("tokenizer.ggml.scores");
    const gguf::Array* types = file.get_array("tokenizer.ggml.token_type");
    if (scores && scores->items.size() != n)
        file.fail("tokenizer.ggml.scores has " + std::to_string(scores->items.size()) + " entries for " +
                  std::to_string(n) + " tokens");
    if (types && types->items.size() != n)
        file.fail("tokenizer.ggml.token_type has " + std::to_string(types->items.size()) + " entries for " +
                  std::to_string(n) + " tokens");

    Vocab vocab;
    vocab.tokens.resize(n);
    size_t slots = 16;
    while (slots < 2 * n)
        slots *= 2; // at most half full, so probes stay short
    vocab.index_.resize(slots);
    for (size_t i = 0; i < n; ++i) {
        TokenData& token = vocab.tokens[i];
        token.text = std::get<std::string>(texts->items[i].data);
        if (token.text.empty()) { // llama.cpp's convention, so that the id stays usable
            token.text = "[EMPTY_" + std::to_string(i) + "]";
            vocab.warnings.push_back("token " + std::to_string(i) + " has an empty text; named " +
                                     token.text);
        }
        if (scores) {
            const auto score = number_of(scores->items[i]);
            if (!score) file.fail("tokenizer.ggml.scores[" + std::to_string(i) + "] is not a number");
            token.score = static_cast<float>(*score);
        }
        if (types) {
            const auto type = number_of(types->items[i]);
            // 0 is llama.cpp's "undefined": a token that exists but never shows in text.
            if (!type || *type < 0 || *type > 6)
                file.fail("tokenizer.ggml.token_type[" + std::to_string(i) + "] is not a token type (1..6)");
            token.type = *type == 0 ? TokenType::Unused : static_cast<TokenType>(static_cast<int>(*type));
        }
        if (const auto earlier = vocab.index_token(static_cast<int32_t>(i)))
            file.fail("token " + std::to_string(i) + " '" + token.text + "' repeats token " +
                      std::to_string(*earlier));
    }
    return vocab;
}

void Vocab::read_special_tokens(const gguf::GgufFile& file) {
    const auto read_id = [&](const char* key, int32_t& id) {
        const auto value = file.get_int(key);
        if (!value) return;
        if (contains(*value)) {
            id = static_cast<int32_t>(*value);
        } else if (*value != UINT32_MAX && *value != -1) { // "none", as some converters write it
            warnings.push_back(std::string(key) + " = " + std::to_string(*value) +
                               " is not a token; ignored");
        }
    };
    read_id("tokenizer.ggml.bos_token_id", bos);
    read_id("tokenizer.ggml.eos_token_id", eos);
    read_id("tokenizer.ggml.eot_token_id", eot);
    read_id("tokenizer.ggml.eom_token_id", eom);
    read_id("tokenizer.ggml.unknown_token_id", unk);
    for (int32_t* id : {&bos, &eos, &unk})
        if (!contains(*id)) *id = -1; // a default the vocabulary is too small for
    if (const auto value = file.get_bool("tokenizer.ggml.add_bos_token")) add_bos = *value;
    if (const auto value = file.get_bool("tokenizer.ggml.add_space_prefix")) add_space_prefix = *value;

    // End of generation: the named ids, plus the tokens with well-known texts,
    // which are control tokens whatever the file says (so they never print).
    const auto mark_end_of_generation = [&](std::string_view text) {
        const auto id = find(text);
        if (!id) return std::optional<int32_t>{};
        tokens[*id].type = TokenType::Control;
        end_of_generation.insert(*id);
        return id;
    };
    for (const std::string_view text : kEndOfTurnTexts) {
        const auto id = mark_end_of_generation(text);
        if (id && eot < 0) eot = *id;
    }
    for (const std::string_view text : kOtherEndOfGenerationTexts) {
        const auto id = mark_end_of_generation(text);
        if (id && text == "<|eom_id|>" && eom < 0) eom = *id;
    }
    for (const int32_t id : {eos, eot, eom})
        if (id >= 0) end_of_generation.insert(id);

    special_longest_first.clear();
    for (int32_t id = 0; id < size(); ++id) {
        const TokenType type = tokens[id].type;
        if (type == TokenType::Control || type == TokenType::UserDefined || type == TokenType::Unknown)
            special_longest_first.push_back(id);
    }
    std::stable_sort(special_longest_first.begin(), special_longest_first.end(),
                     [&](int32_t a, int32_t b) { return tokens[a].text.size() > tokens[b].text.size(); });
}

} // namespace hearth::tokenizer
