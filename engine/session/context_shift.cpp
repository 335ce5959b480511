#include "engine/session/context_shift.h"
#include <algorithm>
#include <ranges>

namespace hearth::engine {

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

namespace {
// discard_to_turn_start over the starts of the turns after the first: turn 0 starts before
// anything a shift can drop.
std::optional<int32_t> turn_aligned_discard(const TurnStarts& starts, int32_t from, int32_t needed,
                                            int32_t wanted, int32_t most) {
    const auto n_turns = static_cast<int32_t>(starts.turns()) - 1;
    return discard_to_turn_start(
        n_turns, [&](int32_t i) { return starts.start(static_cast<size_t>(i) + 1); }, from, needed, wanted,
        most);
}
} // namespace

std::optional<int32_t> tokens_to_drop_for_prompt(const TurnStarts& starts, int32_t keep, int32_t from,
                                                 int32_t in_view, int32_t need) {
    const int32_t shiftable = in_view - keep - 1;
    if (need > shiftable) return std::nullopt;
    const int32_t wanted = std::max(need, (in_view - keep) / 4);
    return turn_aligned_discard(starts, from, need, wanted, shiftable).value_or(std::min(shiftable, wanted));
}

int32_t tokens_to_drop_when_full(const TurnStarts& starts, int32_t keep, int32_t from, int32_t size) {
    const int32_t after_keep = size - keep;
    const int32_t half = after_keep / 2;
    if (half <= 0) return 0;
    return turn_aligned_discard(starts, from, 1, half, after_keep - 1).value_or(half);
}

} // namespace hearth::engine
