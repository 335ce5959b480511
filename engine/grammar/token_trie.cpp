#include "engine/grammar/token_trie.h"
#include <algorithm>
#include <numeric>

namespace hearth::engine {

TokenTrie::TokenTrie(std::vector<std::string> pieces, std::vector<int32_t> end_tokens)
    : pieces_(std::move(pieces)), end_tokens_(std::move(end_tokens)), is_end_(pieces_.size(), 0) {
    for (const int32_t id : end_tokens_)
        if (id >= 0 && static_cast<size_t>(id) < is_end_.size()) is_end_[static_cast<size_t>(id)] = 1;
    std::vector<int32_t> order;
    for (size_t id = 0; id < pieces_.size(); ++id)
        if (!pieces_[id].empty() && !is_end_[id] && pieces_[id].size() < 65535)
            order.push_back(static_cast<int32_t>(id));
    std::sort(order.begin(), order.end(), [this](int32_t a, int32_t b) {
        return pieces_[static_cast<size_t>(a)] < pieces_[static_cast<size_t>(b)];
    });
    // Sorted, a piece shares its longest common prefix with the one before: the nodes of that
    // prefix are open, the rest of the piece's bytes are new nodes.
    std::vector<uint32_t> open; // node index per depth - 1
    const std::string* previous = nullptr;
    for (const int32_t id : order) {
        const std::string& piece = pieces_[static_cast<size_t>(id)];
        size_t common = 0;
        if (previous)
            while (common < piece.size() && common < previous->size() && piece[common] == (*previous)[common])
                ++common;
        while (open.size() > common) {
            nodes_[open.back()].subtree_end = static_cast<uint32_t>(nodes_.size());
            open.pop_back();
        }
        for (size_t i = common; i < piece.size(); ++i) {
            const auto index = static_cast<uint32_t>(nodes_.size());
            const auto at = static_cast<uint32_t>(tokens_.size());
            nodes_.push_back({0, at, at, static_cast<uint16_t>(i + 1), static_cast<uint8_t>(piece[i])});
            open.push_back(index);
        }
        tokens_.push_back(id); // the deepest open node is this piece's last byte
        nodes_[open.back()].tokens_end = static_cast<uint32_t>(tokens_.size());
        max_depth_ = std::max(max_depth_, piece.size());
        previous = &piece;
    }
    for (const uint32_t index : open)
        nodes_[index].subtree_end = static_cast<uint32_t>(nodes_.size());
}

} // namespace hearth::engine
