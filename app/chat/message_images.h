#pragma once
// A message's images in the three forms they take: the record the store keeps (MessageImage: the
// file's bytes in a QByteArray), the turn the engine reads (chat::ChatImage: the same bytes,
// shared) and the list QML shows.
#include "app/storage/records.h"
#include "engine/chat/chat_image.h"
#include <QByteArray>
#include <QList>
#include <QString>
#include <QVariantList>
#include <vector>

namespace hearth::app {

// The image of those bytes, its id their SHA-256 (64 lowercase hex digits), as the database and
// the engine know it.
MessageImage messageImage(QByteArray bytes, QString name);
// Copies the bytes once into the engine's shared buffer.
chat::ChatImage chatImage(const MessageImage& image);
std::vector<chat::ChatImage> chatImages(const QList<MessageImage>& images);
// For QML: each image as {sha256, name, bytes (its size)}.
QVariantList imagesForView(const QList<MessageImage>& images);

} // namespace hearth::app
