#include "app/chat/image_attachments.h"
#include "app/chat/image_attachment_reader.h"
#include "app/chat/image_library.h"
#include "app/models/model_controller.h"
#include <QClipboard>
#include <QGuiApplication>
#include <QImage>
#include <QMimeData>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <qcoro/qcorofuture.h>

namespace hearth::app {
namespace {
// The library's holder for the composer's images (conversations hold theirs by their UUIDs).
const QString kComposerHolder = QStringLiteral("composer");
} // namespace

ImageAttachments::ImageAttachments(ModelController* models, std::shared_ptr<ImageLibrary> library,
                                   QObject* parent)
    : QAbstractListModel(parent), models_(models), library_(std::move(library)) {
    connect(models, &ModelController::stateChanged, this, &ImageAttachments::refusalChanged);
}

int ImageAttachments::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
}

QVariant ImageAttachments::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const MessageImage& image = images_.at(index.row());
    switch (role) {
    case Sha256Role:
        return image.sha256;
    case Qt::DisplayRole:
    case NameRole:
        return image.name;
    case BytesRole:
        return qint64{image.bytes.size()};
    default:
        return {};
    }
}

QHash<int, QByteArray> ImageAttachments::roleNames() const {
    return {{Sha256Role, "sha256"}, {NameRole, "name"}, {BytesRole, "bytes"}};
}

QString ImageAttachments::refusal() const {
    if (!models_->loaded())
        return tr(
            "No model is loaded: load a vision model with its image projector (mmproj) to attach images.");
    if (!models_->imageInput())
        return tr("%1 reads no images: load a vision model with its image projector (mmproj)")
            .arg(models_->modelName());
    return {};
}

bool ImageAttachments::isImageUrl(const QUrl& url) {
    return ImageAttachmentReader::isImageFileUrl(url);
}

bool ImageAttachments::areImageUrls(const QList<QUrl>& urls) {
    return !urls.isEmpty() && std::all_of(urls.cbegin(), urls.cend(), &ImageAttachments::isImageUrl);
}

bool ImageAttachments::checkAccepted() {
    const QString why = refusal();
    if (why.isEmpty()) return true;
    emit failed(why);
    return false;
}

bool ImageAttachments::attachFiles(const QList<QUrl>& urls) {
    if (urls.isEmpty() || !checkAccepted()) return false;
    QStringList paths;
    QStringList refused;
    for (const QUrl& url : urls) {
        if (url.isLocalFile())
            paths.append(url.toLocalFile());
        else
            refused.append(tr("%1 cannot be attached: only files on this computer can.")
                               .arg(url.toString(QUrl::RemoveUserInfo | QUrl::RemoveQuery)));
    }
    if (!refused.isEmpty()) emit failed(refused.join(QLatin1Char('\n')));
    if (paths.isEmpty()) return false;
    readFiles(paths);
    return true;
}

bool ImageAttachments::pasteFromClipboard() {
    const QClipboard* clipboard = QGuiApplication::clipboard();
    return clipboard && paste(clipboard->mimeData());
}

bool ImageAttachments::paste(const QMimeData* data) {
    if (!data) return false;
    if (data->hasImage()) {
        const QImage picture = qvariant_cast<QImage>(data->imageData());
        if (checkAccepted()) encodePicture(picture);
        return true;
    }
    if (data->hasUrls() && areImageUrls(data->urls())) {
        attachFiles(data->urls()); // a refusal is said by attachFiles
        return true;
    }
    return false;
}

QCoro::Task<> ImageAttachments::readFiles(QStringList paths) {
    setReading(1);
    const QPointer<ImageAttachments> self(this);
    QFuture<QList<ImageAttachmentRead>> reading = QtConcurrent::run([paths] {
        QList<ImageAttachmentRead> reads;
        for (const QString& path : paths)
            reads.append(ImageAttachmentReader::readFile(path));
        return reads;
    });
    const QList<ImageAttachmentRead> reads = co_await reading;
    if (!self) co_return;
    QStringList errors;
    for (const ImageAttachmentRead& read : reads) {
        if (read.image)
            append(*read.image);
        else
            errors.append(read.error);
    }
    setReading(-1);
    if (!errors.isEmpty()) emit failed(errors.join(QLatin1Char('\n')));
}

QCoro::Task<> ImageAttachments::encodePicture(QImage picture) {
    setReading(1);
    const QPointer<ImageAttachments> self(this);
    const QString name = ImageAttachmentReader::pastedImageName();
    QFuture<ImageAttachmentRead> encoding =
        QtConcurrent::run(&ImageAttachmentReader::fromPicture, picture, name);
    const ImageAttachmentRead read = co_await encoding;
    if (!self) co_return;
    if (read.image) append(*read.image);
    setReading(-1);
    if (!read.image) emit failed(read.error);
}

void ImageAttachments::append(const MessageImage& image) {
    // The same picture twice is one image to the model: attached once.
    for (const MessageImage& attached : std::as_const(images_))
        if (attached.sha256 == image.sha256) return;
    library_->addImages(kComposerHolder, {image}); // before its thumbnail asks for it
    beginInsertRows({}, count(), count());
    images_.append(image);
    endInsertRows();
    emit countChanged();
}

void ImageAttachments::remove(int row) {
    if (row < 0 || row >= count()) return;
    beginRemoveRows({}, row, row);
    images_.removeAt(row);
    endRemoveRows();
    removed();
}

void ImageAttachments::clear() {
    if (images_.isEmpty()) return;
    beginResetModel();
    images_.clear();
    endResetModel();
    removed();
}

QList<MessageImage> ImageAttachments::take() {
    const QList<MessageImage> taken = images_;
    clear();
    return taken;
}

void ImageAttachments::setReading(int delta) {
    const bool was = reading();
    reading_ += delta;
    if (reading() != was) emit readingChanged();
}

void ImageAttachments::removed() {
    library_->setImages(kComposerHolder, images_);
    emit countChanged();
}

} // namespace hearth::app
