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

} // namespace hearth::engine
