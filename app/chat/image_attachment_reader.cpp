#include "app/chat/image_attachment_reader.h"
#include "app/chat/message_images.h"
#include "engine/error.h"
#include "engine/vision/image_decode.h"
#include <QBuffer>
#include <QFile>
#include <QFileInfo>
#include <span>

namespace hearth::app {
namespace {

constexpr qint64 kMaxBytes = static_cast<qint64>(vision::kMaxImageFileBytes);

QString mebibytes(qint64 bytes) {
    return QString::number(static_cast<double>(bytes) / (1024.0 * 1024.0), 'f', bytes < (10 << 20) ? 1 : 0);
}

// The engine's message without the name it starts with ("<name>: <problem>").
QString problemOf(const hearth::Error& error, const QString& name) {
    QString message = QString::fromStdString(error.what());
    const QString prefix = name + QStringLiteral(": ");
    if (message.startsWith(prefix)) message.remove(0, prefix.size());
    return message;
}

} // namespace

ImageAttachmentRead ImageAttachmentReader::readFile(const QString& path) {
    const QFileInfo info(path);
    const QString name = info.fileName();
    if (info.isDir())
        return {std::nullopt, tr("%1 cannot be attached: it is a folder, not an image.").arg(name)};
    if (!info.exists()) return {std::nullopt, tr("%1 cannot be attached: there is no such file.").arg(name)};
    const QString tooLarge =
        tr("%1 cannot be attached: it is %2 MiB, more than the %3 MiB an image may have.");
    if (info.size() > kMaxBytes)
        return {std::nullopt, tooLarge.arg(name, mebibytes(info.size()), mebibytes(kMaxBytes))};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {std::nullopt,
                tr("%1 cannot be attached: it cannot be read (%2).").arg(name, file.errorString())};
    QByteArray bytes = file.read(kMaxBytes + 1); // a file that grew since it was measured is cut here
    if (bytes.size() > kMaxBytes)
        return {std::nullopt, tooLarge.arg(name, mebibytes(bytes.size()), mebibytes(kMaxBytes))};
    if (file.error() != QFileDevice::NoError)
        return {std::nullopt,
                tr("%1 cannot be attached: it cannot be read (%2).").arg(name, file.errorString())};
    try { // decoded as the engine will decode it, so that a reply never meets an image it cannot read
        const auto* first = reinterpret_cast<const uint8_t*>(bytes.constData());
        vision::decode_image(std::span<const uint8_t>(first, static_cast<size_t>(bytes.size())),
                             name.toStdString());
    } catch (const hearth::Error& error) {
        return {std::nullopt, tr("%1 cannot be attached: %2.").arg(name, problemOf(error, name))};
    }
    return {messageImage(std::move(bytes), name), {}};
}

ImageAttachmentRead ImageAttachmentReader::fromPicture(const QImage& picture, const QString& name) {
    if (picture.isNull())
        return {std::nullopt, tr("%1 cannot be attached: the clipboard's image is empty.").arg(name)};
    if (picture.width() > vision::kMaxImageSide || picture.height() > vision::kMaxImageSide)
        return {std::nullopt,
                tr("%1 cannot be attached: it is %2x%3 pixels, more than the %4x%4 an image may have.")
                    .arg(name)
                    .arg(picture.width())
                    .arg(picture.height())
                    .arg(vision::kMaxImageSide)};
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!picture.save(&buffer, "PNG"))
        return {std::nullopt, tr("%1 cannot be attached: it cannot be stored as PNG.").arg(name)};
    if (bytes.size() > kMaxBytes)
        return {std::nullopt,
                tr("%1 cannot be attached: it is %2 MiB, more than the %3 MiB an image may have.")
                    .arg(name, mebibytes(bytes.size()), mebibytes(kMaxBytes))};
    return {messageImage(std::move(bytes), name), {}};
}

bool ImageAttachmentReader::isImageFileUrl(const QUrl& url) {
    if (!url.isLocalFile()) return false;
    const QString suffix = QFileInfo(url.toLocalFile()).suffix().toLower();
    return suffix == QLatin1String("png") || suffix == QLatin1String("jpg") ||
           suffix == QLatin1String("jpeg") || suffix == QLatin1String("webp");
}

QString ImageAttachmentReader::pastedImageName() {
    return tr("pasted image");
}

} // namespace hearth::app
