#pragma once
// The bytes of the images the chat can show, by SHA-256: those of the conversations opened and
// those attached to the message being written. The image provider reads them on Qt Quick's
// loader threads, so every member may be called from any thread. Each holder (a conversation's
// id, or the composer) replaces or drops its own images; a picture two holders share stays
// while either holds it.
#include "app/storage/records.h"
#include <QByteArray>
#include <QHash>
#include <QList>
#include <QReadWriteLock>
#include <QString>
#include <optional>

namespace hearth::app {

class ImageLibrary {
public:
    void setImages(const QString& holder, const QList<MessageImage>& images);
    void addImages(const QString& holder, const QList<MessageImage>& images);
    void drop(const QString& holder);
    [[nodiscard]] std::optional<QByteArray> bytes(const QString& sha256) const;

private:
    mutable QReadWriteLock lock_;
    QHash<QString, QHash<QString, QByteArray>> byHolder_; // holder -> sha256 -> bytes
};

} // namespace hearth::app
