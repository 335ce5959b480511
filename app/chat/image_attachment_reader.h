#pragma once
// What the user attaches to a message, read on a pool thread (never the GUI's): an image file,
// checked to be one the engine reads (PNG, JPEG or WebP, at most vision::kMaxImageFileBytes,
// decodable, at most vision::kMaxImageSide a side), or a picture pasted from the clipboard,
// stored as PNG. A refusal is a sentence that names the file and says why.
#include "app/storage/records.h"
#include <QCoreApplication>
#include <QImage>
#include <QString>
#include <QUrl>
#include <optional>

namespace hearth::app {

struct ImageAttachmentRead {
    std::optional<MessageImage> image; // none: refused, and `error` says why
    QString error;
};

class ImageAttachmentReader {
    Q_DECLARE_TR_FUNCTIONS(ImageAttachmentReader)

public:
    static ImageAttachmentRead readFile(const QString& path);
    static ImageAttachmentRead fromPicture(const QImage& picture, const QString& name);
    // A local file whose name ends as an image's (.png, .jpg, .jpeg, .webp): a drop or a paste
    // of such files is meant as images. Its bytes decide when it is read.
    static bool isImageFileUrl(const QUrl& url);
    // The name a pasted picture gets in the message.
    static QString pastedImageName();
};

} // namespace hearth::app
