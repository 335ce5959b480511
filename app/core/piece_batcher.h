#pragma once
// Collects streamed text on the inference thread and says when to hand it to
// the GUI: the first piece at once (so the first token shows without delay),
// then at most once per interval (the worker uses 50 ms: 20 updates a second).
#include <QString>
#include <chrono>
#include <string>
#include <string_view>

namespace hearth::app {

class PieceBatcher {
public:
    using Clock = std::chrono::steady_clock;
    explicit PieceBatcher(std::chrono::milliseconds interval) : interval_(interval) {}

    void add(std::string_view piece) { buffer_.append(piece); }
    [[nodiscard]] bool empty() const { return buffer_.empty(); }
    [[nodiscard]] bool due(Clock::time_point now) const {
        return !buffer_.empty() && (!flushed_ || now - lastFlush_ >= interval_);
    }
    [[nodiscard]] bool due() const { return due(Clock::now()); }
    // The text collected since the last take (UTF-8 pieces are whole characters).
    QString take(Clock::time_point now);
    QString take() { return take(Clock::now()); }

private:
    std::chrono::milliseconds interval_;
    std::string buffer_;
    Clock::time_point lastFlush_{};
    bool flushed_ = false;
};

} // namespace hearth::app
