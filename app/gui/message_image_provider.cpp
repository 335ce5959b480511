#include "app/gui/message_image_provider.h"
#include "app/chat/image_library.h"
#include "app/chat/image_preview.h"

namespace hearth::app {

MessageImageProvider::MessageImageProvider(std::shared_ptr<const ImageLibrary> library)
    : QQuickImageProvider(QQuickImageProvider::Image, QQuickImageProvider::ForceAsynchronousImageLoading),
      library_(std::move(library)) {}

QImage MessageImageProvider::requestImage(const QString& id, QSize* size, const QSize& requestedSize) {
    const std::optional<QByteArray> bytes = library_->bytes(id);
    if (!bytes) return {}; // an image no message shows (any more): the Image shows an error
    QSize fullSize;
    QImage image = previewImage(*bytes, requestedSize, &fullSize);
    if (size) *size = fullSize;
    return image;
}

} // namespace hearth::app
