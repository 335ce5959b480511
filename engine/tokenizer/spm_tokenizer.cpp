#include "engine/tokenizer/spm_tokenizer.h"
#include "engine/tokenizer/utf8.h"
#include <cstdio>
#include <queue>

namespace hearth::tokenizer {

namespace {

constexpr std::string_view kSpaceMarker = "\xE2\x96\x81"; // U+2581 "▁"

// One piece of the text being merged: a run of bytes, linked to its neighbours.
struct Symbol {
    int prev;
    int next;
    size_t start;
    size_t length; // 0 once merged into its left neighbour
};

struct Bigram {
    int left;
    int right;
    float score;
    size_t length;
};

// Highest score first; on a tie, the leftmost pair.
struct LowerPriority {
    bool operator()(const Bigram& a, const Bigram& b) const {
        return a.score < b.score || (a.score == b.score && a.left > b.left);
    }
};

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
    std::vector<Symbol> symbols;
    for (size_t pos = 0; pos < text.size();) {
        const size_t length =
            std::min(utf8::char_length(static_cast<unsigned char>(text[pos])), text.size() - pos);
        const int index = static_cast<int>(symbols.size());
        symbols.push_back({index - 1, pos + length == text.size() ? -1 : index + 1, pos, length});
        pos += length;
    }

    std::priority_queue<Bigram, std::vector<Bigram>, LowerPriority> queue;
    const auto try_add_bigram = [&](int left, int right) {
        if (left < 0 || right < 0) return;
        const size_t length = symbols[left].length + symbols[right].length;
        const auto id = vocab().find(text.substr(symbols[left].start, length));
        if (!id) return;
        queue.push({left, right, vocab().tokens[*id].score, length});
    };
    for (int i = 1; i < static_cast<int>(symbols.size()); ++i)
        try_add_bigram(i - 1, i);

    while (!queue.empty()) {
        const Bigram bigram = queue.top();
        queue.pop();
        Symbol& left = symbols[bigram.left];
        Symbol& right = symbols[bigram.right];
        // Stale: one side was merged into something else since this pair was queued.
        if (left.length == 0 || right.length == 0 || left.length + right.length != bigram.length) continue;
        left.length += right.length;
        right.length = 0;
        left.next = right.next;
        if (right.next >= 0) symbols[right.next].prev = bigram.left;
        try_add_bigram(left.prev, bigram.left);
        try_add_bigram(bigram.left, left.next);
    }

    for (int i = symbols.empty() ? -1 : 0; i >= 0; i = symbols[i].next) {
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
