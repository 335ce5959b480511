#pragma once
// Feeding a file already on disk into a running SHA-256: a resumed download
// hashes its partial file first, so that the digest at the end covers every byte.
// Blocking file I/O: run it off the GUI thread (QtConcurrent).
#include <QCryptographicHash>
#include <QString>

namespace hearth::download {

// Adds the first `bytes` bytes of the file at `path` to `hash`; false when the file
// cannot be read or is shorter.
bool addFileToHash(const QString& path, qint64 bytes, QCryptographicHash& hash);

} // namespace hearth::download
