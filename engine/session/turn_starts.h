#pragma once
// Where each turn of a conversation starts among the tokens of its rendered prompt. Finding a
// start renders and tokenizes the turns before it, so each is found on first need and then
// kept for the rest of the reply: the prefill's shift, decoding's shifts and the first turn
// still in view ask for the same starts, and a conversation that never shifts asks for none.
#include "engine/chat/chat_template.h"
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace hearth::engine {

class TurnStarts {
public:
    // Where turn `turn` (0 < turn < n_turns) starts; nondecreasing in `turn`.
    using Finder = std::function<int32_t(size_t turn)>;

    // `prompt_tokens`: the length of the whole prompt, the end of the last turn (its
    // generation prompt included).
    TurnStarts(size_t n_turns, int32_t prompt_tokens, Finder find);

    size_t turns() const { return starts_.size(); }
    // Where `turn` starts: 0 for the first; turns() stands for the end of the prompt.
    int32_t start(size_t turn) const;
    // Where `turn` ends: where the next one starts, the end of the prompt for the last.
    int32_t end(size_t turn) const { return start(turn + 1); }
    // How many starts were looked up so far (each one a render and a tokenization).
    int32_t lookups() const { return lookups_; }

private:
    Finder find_;
    int32_t prompt_tokens_ = 0;
    mutable std::vector<int32_t> starts_; // kUnknown until looked up
    mutable int32_t lookups_ = 0;
};

// The first turn of `conversation` (whose turns start at `starts`) with tokens in the model's view after a
// shift kept its first `n_keep` tokens and put the next `shifted_out` out of view: the turns before it end
// within the tokens shifted out. System turns, which a shift keeps, are never it. 0 when
// nothing was shifted out; conversation.size() when every turn is out of view.
int32_t first_visible_turn(const TurnStarts& starts, std::span<const chat::ChatMessage> conversation,
                           int32_t n_keep, int32_t shifted_out);

} // namespace hearth::engine
