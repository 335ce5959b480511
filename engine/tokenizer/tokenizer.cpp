#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/bpe_tokenizer.h"
#include "engine/tokenizer/spm_tokenizer.h"
#include <algorithm>
#include <stdexcept>

namespace hearth::tokenizer {

namespace {
PreTokenizerChoice pre_tokenizer_of(const gguf::GgufFile& file, std::string_view model) {
    // "gemma4" is BPE over SentencePiece-style text, whatever tokenizer.ggml.pre says (as in llama.cpp).
    if (model == "gemma4") return choose_pre_tokenizer("gemma4");
    const auto pre = file.get_string("tokenizer.ggml.pre");
    return choose_pre_tokenizer(pre ? std::optional<std::string_view>(*pre) : std::nullopt);
}
} // namespace

std::vector<std::string> pre_tokenizer_warnings(const gguf::GgufFile& file) {
    const auto model = file.get_string("tokenizer.ggml.model");
    if (!model || *model == "llama") return {}; // SentencePiece vocabularies have no pre-tokenizer
    std::string warning = pre_tokenizer_of(file, *model).warning;
    if (warning.empty()) return {};
    return {std::move(warning)};
}

std::unique_ptr<Tokenizer> Tokenizer::from_gguf(const gguf::GgufFile& file) {
    const auto model = file.get_string("tokenizer.ggml.model");
    if (!model) file.fail("no tokenizer.ggml.model: the file has no tokenizer");
    if (*model != "llama" && *model != "gpt2" && *model != "gemma4")
        file.fail("tokenizer model '" + *model +
                  "' is not supported (only 'llama', 'gpt2' and 'gemma4' are)");

    Vocab vocab = Vocab::read_tokens(file);
    if (*model == "llama") { // llama.cpp's defaults for SentencePiece vocabularies
        vocab.bos = 1, vocab.eos = 2, vocab.unk = 0;
        vocab.add_bos = true;
        vocab.add_space_prefix = true;
        vocab.read_special_tokens(file);
        return std::make_unique<SpmTokenizer>(std::move(vocab));
    }

    // "gemma4" is BPE over SentencePiece-style text, whatever tokenizer.ggml.pre says (as in llama.cpp).
    const auto pre =
        *model == "gemma4" ? std::optional<std::string>("gemma4") : file.get_string("tokenizer.ggml.pre");
    PreTokenizerChoice choice =
        choose_pre_tokenizer(pre ? std::optional<std::string_view>(*pre) : std::nullopt);
    if (!choice.warning.empty()) vocab.warnings.push_back(std::move(choice.warning));
    const PreTokenizerSpec& spec = choice.spec;
    vocab.add_bos = spec.add_bos;
    vocab.read_special_tokens(file);
    if (spec.always_add_bos) vocab.add_bos = true; // as llama.cpp does for Gemma 4
    return std::make_unique<BpeTokenizer>(std::move(vocab), file, spec);
}

Tokenizer::Tokenizer(Vocab vocab) : vocab_(std::move(vocab)) {}

Tokenizer::~Tokenizer() = default;

const TokenData& Tokenizer::token(int32_t id) const {
    if (!vocab_.contains(id))
        throw std::out_of_range("token id " + std::to_string(id) + " is outside the vocabulary of " +
                                std::to_string(vocab_.size()));
    return vocab_.tokens[id];
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool add_bos, bool parse_special) const {
    std::vector<int32_t> out;
    out.reserve(text.size() / 3 + 2);
    if (add_bos && vocab_.bos >= 0) out.push_back(vocab_.bos);
    bool after_special = true;
    for (const Fragment& fragment : split_special_tokens(text, parse_special)) {
        if (fragment.token >= 0) {
            out.push_back(fragment.token);
            after_special = true;
        } else {
            encode_text(fragment.text, after_special, out);
            after_special = false;
        }
    }
    return out;
}

// As llama.cpp does it: the special tokens are cut out one after the other,
// longest first, from whatever plain text the earlier ones left.
std::vector<Tokenizer::Fragment> Tokenizer::split_special_tokens(std::string_view text,
                                                                 bool parse_special) const {
    std::vector<Fragment> fragments;
    if (text.empty()) return fragments;
    fragments.push_back({text, -1});
    std::vector<Fragment> next;
    for (const int32_t id : vocab_.special_longest_first) {
        const TokenData& special = vocab_.tokens[id];
        if (!parse_special && special.type != TokenType::UserDefined) continue;
        const std::string_view needle = special.text;
        const bool present = std::any_of(fragments.begin(), fragments.end(), [&](const Fragment& f) {
            return f.token < 0 && f.text.find(needle) != std::string_view::npos;
        });
        if (!present) continue;

        next.clear();
        for (const Fragment& fragment : fragments) {
            if (fragment.token >= 0) {
                next.push_back(fragment);
                continue;
            }
            std::string_view rest = fragment.text;
            for (size_t at; (at = rest.find(needle)) != std::string_view::npos;) {
                if (at > 0) next.push_back({rest.substr(0, at), -1});
                next.push_back({{}, id});
                rest.remove_prefix(at + needle.size());
            }
            if (!rest.empty()) next.push_back({rest, -1});
        }
        fragments.swap(next);
    }
    return fragments;
}

std::string Tokenizer::token_to_piece(int32_t id, bool special) const {
    const TokenData& t = token(id);
    switch (t.type) {
    case TokenType::Normal:
        return normal_piece(t.text);
    case TokenType::Byte:
        // "<0xAB>"; a byte token written some other way decodes as normal text.
        if (t.text.size() == 6 && t.text.starts_with("<0x") && t.text.back() == '>') {
            try {
                size_t used = 0;
                const int value = std::stoi(t.text.substr(3, 2), &used, 16);
                if (used == 2) return std::string(1, static_cast<char>(value));
            } catch (const std::logic_error&) {
            }
        }
        return normal_piece(t.text);
    case TokenType::UserDefined:
        return t.text;
    case TokenType::Control:
    case TokenType::Unknown:
        return special ? t.text : std::string();
    case TokenType::Unused:
        return {};
    }
    return {};
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool special) const {
    std::string text;
    bool strip_space = vocab_.add_space_prefix; // the space encode() put before the first word
    for (const int32_t id : ids) {
        std::string piece = token_to_piece(id, special);
        if (strip_space && !piece.empty()) {
            if (piece.front() == ' ') piece.erase(0, 1);
            strip_space = false;
        }
        text += piece;
    }
    return text;
}

} // namespace hearth::tokenizer
