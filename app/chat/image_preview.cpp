#include "app/chat/image_preview.h"
#include "engine/error.h"
#include "engine/vision/image_decode.h"
#include <QBuffer>
#include <QImageReader>
#include <algorithm>
#include <span>

namespace hearth::app {
namespace {

// `size` scaled down to fit within `bounds` (a zero side of `bounds` leaves that side free).
QSize fitted(const QSize& size, const QSize& bounds) {
    if (!size.isValid() || (bounds.width() <= 0 && bounds.height() <= 0)) return size;
    const QSize limit(bounds.width() > 0 ? bounds.width() : size.width(),
                      bounds.height() > 0 ? bounds.height() : size.height());
    if (size.width() <= limit.width() && size.height() <= limit.height()) return size;
    // QSize::scaled rounds its ratio to whole numbers first (9x7 into 3x3 gave 3x3).
    const double scale =
        std::min(double(limit.width()) / size.width(), double(limit.height()) / size.height());
    return QSize(std::max(1, qRound(size.width() * scale)), std::max(1, qRound(size.height() * scale)));
}

QImage decodedByTheEngine(const QByteArray& bytes) {
    try {
        const auto* first = reinterpret_cast<const uint8_t*>(bytes.constData());
        const vision::RgbImage rgb =
            vision::decode_image(std::span<const uint8_t>(first, static_cast<size_t>(bytes.size())), "image");
        QImage image(rgb.width, rgb.height, QImage::Format_RGB888);
        const qsizetype rowBytes = qsizetype{rgb.width} * 3;
        for (int y = 0; y < rgb.height; ++y)
            std::copy_n(rgb.pixels.data() + y * rowBytes, rowBytes, image.scanLine(y));
        return image;
    } catch (const hearth::Error&) {
        return {};
    }
}

} // namespace

QImage previewImage(const QByteArray& bytes, const QSize& bounds, QSize* fullSize) {
    QBuffer buffer;
    buffer.setData(bytes);
    buffer.open(QIODevice::ReadOnly);
    QImageReader reader(&buffer);
    if (reader.canRead()) {
        const QSize size = reader.size();
        if (fullSize) *fullSize = size;
        const QSize shown = fitted(size, bounds);
        if (shown.isValid() && shown != size) reader.setScaledSize(shown); // JPEG decodes only what it needs
        QImage image = reader.read();
        if (!image.isNull()) return image;
    }
    QImage image = decodedByTheEngine(bytes);
    if (image.isNull()) return image;
    if (fullSize) *fullSize = image.size();
    const QSize shown = fitted(image.size(), bounds);
    return shown == image.size() ? image
                                 : image.scaled(shown, Qt::IgnoreAspectRatio,
                                                Qt::SmoothTransformation); // `shown` keeps the aspect
}

} // namespace hearth::app
