#include "engine/session/turn_starts.h"
#include <algorithm>
#include <stdexcept>
#include <utility>

namespace hearth::engine {

namespace {
constexpr int32_t kUnknown = -1;
}

TurnStarts::TurnStarts(size_t n_turns, int32_t prompt_tokens, Finder find)
    : find_(std::move(find)), prompt_tokens_(prompt_tokens), starts_(n_turns, kUnknown) {
    if (!starts_.empty()) starts_[0] = 0;
}

int32_t TurnStarts::start(size_t turn) const {
    if (turn == starts_.size()) return prompt_tokens_;
    if (turn > starts_.size()) throw std::out_of_range("TurnStarts::start: no such turn");
    if (starts_[turn] == kUnknown) {
        starts_[turn] = find_(turn);
        ++lookups_;
    }
    return starts_[turn];
}

int32_t first_visible_turn(const TurnStarts& starts, std::span<const chat::ChatMessage> conversation,
                           int32_t n_keep, int32_t shifted_out) {
    if (shifted_out <= 0) return 0;
    const int32_t out_of_view = n_keep + shifted_out;
    // Turn ends only grow: bisect for the first turn that ends past the tokens out of view.
    size_t low = 0, high = std::min(starts.turns(), conversation.size());
    while (low < high) {
        const size_t middle = low + (high - low) / 2;
        if (starts.end(middle) <= out_of_view)
            low = middle + 1;
        else
            high = middle;
    }
    while (low < conversation.size() && conversation[low].role == chat::Role::System)
        ++low; // kept by the shift, wherever it ends
    return static_cast<int32_t>(low);
}

} // namespace hearth::engine
