#include "app/chat/message_images.h"
#include <QVariantMap>
#include <utility>

namespace hearth::app {

MessageImage messageImage(QByteArray bytes, QString name) {
    MessageImage image;
    image.sha256 = imageSha256(bytes);
    image.name = std::move(name);
    image.bytes = std::move(bytes);
    return image;
}

chat::ChatImage chatImage(const MessageImage& image) {
    const auto* first = reinterpret_cast<const uint8_t*>(image.bytes.constData());
    chat::ChatImage chatImage;
    chatImage.id = image.sha256.toStdString();
    chatImage.name = image.name.toStdString();
    chatImage.bytes = std::make_shared<const std::vector<uint8_t>>(first, first + image.bytes.size());
    return chatImage;
}

std::vector<chat::ChatImage> chatImages(const QList<MessageImage>& images) {
    std::vector<chat::ChatImage> converted;
    converted.reserve(images.size());
    for (const MessageImage& image : images)
        converted.push_back(chatImage(image));
    return converted;
}

QVariantList imagesForView(const QList<MessageImage>& images) {
    QVariantList list;
    for (const MessageImage& image : images)
        list.append(QVariantMap{{QStringLiteral("sha256"), image.sha256},
                                {QStringLiteral("name"), image.name},
                                {QStringLiteral("bytes"), image.bytes.size()}});
    return list;
}

} // namespace hearth::app
