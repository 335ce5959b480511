#include "app/download/file_sha256.h"
#include <QFile>

namespace hearth::download {

bool addFileToHash(const QString& path, qint64 bytes, QCryptographicHash& hash) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return false;
    constexpr qint64 kChunk = 1 << 20;
    QByteArray buffer(kChunk, Qt::Uninitialized);
    for (qint64 left = bytes; left > 0;) {
        const qint64 n = file.read(buffer.data(), std::min(left, kChunk));
        if (n <= 0) return false;
        hash.addData(QByteArrayView(buffer.constData(), n));
        left -= n;
    }
    return true;
}

} // namespace hearth::download
