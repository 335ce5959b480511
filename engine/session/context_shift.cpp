#include "engine/session/context_shift.h"
#include "engine/forward/transformer_ops.h"
#include "kernels/fp16.h"
#include <algorithm>
#include <ranges>
#include <stdexcept>
#include <vector>

namespace hearth::engine {

bool can_rotate_keys(const Model& model) {
    return model.hparams().traits.positions == PositionKind::Rope;
}

void rotate_cached_keys(KvCache& cache, const Model& model, int32_t begin, int32_t end, int32_t delta) {
    if (delta == 0 || begin >= end) return;
    if (!can_rotate_keys(model))
        throw std::logic_error("rotate_cached_keys: the model's positions are not rotary");
    const HyperParams& hp = model.hparams();
    const ModelWeights& w = model.weights();
    // The factors the forward pass rotated these keys with: LongRoPE's long ones once the cache
    // is longer than the original context, else the short ones (or Llama 3's rope_freqs).
    const bool long_context = !w.rope_factors_long.empty() && cache.capacity() > hp.n_ctx_orig;
    const std::vector<float> factors =
        rope_frequency_factors(hp, long_context                    ? w.rope_factors_long
                                   : !w.rope_factors_short.empty() ? w.rope_factors_short
                                                                   : w.rope_freq_factors);
    // One table row per rotation (global layers, local ones): the cos/sin of turning by `delta`
    // positions, every pair; a pure rotation, without LongRoPE's attention factor.
    const auto turn_for = [&](RopeConfig config) {
        config.attn_factor = 1.0f;
        std::vector<float> turn(static_cast<size_t>(hp.rope_dim));
        rope_tables(hp, config, factors.data(), delta, 1, turn.data());
        return turn;
    };
    const std::vector<float> global_turn = turn_for(global_rope(hp));
    const std::vector<float> local_turn = turn_for(local_rope(hp));

    const auto width = static_cast<size_t>(cache.kv_width());
    std::vector<float> row(width);
    for (int32_t layer = 0; layer < cache.n_layer(); ++layer) {
        const float* turn = hp.layer_is_local(layer) ? local_turn.data() : global_turn.data();
        for (int32_t pos = begin; pos < end; ++pos) {
            // Widen (F16 or quantized) to F32, rotate with the model's own layout (NeoX or not),
            // round back to the cache's type.
            cache.read_row_f32(KvCache::Part::Keys, layer, pos, row.data());
            apply_rope(hp, turn, 1, row.data(), hp.n_head_kv);
            cache.write_row_f32(KvCache::Part::Keys, layer, pos, row.data());
        }
    }
}

void shift_context(KvCache& cache, const Model& model, int32_t n_keep, int32_t n_discard) {
    cache.discard(n_keep, n_discard);
    rotate_cached_keys(cache, model, n_keep, cache.size(), -n_discard);
}

std::optional<int32_t> discard_to_turn_start(int32_t n_turns,
                                             const std::function<int32_t(int32_t)>& turn_start, int32_t from,
                                             int32_t needed, int32_t wanted, int32_t most) {
    if (n_turns <= 0 || needed > most) return std::nullopt;
    wanted = std::clamp(wanted, needed, most);
    // Turn starts only grow, so the first one far enough is found by bisection: each
    // lookup renders and tokenizes the conversation up to that turn.
    const auto turns = std::views::iota(int32_t{0}, n_turns);
    const auto far_enough =
        std::ranges::partition_point(turns, [&](int32_t i) { return turn_start(i) < from + wanted; });
    const auto first_far_enough = static_cast<int32_t>(far_enough - turns.begin());
    if (first_far_enough < n_turns) {
        const int32_t start = turn_start(first_far_enough);
        if (start <= from + most) return start - from;
    }
    if (first_far_enough > 0) {
        const int32_t start = turn_start(first_far_enough - 1);
        if (start >= from + needed && start <= from + most) return start - from;
    }
    return std::nullopt;
}

} // namespace hearth::engine
