#pragma once
// Collects streamed text on the inference thread and says when to hand it to
// the GUI: the first piece at once (so the first token shows without delay),
// then at most once per interval (the worker uses 50 ms: 20 updates a second).
// The GUI lays the growing paragraph out again at every update, a cost that grows
// with the paragraph and that, on a machine whose cores all generate, is taken from
// generation: past kLongParagraph bytes the interval grows by one interval per
// kLongParagraph bytes, up to kMaxSlowdown times, and returns to the base at the
// next paragraph break.
#include <QString>
#include <algorithm>
#include <chrono>
#include <string>
#include <string_view>

namespace hearth::app {

class PieceBatcher {
public:
    using Clock = std::chrono::steady_clock;
    static constexpr size_t kLongParagraph = 500;
    static constexpr int kMaxSlowdown = 4;
    explicit PieceBatcher(std::chrono::milliseconds interval) : interval_(interval) {}

    void add(std::string_view piece);
    [[nodiscard]] bool empty() const { return buffer_.empty(); }
    [[nodiscard]] bool due(Clock::time_point now) const {
        return !buffer_.empty() && (!flushed_ || now - lastFlush_ >= interval());
    }
    // The wait between two hand-overs for the paragraph now growing.
    [[nodiscard]] std::chrono::milliseconds interval() const {
        const auto slowdown = std::min<size_t>(kMaxSlowdown, 1 + paragraphBytes_ / kLongParagraph);
        return interval_ * static_cast<int>(slowdown);
    }
    [[nodiscard]] bool due() const { return due(Clock::now()); }
    // The text collected since the last take (UTF-8 pieces are whole characters).
    QString take(Clock::time_point now);
    QString take() { return take(Clock::now()); }

private:
    std::chrono::milliseconds interval_;
    std::string buffer_;
    size_t paragraphBytes_ = 0; // since the last blank line
    bool lastWasNewline_ = false;
    Clock::time_point lastFlush_{};
    bool flushed_ = false;
};

} // namespace hearth::app
