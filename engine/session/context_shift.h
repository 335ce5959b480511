#pragma once
// Context shift, the session's half: when a conversation fills the context, the session keeps
// the first n_keep tokens (the system prompt) and forgets the oldest block after them, up to
// where a turn starts. This decides how much to drop; the forward pass moves the rest down and
// turns their keys back (Inference::shift_context).
#include <cstdint>
#include <functional>
#include <optional>

namespace hearth::engine {

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
