#include "app/download/transfer_rate.h"

namespace hearth::download {

void TransferRate::restart() {
    samples_.clear();
    clock_.start();
}

void TransferRate::record(qint64 bytes) {
    if (!clock_.isValid()) clock_.start();
    const qint64 now = clock_.elapsed();
    samples_.push_back({now, bytes});
    // Keep one sample older than the window, so the window is always spanned.
    while (samples_.size() > 2 && samples_[1].msecs < now - kWindowMsecs)
        samples_.pop_front();
}

double TransferRate::bytesPerSecond() const {
    if (samples_.size() < 2) return 0;
    const Sample& first = samples_.front();
    const Sample& last = samples_.back();
    const qint64 msecs = last.msecs - first.msecs;
    if (msecs < 200) return 0; // too short a span to say anything
    return double(last.bytes - first.bytes) * 1000.0 / double(msecs);
}

double TransferRate::secondsLeft(qint64 received, qint64 total) const {
    const double speed = bytesPerSecond();
    if (total < 0 || speed <= 0) return -1;
    return double(std::max<qint64>(0, total - received)) / speed;
}

} // namespace hearth::download
