#pragma once
// What the download suites share: file contents with a known digest, and running
// a download until it stops (no timing decides a result: the waits only bound a hang).
#include "app/download/download.h"
#include <QCryptographicHash>
#include <QFile>
#include <QSignalSpy>

namespace hearth::test {

// `size` bytes that are not all alike (a pattern a wrong offset would break).
inline QByteArray patternedBytes(qint64 size) {
    QByteArray bytes(size, Qt::Uninitialized);
    quint32 state = 2463534242u;
    for (qint64 i = 0; i < size; ++i) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        bytes[i] = char(state & 0xff);
    }
    return bytes;
}

inline QByteArray sha256Hex(const QByteArray& bytes) {
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

inline QByteArray fileBytes(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

inline bool writeBytes(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(bytes) == bytes.size();
}

// Starts (or resumes) and waits until the download stops; false if it never does.
inline bool runUntilStopped(download::Download& download) {
    QSignalSpy stopped(&download, &download::Download::stopped);
    download.start();
    return !stopped.isEmpty() || stopped.wait(60000);
}

} // namespace hearth::test
