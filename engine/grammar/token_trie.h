#pragma once
// A model's vocabulary as a byte trie, in depth-first order, for masking tokens by a grammar:
// a walk in order meets every token's bytes one after another, with the tokens that share a
// prefix under one node, so a prefix the grammar refuses rules out its whole subtree at once
// (a jump to the subtree's end). Built once per vocabulary.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hearth::engine {

class TokenTrie {
public:
    struct Node {
        uint32_t subtree_end;  // the index after this node's subtree
        uint32_t tokens_begin; // the tokens whose bytes end here, in tokens()
        uint32_t tokens_end;
        uint16_t depth; // 1 for a token's first byte
        uint8_t byte;
    };

    // pieces[id]: the bytes token `id` stands for; empty pieces (control tokens) are left out.
    // end_tokens: those that end a generation, allowed when the grammar is complete.
    TokenTrie(std::vector<std::string> pieces, std::vector<int32_t> end_tokens);

    [[nodiscard]] const std::vector<Node>& nodes() const { return nodes_; }
    [[nodiscard]] std::span<const int32_t> tokens(const Node& node) const {
        return std::span<const int32_t>(tokens_).subspan(node.tokens_begin,
                                                         node.tokens_end - node.tokens_begin);
    }
    [[nodiscard]] const std::string& piece(int32_t id) const { return pieces_[static_cast<size_t>(id)]; }
    [[nodiscard]] int32_t n_vocab() const { return static_cast<int32_t>(pieces_.size()); }
    [[nodiscard]] size_t max_depth() const { return max_depth_; }
    [[nodiscard]] const std::vector<int32_t>& end_tokens() const { return end_tokens_; }
    [[nodiscard]] bool is_end(int32_t id) const {
        return id >= 0 && static_cast<size_t>(id) < is_end_.size() && is_end_[static_cast<size_t>(id)];
    }

private:
    std::vector<std::string> pieces_;
    std::vector<Node> nodes_;
    std::vector<int32_t> tokens_;
    std::vector<int32_t> end_tokens_;
    std::vector<uint8_t> is_end_;
    size_t max_depth_ = 0;
};

} // namespace hearth::engine
