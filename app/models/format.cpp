#include "app/models/format.h"

namespace hearth::app {

QString formatBytes(qint64 bytes) {
    static const char* const units[] = {"B", "KB", "MB", "GB", "TB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1000.0 && unit < 4) {
        value /= 1000.0;
        ++unit;
    }
    if (unit == 0) return QStringLiteral("%1 B").arg(bytes);
    return QStringLiteral("%1 %2")
        .arg(value, 0, 'f', value < 10 ? 2 : (value < 100 ? 1 : 0))
        .arg(units[unit]);
}

QString formatCount(qint64 count) {
    static const char* const suffixes[] = {"", "K", "M", "B", "T"};
    double value = static_cast<double>(count);
    int index = 0;
    while (value >= 1000.0 && index < 4) {
        value /= 1000.0;
        ++index;
    }
    if (index == 0) return QString::number(count);
    return QStringLiteral("%1%2").arg(value, 0, 'f', value < 10 ? 1 : 0).arg(suffixes[index]);
}

} // namespace hearth::app
