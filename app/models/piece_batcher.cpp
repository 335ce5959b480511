#include "app/models/piece_batcher.h"

namespace hearth::app {

void PieceBatcher::add(std::string_view piece) {
    buffer_.append(piece);
    for (char c : piece) {
        const bool newline = c == '\n';
        paragraphBytes_ = newline && lastWasNewline_ ? 0 : paragraphBytes_ + 1; // a blank line ends it
        lastWasNewline_ = newline;
    }
}

QString PieceBatcher::take(Clock::time_point now) {
    QString text = QString::fromUtf8(buffer_.data(), static_cast<qsizetype>(buffer_.size()));
    buffer_.clear();
    lastFlush_ = now;
    flushed_ = true;
    return text;
}

} // namespace hearth::app
