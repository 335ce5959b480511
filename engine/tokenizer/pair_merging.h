#pragma once
// The merge loop that the BPE and SentencePiece tokenizers share: the text split into
// characters linked to their neighbours, and a queue of adjacent pairs that may merge, the
// best first (on a tie, the leftmost). A pair whose side has merged into something else since
// it was queued is skipped. What a pair is worth, and what it becomes, is each tokenizer's
// own: BPE ranks its merges, SentencePiece scores the pieces.
#include "engine/tokenizer/utf8.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <queue>
#include <string_view>
#include <vector>

namespace hearth::tokenizer {

// One piece of the text being merged: a run of bytes, linked to its neighbours.
struct MergeSymbol {
    int prev;
    int next;
    size_t start;
    size_t length; // 0 once merged into its left neighbour
    int32_t id;    // the token this piece is; -1 if none (or not tracked)
};

// What merging two neighbours gives: its priority (higher merges first) and its token.
struct PairMerge {
    double priority;
    int32_t result;
};

// `text` split into UTF-8 characters (a stray or truncated byte is one), each with
// id_of(character).
template <class IdOf> std::vector<MergeSymbol> character_symbols(std::string_view text, IdOf id_of) {
    std::vector<MergeSymbol> symbols;
    symbols.reserve(text.size());
    for (size_t pos = 0; pos < text.size();) {
        const size_t length =
            std::min(utf8::char_length(static_cast<unsigned char>(text[pos])), text.size() - pos);
        const int index = static_cast<int>(symbols.size());
        symbols.push_back({index - 1, pos + length == text.size() ? -1 : index + 1, pos, length,
                           id_of(text.substr(pos, length))});
        pos += length;
    }
    return symbols;
}

// Merges neighbours while any pair can merge: merge_of(symbols, left, right) gives the pair's
// PairMerge, or nothing where it cannot. The merged symbol keeps the left index and the
// result's id; the list stays linked through prev and next from symbol 0.
template <class MergeOf> void merge_pairs(std::vector<MergeSymbol>& symbols, MergeOf merge_of) {
    struct Queued {
        int left;
        int right;
        PairMerge merge;
        size_t length; // both sides' bytes when queued: a different sum means one side changed
    };
    const auto worse = [](const Queued& a, const Queued& b) {
        return a.merge.priority < b.merge.priority ||
               (a.merge.priority == b.merge.priority && a.left > b.left);
    };
    std::priority_queue<Queued, std::vector<Queued>, decltype(worse)> queue(worse);
    const auto try_queue = [&](int left, int right) {
        if (left < 0 || right < 0) return;
        if (const std::optional<PairMerge> merge = merge_of(symbols, left, right))
            queue.push({left, right, *merge, symbols[left].length + symbols[right].length});
    };
    for (int i = 1; i < static_cast<int>(symbols.size()); ++i)
        try_queue(i - 1, i);

    while (!queue.empty()) {
        const Queued pair = queue.top();
        queue.pop();
        MergeSymbol& left = symbols[pair.left];
        MergeSymbol& right = symbols[pair.right];
        if (left.length == 0 || right.length == 0 || left.length + right.length != pair.length) continue;
        left.id = pair.merge.result;
        left.length += right.length;
        right.length = 0;
        left.next = right.next;
        if (right.next >= 0) symbols[right.next].prev = pair.left;
        try_queue(left.prev, pair.left);
        try_queue(pair.left, left.next);
    }
}

} // namespace hearth::tokenizer
