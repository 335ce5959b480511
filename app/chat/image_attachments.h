#pragma once
// The images attached to the message being written, shown as thumbnails in the composer: files
// dropped on the window, pasted (Ctrl+V: a picture or image files on the clipboard) or chosen,
// each read on a pool thread and checked before it joins. A file that cannot be attached is
// named with the reason (`failed`), and the others join. A model that reads no images refuses
// new ones with a sentence that says so and what to load; those already attached stay (the
// user may load a vision model before sending). Send takes them all.
#include "app/storage/records.h"
#include <QAbstractListModel>
#include <QList>
#include <QUrl>
#include <QtQml/qqmlregistration.h>
#include <memory>
#include <qcoro/qcorotask.h>

class QImage;
class QMimeData;

namespace hearth::app {

class ImageLibrary;
class ModelController;

class ImageAttachments : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by ChatController")
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    // Files are being read; they join when read.
    Q_PROPERTY(bool reading READ reading NOTIFY readingChanged)
    // Why images cannot be attached now (the model reads none, or no model is loaded); empty
    // when they can.
    Q_PROPERTY(QString refusal READ refusal NOTIFY refusalChanged)

public:
    enum Role {
        Sha256Role = Qt::UserRole + 1, // QString: the image's id (image://hearth-images/<sha256>)
        NameRole,                      // QString: the file's name, or "pasted image"
        BytesRole,                     // qint64: the file's size
    };
    Q_ENUM(Role)

    // `library` gets the images for the thumbnails while they are attached.
    ImageAttachments(ModelController* models, std::shared_ptr<ImageLibrary> library,
                     QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    [[nodiscard]] int count() const { return static_cast<int>(images_.size()); }
    [[nodiscard]] bool reading() const { return reading_ > 0; }
    [[nodiscard]] QString refusal() const;
    [[nodiscard]] const QList<MessageImage>& images() const { return images_; }

    // A local file named as an image (.png, .jpg, .jpeg, .webp).
    Q_INVOKABLE static bool isImageUrl(const QUrl& url);
    // True when every URL names an image file: such a drop is meant for the message.
    Q_INVOKABLE static bool areImageUrls(const QList<QUrl>& urls);
    // True when images can be attached now; otherwise says why (`failed`).
    Q_INVOKABLE bool checkAccepted();
    // Reads the files and attaches those that are images. False when refused at once (no
    // vision model, or nothing to read); `failed` says why. Each file refused later is named.
    Q_INVOKABLE bool attachFiles(const QList<QUrl>& urls);
    // Ctrl+V: a picture on the clipboard, or image files copied in a file manager, are attached
    // (or refused, saying why) and the result is true; false when the clipboard holds no image,
    // and the text is pasted as usual.
    Q_INVOKABLE bool pasteFromClipboard();
    // What pasteFromClipboard does with the clipboard's contents.
    bool paste(const QMimeData* data);
    Q_INVOKABLE void remove(int row);
    Q_INVOKABLE void clear();
    // Send: the images, in the order attached; the list is empty after.
    QList<MessageImage> take();

signals:
    void countChanged();
    void readingChanged();
    void refusalChanged();
    void failed(const QString& message);

private:
    QCoro::Task<> readFiles(QStringList paths);
    QCoro::Task<> encodePicture(QImage picture);
    void append(const MessageImage& image);
    void setReading(int delta);
    void removed(); // rows went: the library lets their images go

    ModelController* models_;
    std::shared_ptr<ImageLibrary> library_;
    QList<MessageImage> images_;
    int reading_ = 0; // reads in flight
};

} // namespace hearth::app
