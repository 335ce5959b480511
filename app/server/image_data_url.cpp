#include "app/server/image_data_url.h"
#include "engine/vision/image_decode.h"
#include <QByteArray>
#include <QStringList>

namespace hearth::server {

namespace {
const QStringList& readableTypes() {
    // image/jpg is not registered, but clients write it.
    static const QStringList types = {"image/png", "image/jpeg", "image/jpg", "image/webp"};
    return types;
}

DataUrlError notADataUrl() {
    return {QStringLiteral("This server never fetches image URLs. Send the image in the request as a "
                           "base64 data URL, e.g. \"data:image/png;base64,iVBORw0KGgo…\"."),
            QStringLiteral("invalid_image_url")};
}
DataUrlError tooLarge() {
    return {QStringLiteral("The image is larger than %1 MiB.").arg(vision::kMaxImageFileBytes >> 20),
            QStringLiteral("image_too_large")};
}
} // namespace

std::variant<std::vector<uint8_t>, DataUrlError> imageFromDataUrl(const QString& url) {
    if (!url.startsWith(QLatin1String("data:"), Qt::CaseInsensitive)) return notADataUrl();
    const qsizetype comma = url.indexOf(QLatin1Char(','));
    if (comma < 0)
        return DataUrlError{QStringLiteral("The image's data URL has no ',' before its data."),
                            QStringLiteral("invalid_image_url")};
    // "data:" media type, its parameters, then ";base64".
    const QStringList header = url.mid(5, comma - 5).split(QLatin1Char(';'));
    const QString type = header.first().trimmed().toLower();
    if (!readableTypes().contains(type))
        return DataUrlError{
            type.startsWith(QLatin1String("image/"))
                ? QStringLiteral("Images of type '%1' are not supported: send PNG, JPEG or WebP.").arg(type)
                : QStringLiteral("The data URL holds '%1', not an image: send image/png, image/jpeg or "
                                 "image/webp.")
                      .arg(type.isEmpty() ? QStringLiteral("text/plain") : type),
            QStringLiteral("invalid_image_format")};
    if (header.last().trimmed().compare(QLatin1String("base64"), Qt::CaseInsensitive) != 0)
        return DataUrlError{
            QStringLiteral("The image's data URL must be base64: \"data:%1;base64,…\".").arg(type),
            QStringLiteral("invalid_image_url")};

    QByteArray encoded = url.mid(comma + 1).toLatin1();
    encoded.removeIf([](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }); // wrapped lines
    const qsizetype unpadded = encoded.size() - (encoded.endsWith("==") ? 2 : encoded.endsWith('=') ? 1 : 0);
    if (static_cast<size_t>(unpadded / 4) * 3 > vision::kMaxImageFileBytes) return tooLarge();
    const auto decoded = QByteArray::fromBase64Encoding(encoded, QByteArray::Base64Encoding |
                                                                     QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded || unpadded % 4 == 1) // one character left over cannot be a byte
        return DataUrlError{QStringLiteral("The image's data URL is not valid base64."),
                            QStringLiteral("invalid_image_url")};
    if (decoded.decoded.isEmpty())
        return DataUrlError{QStringLiteral("The image's data URL holds no data."),
                            QStringLiteral("invalid_image_url")};
    if (static_cast<size_t>(decoded.decoded.size()) > vision::kMaxImageFileBytes) return tooLarge();
    return std::vector<uint8_t>(decoded.decoded.begin(), decoded.decoded.end());
}

} // namespace hearth::server
