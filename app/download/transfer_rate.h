#pragma once
// Speed and time left of a transfer, from the bytes seen over the last few
// seconds (a whole-run average would hide a stall, a per-chunk one would jitter).
#include <QElapsedTimer>
#include <deque>

namespace hearth::download {

class TransferRate {
public:
    void restart();
    // `bytes` is the running total; a sample per network chunk is fine.
    void record(qint64 bytes);
    [[nodiscard]] double bytesPerSecond() const;
    // -1 when unknown (no speed yet, or no total).
    [[nodiscard]] double secondsLeft(qint64 received, qint64 total) const;

private:
    struct Sample {
        qint64 msecs;
        qint64 bytes;
    };
    static constexpr qint64 kWindowMsecs = 5000;
    QElapsedTimer clock_;
    std::deque<Sample> samples_;
};

} // namespace hearth::download
