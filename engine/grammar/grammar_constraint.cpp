#include "engine/grammar/grammar_constraint.h"
#include <algorithm>

namespace hearth::engine {

namespace {
constexpr size_t kCachedMasks = 4;
constexpr size_t kReservedStacks = 32;

bool same_state(const GrammarState& a, const GrammarState& b) {
    return a.utf8_pending == b.utf8_pending && a.utf8_value == b.utf8_value && a.utf8_least == b.utf8_least &&
           a.stacks == b.stacks;
}
} // namespace

GrammarConstraint::GrammarConstraint(std::shared_ptr<const Grammar> grammar,
                                     std::shared_ptr<const TokenTrie> vocabulary)
    : matcher_(std::move(grammar)), vocabulary_(std::move(vocabulary)), cache_(kCachedMasks) {
    state_ = matcher_.start();
    by_depth_.resize(vocabulary_->max_depth() + 1);
    for (GrammarState& s : by_depth_)
        s.stacks.reserve(kReservedStacks);
    scratch_.stacks.reserve(kReservedStacks);
    for (CachedMask& entry : cache_) {
        entry.mask.assign(static_cast<size_t>(vocabulary_->n_vocab()), 0);
        entry.state.stacks.reserve(kReservedStacks);
    }
}

bool GrammarConstraint::allows(int32_t token) {
    if (token < 0 || token >= vocabulary_->n_vocab()) return false;
    if (vocabulary_->is_end(token)) return accepting();
    const std::string& piece = vocabulary_->piece(token);
    if (piece.empty()) return false;
    const size_t mark = matcher_.mark();
    scratch_ = state_;
    const bool ok = matcher_.advance(scratch_, piece);
    matcher_.rollback(mark);
    return ok;
}

bool GrammarConstraint::accept(int32_t token) {
    if (vocabulary_->is_end(token)) return accepting();
    const std::string& piece = vocabulary_->piece(token);
    return !piece.empty() && matcher_.advance(state_, piece);
}

std::span<const uint8_t> GrammarConstraint::allowed_tokens() {
    ++uses_;
    for (CachedMask& entry : cache_)
        if (entry.valid && same_state(entry.state, state_)) {
            entry.last_used = uses_;
            return entry.mask;
        }
    CachedMask& oldest =
        *std::min_element(cache_.begin(), cache_.end(),
                          [](const CachedMask& a, const CachedMask& b) { return a.last_used < b.last_used; });
    compute_mask(oldest.mask);
    oldest.state = state_;
    oldest.last_used = uses_;
    oldest.valid = true;
    return oldest.mask;
}

void GrammarConstraint::compute_mask(std::vector<uint8_t>& mask) {
    std::fill(mask.begin(), mask.end(), 0);
    const bool whole = accepting();
    for (const int32_t id : vocabulary_->end_tokens())
        mask[static_cast<size_t>(id)] = whole ? 1 : 0;
    const size_t mark = matcher_.mark();
    by_depth_[0] = state_;
    const std::vector<TokenTrie::Node>& nodes = vocabulary_->nodes();
    for (size_t i = 0; i < nodes.size();) {
        const TokenTrie::Node& node = nodes[i];
        if (!matcher_.advance(by_depth_[node.depth - 1], node.byte, by_depth_[node.depth])) {
            i = node.subtree_end; // no token under this prefix fits
            continue;
        }
        for (const int32_t id : vocabulary_->tokens(node))
            mask[static_cast<size_t>(id)] = 1;
        ++i;
    }
    matcher_.rollback(mark);
}

} // namespace hearth::engine
