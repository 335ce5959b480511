#pragma once
// Context shift, the session's half: when a conversation fills the context, the session keeps
// the first n_keep tokens (the system prompt) and forgets the oldest block after them, up to
// where a turn starts. This decides how much to drop; the forward pass moves the rest down and
// turns their keys back (Inference::shift_context).
#include "engine/session/turn_starts.h"
#include <cstdint>
#include <functional>
#include <optional>

namespace hearth::engine {

// How many tokens to drop before a prefill, for a prompt of `in_view` tokens in the model's view
// that lacks `need` positions for itself and its reply. The first `keep` tokens stay; the token
// after them is at logical position `from` of the conversation, whose turns start at `starts`.
// At least `need`, at least a quarter of what follows the kept prefix (so that shifts are not
// needed every turn), up to where a turn starts; a plain block of tokens only when one turn is
// too long for that. nullopt when dropping every token after the kept prefix but the last is
// not enough (the message is too long).
std::optional<int32_t> tokens_to_drop_for_prompt(const TurnStarts& starts, int32_t keep, int32_t from,
                                                 int32_t in_view, int32_t need);

// How many tokens to drop when decoding has filled a cache of `size` tokens: about half of what
// follows the kept prefix of `keep` tokens, like llama.cpp, up to where a turn starts when one
// does (`from`, `starts` as above). 0 when there is nothing to drop.
int32_t tokens_to_drop_when_full(const TurnStarts& starts, int32_t keep, int32_t from, int32_t size);

// How many tokens a shift drops from logical position `from` so that what stays in view
// resumes at the start of a turn: the fewest that reach a turn start at least `wanted`
// tokens on, else the most that reach one at least `needed` tokens on, never more than
// `most`. Turn i starts at turn_start(i), nondecreasing for i in [0, n_turns). nullopt
// when no turn starts in [from + needed, from + most]: a single turn is longer than what
// must be dropped, and the caller drops a plain block of tokens instead.
std::optional<int32_t> discard_to_turn_start(int32_t n_turns,
                                             const std::function<int32_t(int32_t)>& turn_start, int32_t from,
                                             int32_t needed, int32_t wanted, int32_t most);

} // namespace hearth::engine
