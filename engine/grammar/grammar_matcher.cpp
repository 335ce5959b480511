#include "engine/grammar/grammar_matcher.h"
#include <algorithm>
#include <bit>

namespace hearth::engine {

namespace {
// Fibonacci hashing: the product's top bits, where every bit of the pair counts. Its bits 20-31,
// taken before, had depended on `parent` alone, so that the thousands of stacks of one parent a
// nullable chain makes shared a probe chain (a 10000-deep chain took seconds).
size_t slot_of(uint32_t pos, uint32_t parent, size_t mask) {
    const uint64_t h = (uint64_t{pos} << 32 | parent) * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(h >> (64 - std::bit_width(mask))) & mask;
}
} // namespace

GrammarMatcher::GrammarMatcher(std::shared_ptr<const Grammar> grammar) : grammar_(std::move(grammar)) {
    nodes_.reserve(1 << 12);
    nodes_.push_back({0, 0});
    slots_.assign(1 << 13, 0);
}

void GrammarMatcher::rehash(size_t slots) {
    slots_.assign(slots, 0);
    const size_t mask = slots - 1;
    for (uint32_t id = 1; id < nodes_.size(); ++id) {
        size_t s = slot_of(nodes_[id].pos, nodes_[id].parent, mask);
        while (slots_[s] != 0)
            s = (s + 1) & mask;
        slots_[s] = id;
    }
}

uint32_t GrammarMatcher::intern(uint32_t pos, uint32_t parent) {
    const size_t mask = slots_.size() - 1;
    size_t s = slot_of(pos, parent, mask);
    while (const uint32_t id = slots_[s]) {
        if (nodes_[id].pos == pos && nodes_[id].parent == parent) return id;
        s = (s + 1) & mask;
    }
    if (nodes_.size() >= kMaxNodes)
        throw GrammarError("the grammar is too ambiguous: reading this text took more than " +
                           std::to_string(kMaxNodes) + " parse stacks");
    const auto id = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back({pos, parent});
    slots_[s] = id;
    if (nodes_.size() * 2 > slots_.size()) rehash(slots_.size() * 2);
    return id;
}

void GrammarMatcher::rollback(size_t mark) {
    // Removed newest first, each from its own probe chain: what stays is as it was at mark().
    const size_t mask = slots_.size() - 1;
    for (size_t id = nodes_.size(); id-- > mark;) {
        size_t s = slot_of(nodes_[id].pos, nodes_[id].parent, mask);
        while (slots_[s] != id)
            s = (s + 1) & mask;
        slots_[s] = 0;
    }
    nodes_.resize(mark);
}

void GrammarMatcher::emit(uint32_t id, std::vector<uint32_t>& out) {
    if (emitted_.size() < nodes_.size()) emitted_.resize(nodes_.capacity(), 0);
    if (emitted_[id] == epoch_) return;
    emitted_[id] = epoch_;
    if (out.size() == kMaxStacks)
        throw GrammarError("the grammar is too ambiguous: the text so far can be read in more than " +
                           std::to_string(kMaxStacks) +
                           " ways at once (optional parts repeated inside "
                           "repetitions do this)");
    out.push_back(id);
}

// Every stack that `pos` (with `parent` below it) leads to before the next character: rules
// are entered, finished alternatives return to their parent. Depth first, in the grammar's
// order, with a work list of its own: a chain of nullable rules may be any number deep.
void GrammarMatcher::expand(uint32_t pos, uint32_t parent, std::vector<uint32_t>& out) {
    const Grammar& g = *grammar_;
    pending_.clear();
    pending_.push_back({pos, parent});
    while (!pending_.empty()) {
        const Node at = pending_.back();
        pending_.pop_back();
        const GrammarElement& e = g.code[at.pos];
        switch (e.kind) {
        case GrammarElement::Kind::End: {
            if (at.parent == kAccepted) {
                emit(kAccepted, out);
                break;
            }
            // Each stack is returned to once per step: empty alternatives can reach the same
            // place along many paths, which would multiply (a nullable group repeated n times:
            // 2^n paths).
            if (visited_.size() < nodes_.size()) visited_.resize(nodes_.capacity(), 0);
            if (visited_[at.parent] == epoch_) break;
            visited_[at.parent] = epoch_;
            pending_.push_back(nodes_[at.parent]);
            break;
        }
        case GrammarElement::Kind::Chars:
            emit(intern(at.pos, at.parent), out);
            break;
        case GrammarElement::Kind::Rule: {
            // A rule last in its alternative returns straight to the parent: right recursion
            // (repetitions) does not deepen the stack.
            const uint32_t back = g.code[at.pos + 1].kind == GrammarElement::Kind::End
                                      ? at.parent
                                      : intern(at.pos + 1, at.parent);
            const std::vector<uint32_t>& starts = g.alternatives[e.index];
            for (auto it = starts.rbegin(); it != starts.rend(); ++it) // the first on top
                pending_.push_back({*it, back});
            break;
        }
        }
    }
}

void GrammarMatcher::new_epoch() {
    if (++epoch_ == 0) { // wrapped: forget every mark
        std::fill(visited_.begin(), visited_.end(), 0);
        std::fill(emitted_.begin(), emitted_.end(), 0);
        epoch_ = 1;
    }
}

GrammarState GrammarMatcher::start() {
    GrammarState state;
    new_epoch();
    for (const uint32_t alternative : grammar_->alternatives[grammar_->root])
        expand(alternative, kAccepted, state.stacks);
    return state;
}

void GrammarMatcher::step(const std::vector<uint32_t>& from, uint32_t c, std::vector<uint32_t>& out) {
    out.clear();
    new_epoch();
    const Grammar& g = *grammar_;
    for (const uint32_t id : from) {
        if (id == kAccepted) continue;
        const Node top = nodes_[id];
        if (g.char_sets[g.code[top.pos].index].matches(c)) expand(top.pos + 1, top.parent, out);
    }
}

bool GrammarMatcher::can_begin(const std::vector<uint32_t>& stacks, uint32_t first, uint32_t last) const {
    const Grammar& g = *grammar_;
    for (const uint32_t id : stacks)
        if (id != kAccepted && g.char_sets[g.code[nodes_[id].pos].index].matches_some(first, last))
            return true;
    return false;
}

bool GrammarMatcher::advance(const GrammarState& from, uint8_t byte, GrammarState& to) {
    to.stacks.clear();
    to.utf8_value = 0;
    to.utf8_least = 0;
    to.utf8_pending = 0;
    if (from.utf8_pending == 0) {
        if (byte < 0x80) {
            step(from.stacks, byte, to.stacks);
            return !to.dead();
        }
        // The first byte of a longer character: which characters it may begin.
        uint8_t pending;
        if ((byte & 0xE0) == 0xC0 && byte >= 0xC2) {
            pending = 1;
            to.utf8_value = byte & 0x1F;
            to.utf8_least = 0x80;
        } else if ((byte & 0xF0) == 0xE0) {
            pending = 2;
            to.utf8_value = byte & 0x0F;
            to.utf8_least = 0x800;
        } else if ((byte & 0xF8) == 0xF0 && byte <= 0xF4) {
            pending = 3;
            to.utf8_value = byte & 0x07;
            to.utf8_least = 0x10000;
        } else {
            return false; // a continuation byte, or no UTF-8 at all
        }
        to.utf8_pending = pending;
    } else {
        if ((byte & 0xC0) != 0x80) return false;
        to.utf8_value = (from.utf8_value << 6) | (byte & 0x3F);
        to.utf8_least = from.utf8_least;
        to.utf8_pending = static_cast<uint8_t>(from.utf8_pending - 1);
        if (to.utf8_pending == 0) {
            const uint32_t c = to.utf8_value;
            to.utf8_value = 0;
            // An overlong form ("{" as E0 81 BB) is no character: decoders show U+FFFD.
            if (c < to.utf8_least || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return false;
            to.utf8_least = 0;
            step(from.stacks, c, to.stacks);
            return !to.dead();
        }
    }
    const unsigned shift = 6u * to.utf8_pending;
    const uint32_t first = std::max(to.utf8_value << shift, to.utf8_least);
    const uint32_t last = std::min<uint32_t>((to.utf8_value << shift) | ((1u << shift) - 1), 0x10FFFF);
    if (first > last || (first >= 0xD800 && last <= 0xDFFF) || !can_begin(from.stacks, first, last))
        return false;
    to.stacks = from.stacks;
    return true;
}

bool GrammarMatcher::advance(GrammarState& state, std::string_view bytes) {
    GrammarState next;
    for (const char byte : bytes) {
        if (!advance(state, static_cast<uint8_t>(byte), next)) {
            state.stacks.clear();
            return false;
        }
        std::swap(state, next);
    }
    return true;
}

bool GrammarMatcher::accepting(const GrammarState& state) {
    return state.utf8_pending == 0 &&
           std::find(state.stacks.begin(), state.stacks.end(), kAccepted) != state.stacks.end();
}

bool GrammarMatcher::finished(const GrammarState& state) {
    return state.utf8_pending == 0 && state.stacks.size() == 1 && state.stacks[0] == kAccepted;
}

} // namespace hearth::engine
