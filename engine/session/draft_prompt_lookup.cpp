#include "engine/session/draft_prompt_lookup.h"
#include <algorithm>

namespace hearth::engine {

int32_t draft_by_prompt_lookup(std::span<const int32_t> history, int32_t max_ngram, std::span<int32_t> out) {
    const size_t size = history.size();
    for (size_t n = static_cast<size_t>(std::clamp(max_ngram, 1, 4)); n >= 1; --n) {
        if (size < n + 1) continue;
        const std::span<const int32_t> suffix = history.subspan(size - n);
        // The most recent occurrence first: it is likeliest to go on as the text does now.
        for (size_t start = size - n; start-- > 0;) {
            if (!std::equal(suffix.begin(), suffix.end(),
                            history.begin() + static_cast<std::ptrdiff_t>(start)))
                continue;
            const size_t follow = start + n;
            const size_t count = std::min(out.size(), size - follow);
            std::copy_n(history.begin() + static_cast<std::ptrdiff_t>(follow), count, out.begin());
            return static_cast<int32_t>(count);
        }
    }
    return 0;
}

} // namespace hearth::engine
