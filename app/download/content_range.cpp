#include "app/download/content_range.h"
#include <QList>

namespace hearth::download {

namespace {

// A non-negative decimal of at most 18 digits (no sign, no spaces), else -1.
qint64 parseCount(const QByteArray& digits) {
    if (digits.isEmpty() || digits.size() > 18) return -1;
    qint64 value = 0;
    for (const char c : digits) {
        if (c < '0' || c > '9') return -1;
        value = value * 10 + (c - '0');
    }
    return value;
}

} // namespace

std::optional<ContentRange> parseContentRange(const QByteArray& header) {
    const QByteArray text = header.trimmed();
    if (!text.startsWith("bytes ")) return std::nullopt;
    const QList<QByteArray> rangeAndTotal = text.mid(6).trimmed().split('/');
    if (rangeAndTotal.size() != 2) return std::nullopt;
    ContentRange range;
    if (rangeAndTotal[1] != "*") {
        range.total = parseCount(rangeAndTotal[1]);
        if (range.total < 0) return std::nullopt;
    }
    if (rangeAndTotal[0] == "*") return range.total >= 0 ? std::optional(range) : std::nullopt;
    const QList<QByteArray> bounds = rangeAndTotal[0].split('-');
    if (bounds.size() != 2) return std::nullopt;
    range.first = parseCount(bounds[0]);
    range.last = parseCount(bounds[1]);
    if (range.first < 0 || range.last < range.first) return std::nullopt;
    if (range.total >= 0 && range.last >= range.total) return std::nullopt;
    return range;
}

} // namespace hearth::download
