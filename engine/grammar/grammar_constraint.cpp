#include "engine/grammar/grammar_constraint.h"
#include <algorithm>

namespace hearth::engine {

namespace {
constexpr size_t kCachedMasks = 4;
constexpr size_t kReservedStacks = 32;

size_t hash_state(const GrammarState& state) {
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t{state.utf8_pending} << 40 | state.utf8_value);
    for (const uint32_t id : state.stacks)
        h = (h ^ id) * 0x100000001b3ull;
    return static_cast<size_t>(h ^ (h >> 29));
}

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
    scratch_.stacks.reserve(kReservedStacks);
    next_.stacks.reserve(kReservedStacks);
    state_slots_.assign(1024, 0);
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

size_t GrammarConstraint::allowed_prefix(std::span<const int32_t> tokens) {
    const size_t mark = matcher_.mark();
    scratch_ = state_;
    size_t n = 0;
    for (const int32_t token : tokens) {
        if (token < 0 || token >= vocabulary_->n_vocab()) break;
        if (vocabulary_->is_end(token)) {
            n += GrammarMatcher::accepting(scratch_) ? 1 : 0;
            break;
        }
        const std::string& piece = vocabulary_->piece(token);
        if (piece.empty() || !matcher_.advance(scratch_, piece)) break;
        ++n;
    }
    matcher_.rollback(mark);
    return n;
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

int32_t GrammarConstraint::number_state(const GrammarState& state) {
    if (walk_state_count_ * 2 >= state_slots_.size()) {
        state_slots_.assign(state_slots_.size() * 2, 0);
        for (size_t id = 0; id < walk_state_count_; ++id) {
            size_t s = hash_state(walk_states_[id]) & (state_slots_.size() - 1);
            while (state_slots_[s] != 0)
                s = (s + 1) & (state_slots_.size() - 1);
            state_slots_[s] = static_cast<int32_t>(id + 1);
        }
    }
    const size_t mask = state_slots_.size() - 1;
    size_t s = hash_state(state) & mask;
    while (const int32_t slot = state_slots_[s]) {
        if (same_state(walk_states_[static_cast<size_t>(slot - 1)], state)) return slot - 1;
        s = (s + 1) & mask;
    }
    const size_t id = walk_state_count_++;
    if (walk_states_.size() < walk_state_count_) walk_states_.emplace_back().stacks.reserve(kReservedStacks);
    walk_states_[id] = state;
    state_slots_[s] = static_cast<int32_t>(id + 1);
    transitions_.resize(walk_state_count_ * 256);
    std::fill_n(transitions_.begin() + static_cast<std::ptrdiff_t>(id * 256), 256, kUnknown);
    return static_cast<int32_t>(id);
}

int32_t GrammarConstraint::step(int32_t from, uint8_t byte) {
    int32_t& known = transitions_[static_cast<size_t>(from) * 256 + byte];
    if (known != kUnknown) return known;
    const int32_t next =
        matcher_.advance(walk_states_[static_cast<size_t>(from)], byte, next_) ? number_state(next_) : kDead;
    // number_state may have grown transitions_: index again.
    transitions_[static_cast<size_t>(from) * 256 + byte] = next;
    return next;
}

void GrammarConstraint::compute_mask(std::vector<uint8_t>& mask) {
    std::fill(mask.begin(), mask.end(), 0);
    const bool whole = accepting();
    for (const int32_t id : vocabulary_->end_tokens())
        mask[static_cast<size_t>(id)] = whole ? 1 : 0;
    const size_t mark = matcher_.mark();
    walk_state_count_ = 0;
    std::fill(state_slots_.begin(), state_slots_.end(), 0);
    by_depth_[0] = number_state(state_);
    const std::vector<TokenTrie::Node>& nodes = vocabulary_->nodes();
    for (size_t i = 0; i < nodes.size();) {
        const TokenTrie::Node& node = nodes[i];
        const int32_t next = step(by_depth_[node.depth - 1u], node.byte);
        if (next == kDead) {
            i = node.subtree_end; // no token under this prefix fits
            continue;
        }
        by_depth_[node.depth] = next;
        for (const int32_t id : vocabulary_->tokens(node))
            mask[static_cast<size_t>(id)] = 1;
        ++i;
    }
    matcher_.rollback(mark); // the walk's states name nodes that are gone now
}

} // namespace hearth::engine
