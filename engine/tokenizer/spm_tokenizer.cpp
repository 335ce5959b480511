#include "engine/tokenizer/spm_tokenizer.h"
#include "engine/tokenizer/pair_merging.h"
#include "engine/tokenizer/utf8.h"
#include <cstdio>

namespace hearth::tokenizer {

namespace {

constexpr std::string_view kSpaceMarker = "\xE2\x96\x81"; // U+2581 "▁"

// Whether the space marker at byte `at` of `text` follows another character:
// there a new word starts.
bool starts_word(std::string_view text, size_t at) {
    const size_t n = kSpaceMarker.size();
    return at > 0 && !(at >= n && text.substr(at - n, n) == kSpaceMarker);
}

// The positions in `text` where a new word starts, in order.
template <class Visit> void for_each_word_start(std::string_view text, Visit visit) {
    for (size_t at = text.find(kSpaceMarker); at != std::string_view::npos;
         at = text.find(kSpaceMarker, at + kSpaceMarker.size()))
        if (starts_word(text, at)) visit(at);
}

} // namespace

SpmTokenizer::SpmTokenizer(Vocab vocab) : Tokenizer(std::move(vocab)) {
    for (int byte = 0; byte < 256; ++byte) {
        char text[8];
        std::snprintf(text, sizeof text, "<0x%02X>", byte);
        byte_tokens_[byte] = this->vocab().find(text).value_or(-1);
    }
    words_are_independent_ = true;
    for (const TokenData& token : this->vocab().tokens)
        for_each_word_start(token.text, [&](size_t) { words_are_independent_ = false; });
}

void SpmTokenizer::append_bytes(std::string_view bytes, std::vector<int32_t>& out) const {
    for (const char c : bytes) {
        int32_t id = byte_tokens_[static_cast<unsigned char>(c)];
        if (id < 0) id = vocab().find(std::string_view(&c, 1)).value_or(vocab().unk);
        if (id >= 0) out.push_back(id);
    }
}

void SpmTokenizer::encode_text(std::string_view raw, bool after_special, std::vector<int32_t>& out) const {
    std::string text;
    text.reserve(raw.size() * 2 + kSpaceMarker.size());
    if (after_special && vocab().add_space_prefix) text += kSpaceMarker;
    for (const char c : raw) {
        if (c == ' ')
            text += kSpaceMarker;
        else
            text += c;
    }
    if (!words_are_independent_) {
        encode_segment(text, out);
        return;
    }
    size_t begin = 0;
    for_each_word_start(text, [&](size_t at) {
        encode_segment(std::string_view(text).substr(begin, at - begin), out);
        begin = at;
    });
    encode_segment(std::string_view(text).substr(begin), out);
}

void SpmTokenizer::encode_segment(std::string_view text, std::vector<int32_t>& out) const {
    std::vector<MergeSymbol> symbols = character_symbols(text, [](std::string_view) { return -1; });
    // The pair whose joined text is the best-scoring piece merges first.
    merge_pairs(
        symbols, [&](const std::vector<MergeSymbol>& s, int left, int right) -> std::optional<PairMerge> {
            const auto id = vocab().find(text.substr(s[left].start, s[left].length + s[right].length));
            if (!id) return std::nullopt;
            return PairMerge{static_cast<double>(vocab().tokens[*id].score), *id};
        });

    for (int i = symbols.empty() ? -1 : 0; i >= 0; i = symbols[i].next) {
        if (symbols[i].id >= 0) { // a merged piece: its token is known from the merge
            out.push_back(symbols[i].id);
            continue;
        }
        const std::string_view piece = text.substr(symbols[i].start, symbols[i].length);
        if (const auto id = vocab().find(piece))
            out.push_back(*id);
        else
            append_bytes(piece, out); // only single characters are left unmatched
    }
}

std::string SpmTokenizer::normal_piece(const std::string& text) const {
    std::string piece;
    piece.reserve(text.size());
    for (size_t pos = 0; pos < text.size();) {
        if (text.compare(pos, kSpaceMarker.size(), kSpaceMarker) == 0) {
            piece += ' ';
            pos += kSpaceMarker.size();
        } else {
            piece += text[pos++];
        }
    }
    return piece;
}

} // namespace hearth::tokenizer
