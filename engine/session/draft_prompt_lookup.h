#pragma once
// Prompt lookup, a drafter without a model: the reply often repeats the conversation (code to
// edit, a paragraph to rework, a story continuing its own phrases). Find the last n tokens earlier
// in the history and propose the tokens that followed them there.
#include <cstdint>
#include <span>

namespace hearth::engine {

// Writes up to out.size() tokens that followed the most recent earlier occurrence of the
// history's last n tokens, trying n = max_ngram (1..4) down to 1; returns how many. `history` is
// the whole conversation so far: system prompt, earlier turns, the reply so far. Allocates nothing.
int32_t draft_by_prompt_lookup(std::span<const int32_t> history, int32_t max_ngram, std::span<int32_t> out);

} // namespace hearth::engine
