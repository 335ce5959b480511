#include "app/core/piece_batcher.h"

namespace hearth::app {

QString PieceBatcher::take(Clock::time_point now) {
    QString text = QString::fromUtf8(buffer_.data(), static_cast<qsizetype>(buffer_.size()));
    buffer_.clear();
    lastFlush_ = now;
    flushed_ = true;
    return text;
}

} // namespace hearth::app
