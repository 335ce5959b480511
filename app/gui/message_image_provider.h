#pragma once
// image://hearth-images/<sha256>: the chat's images (messages opened, images attached to the
// message being written) from the chat's ImageLibrary, decoded no larger than the Image's
// sourceSize. Qt Quick asks on its loader threads, never the GUI's.
#include <QQuickImageProvider>
#include <memory>

namespace hearth::app {

class ImageLibrary;

class MessageImageProvider : public QQuickImageProvider {
public:
    static constexpr const char* kProviderId = "hearth-images";

    explicit MessageImageProvider(std::shared_ptr<const ImageLibrary> library);
    QImage requestImage(const QString& id, QSize* size, const QSize& requestedSize) override;

private:
    std::shared_ptr<const ImageLibrary> library_;
};

} // namespace hearth::app
