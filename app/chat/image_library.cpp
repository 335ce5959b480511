#include "app/chat/image_library.h"

namespace hearth::app {

void ImageLibrary::setImages(const QString& holder, const QList<MessageImage>& images) {
    QHash<QString, QByteArray> held;
    for (const MessageImage& image : images)
        held.insert(image.sha256, image.bytes);
    const QWriteLocker locker(&lock_);
    if (held.isEmpty())
        byHolder_.remove(holder);
    else
        byHolder_.insert(holder, held);
}

void ImageLibrary::addImages(const QString& holder, const QList<MessageImage>& images) {
    if (images.isEmpty()) return;
    const QWriteLocker locker(&lock_);
    QHash<QString, QByteArray>& held = byHolder_[holder];
    for (const MessageImage& image : images)
        held.insert(image.sha256, image.bytes);
}

void ImageLibrary::drop(const QString& holder) {
    const QWriteLocker locker(&lock_);
    byHolder_.remove(holder);
}

std::optional<QByteArray> ImageLibrary::bytes(const QString& sha256) const {
    const QReadLocker locker(&lock_);
    for (const QHash<QString, QByteArray>& held : byHolder_) {
        const auto found = held.constFind(sha256);
        if (found != held.cend()) return *found; // implicitly shared: no copy of the bytes
    }
    return std::nullopt;
}

} // namespace hearth::app
