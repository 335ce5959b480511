#include "app/server/stop_strings.h"
#include <algorithm>

namespace hearth::server {

QString StopStrings::push(const QString& piece) {
    if (stopped_) return {};
    pending_ += piece;
    qsizetype first = -1;
    for (const QString& stop : stops_) {
        const qsizetype at = pending_.indexOf(stop);
        if (at >= 0 && (first < 0 || at < first)) first = at;
    }
    if (first >= 0) {
        stopped_ = true;
        QString out = pending_.left(first);
        pending_.clear();
        return out;
    }
    // Hold back the longest tail that is the beginning of some stop string.
    qsizetype hold = 0;
    for (const QString& stop : stops_) {
        const qsizetype most = std::min(stop.size() - 1, pending_.size());
        for (qsizetype n = most; n > hold; --n)
            if (QStringView(pending_).right(n) == QStringView(stop).left(n)) {
                hold = n;
                break;
            }
    }
    QString out = pending_.left(pending_.size() - hold);
    pending_.remove(0, out.size());
    return out;
}

QString StopStrings::flush() {
    QString out = stopped_ ? QString() : pending_;
    pending_.clear();
    return out;
}

} // namespace hearth::server
