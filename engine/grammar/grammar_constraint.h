#pragma once
// A grammar as the sampler's constraint on the next token. The state is the text generated so
// far; allows() checks one token (the sampler's first draw, usually allowed), allowed_tokens()
// walks the vocabulary's trie once and masks every token (kept for the last few states, which a
// generation inside one string or number meets again and again). The walk meets few distinct
// grammar states ("ab" and "cd" inside a string lead to the same one), so each state is
// numbered once and each (state, byte) step computed once per walk, then looked up. End tokens
// are allowed when the text is a whole sentence of the grammar; finished() says nothing else can
// come.
#include "engine/grammar/grammar_matcher.h"
#include "engine/grammar/token_trie.h"
#include "engine/sampling/sampler.h"
#include <memory>

namespace hearth::engine {

class GrammarConstraint final : public TokenConstraint {
public:
    GrammarConstraint(std::shared_ptr<const Grammar> grammar, std::shared_ptr<const TokenTrie> vocabulary);

    bool allows(int32_t token) override;
    std::span<const uint8_t> allowed_tokens() override;
    // The token was chosen: the state moves past its bytes. False if the grammar refuses it.
    bool accept(int32_t token);
    // How many of `tokens`, from the first, the grammar takes one after another from the current
    // state (an end token counts when the text before it is complete, and ends the run). The
    // state is left as it was: speculative decoding cuts a draft where the grammar refuses it.
    size_t allowed_prefix(std::span<const int32_t> tokens);

    // The vocabulary's walk alone, without the cache (what a state not seen lately costs).
    void compute_mask(std::vector<uint8_t>& mask);

    [[nodiscard]] bool finished() const { return GrammarMatcher::finished(state_); }
    [[nodiscard]] bool accepting() const { return GrammarMatcher::accepting(state_); }

private:
    struct CachedMask {
        GrammarState state;
        std::vector<uint8_t> mask;
        uint64_t last_used = 0;
        bool valid = false;
    };

    static constexpr int32_t kUnknown = -2; // a step not computed yet in this walk
    static constexpr int32_t kDead = -1;    // a step the grammar refuses

    int32_t number_state(const GrammarState& state); // the walk's id of the state
    int32_t step(int32_t from, uint8_t byte);        // the id after one byte, or kDead

    GrammarMatcher matcher_;
    std::shared_ptr<const TokenTrie> vocabulary_;
    GrammarState state_;
    GrammarState scratch_;
    std::vector<int32_t> by_depth_;         // the walk's state id after each byte of a prefix
    std::vector<GrammarState> walk_states_; // the distinct states of this walk, by id
    size_t walk_state_count_ = 0;
    std::vector<int32_t> state_slots_; // open addressing over walk_states_: id + 1, 0 free
    std::vector<int32_t> transitions_; // per state id, 256 next ids (kUnknown, kDead or an id)
    GrammarState next_;
    std::vector<CachedMask> cache_;
    uint64_t uses_ = 0;
};

} // namespace hearth::engine
