#pragma once
// The Content-Range header of a 206 (or 416) answer: "bytes 100-199/1000",
// "bytes 100-199/*" or "bytes */1000".
#include <QByteArray>
#include <optional>

namespace hearth::download {

struct ContentRange {
    qint64 first = -1; // -1 with "*" (a 416 answer)
    qint64 last = -1;
    qint64 total = -1; // -1 when the server does not know ("/*")
};

// nullopt for anything malformed, negative or inverted.
std::optional<ContentRange> parseContentRange(const QByteArray& header);

} // namespace hearth::download
