#pragma once
// An image's bytes as a picture to show, no larger than asked: thumbnails and the large view
// decode only what they draw. Qt's image plugins read PNG and JPEG (and WebP where
// qt6-image-formats-plugins is installed); the engine's decoder reads what they cannot, so a
// message shows every image the model reads. Safe on any thread.
#include <QByteArray>
#include <QImage>
#include <QSize>

namespace hearth::app {

// Fits within `bounds` keeping its aspect (an empty or invalid `bounds`: full size); never
// enlarged. `fullSize` (when given) receives the image's own size. A null image when the bytes
// are no image.
QImage previewImage(const QByteArray& bytes, const QSize& bounds, QSize* fullSize = nullptr);

} // namespace hearth::app
