#pragma once
// Context shift: when a conversation fills the context, keep the first n_keep
// tokens (the system prompt), forget the oldest block after them, move the rest
// down and turn their keys back by the distance they moved, so that the cache
// reads as if those tokens had been computed at their new positions.
//
// RoPE turns each pair of a key by angle pos * theta_i; rotations compose, so a key
// computed at p and turned by -delta * theta_i equals the key computed at p - delta
// (up to rounding). Values carry no position and are only moved.
#include "engine/forward/kv_cache.h"
#include "engine/model/model.h"
#include <cstdint>
#include <functional>
#include <optional>

namespace hearth::engine {

// Whether cached keys can be moved to new positions by turning them: models with rotary
// positions. GPT-2's learned positions are added to the embeddings, so every layer's keys and
// values depend on them, and a shift must recompute what stays in view instead.
bool can_rotate_keys(const Model& model);

// Rotates the keys of positions [begin, end), every layer, by `delta` positions, each layer with
// its own rotation (a sliding-window layer's base, LongRoPE's factors). Requires can_rotate_keys.
void rotate_cached_keys(KvCache& cache, const Model& model, int32_t begin, int32_t end, int32_t delta);

// Drops positions [n_keep, n_keep + n_discard) and re-rotates the keys moved down.
void shift_context(KvCache& cache, const Model& model, int32_t n_keep, int32_t n_discard);

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
