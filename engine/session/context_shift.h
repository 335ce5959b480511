#pragma once
// Context shift: when a conversation fills the context, keep the first n_keep
// tokens (the system prompt), forget the oldest block after them, move the rest
// down and turn their keys back by the distance they moved, so that the cache
// reads as if those tokens had been computed at their new positions.
//
// RoPE turns each pair of a key by angle pos * theta_i; rotations compose, so a key
// computed at p and turned by -delta * theta_i equals the key computed at p - delta
// (up to rounding). Values carry no position and are only moved.
#include "engine/model/model.h"
#include "engine/session/kv_cache.h"
#include <cstdint>

namespace hearth::engine {

// Rotates the keys of positions [begin, end), every layer, by `delta` positions.
void rotate_cached_keys(KvCache& cache, const Model& model, int32_t begin, int32_t end, int32_t delta);

// Drops positions [n_keep, n_keep + n_discard) and re-rotates the keys moved down.
void shift_context(KvCache& cache, const Model& model, int32_t n_keep, int32_t n_discard);

} // namespace hearth::engine
