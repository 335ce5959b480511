// The images attached to the message being written (ChatController's ImageAttachments) over a
// real backend: files dropped (as the drop area calls attachFiles) and pasted (a picture, or image
// files, on the real clipboard), each read and checked off the GUI thread; every file refused is
// named with its reason while the others join; and a model that reads no images (or none loaded)
// refuses new ones with a sentence that says what to load, keeping those already attached.
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/chat/image_attachments.h"
#include "app/chat/image_library.h"
#include "app/gui/translations.h"
#include "app/models/model_controller.h"
#include "engine/vision/image_decode.h"
#include "tests/app/backend_fixture.h"
#include "tests/app/vision_model.h"
#include "tests/support/test_support.h"
#include <QAbstractItemModelTester>
#include <QBuffer>
#include <QClipboard>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QImage>
#include <QMimeData>
#include <QSignalSpy>
#include <QTest>

using namespace hearth::app;
using hearth::test::loadModel;
using hearth::test::loadVisionModel;
using hearth::test::startChat;

class TestImageAttachments : public QObject {
    Q_OBJECT

    QString dir_;
    AppPaths paths() const { return {dir_ + "/data", dir_ + "/settings.ini"}; }
    QString file(const QString& name) const { return dir_ + "/" + name; }
    QUrl url(const QString& name) const { return QUrl::fromLocalFile(file(name)); }

    static QByteArray bytesOf(const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }
    static QString sha256Of(const QByteArray& bytes) {
        return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
    }
    void writePicture(const QString& name, const char* format, QSize size, QColor colour) const {
        QImage picture(size, QImage::Format_RGB32);
        picture.fill(colour);
        QVERIFY(picture.save(file(name), format));
    }
    static bool waitForCount(ImageAttachments* attachments, int count) {
        return QTest::qWaitFor([&] { return attachments->count() == count && !attachments->reading(); },
                               10000);
    }

private slots:
    void initTestCase() { QVERIFY(installTranslations(*QCoreApplication::instance())); }

    void init() {
        dir_ = QString::fromStdString(hearth::test::make_temp_dir("hearth-image-attachments"));
        writePicture(QStringLiteral("red.png"), "PNG", {40, 30}, Qt::red);
        writePicture(QStringLiteral("green.jpg"), "JPEG", {24, 48}, Qt::green);
        QVERIFY(QFile::copy(QStringLiteral(HEARTH_IMAGE_SEEDS "/lossless-9x7.webp"), file("violet.webp")));
        QFile text(file("notes.png")); // named as an image, but words
        QVERIFY(text.open(QIODevice::WriteOnly));
        text.write("Not a picture at all.\n");
        text.close();
        QFile empty(file("empty.jpg"));
        QVERIFY(empty.open(QIODevice::WriteOnly));
        empty.close();
        // Larger than an image may be, without taking the disk: a sparse file.
        QFile huge(file("huge.png"));
        QVERIFY(huge.open(QIODevice::WriteOnly));
        QVERIFY(huge.resize(qint64(hearth::vision::kMaxImageFileBytes) + (qint64{1} << 20)));
        huge.close();
        QVERIFY(QDir(dir_).mkdir(QStringLiteral("album.png")));
    }

    void cleanup() {
        if (QClipboard* clipboard = QGuiApplication::clipboard()) clipboard->clear();
    }

    void refusedWithoutAModel() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        ImageAttachments* attachments = b.chat()->attachments();
        QVERIFY(!attachments->refusal().isEmpty());
        QVERIFY(!attachments->attachFiles({url("red.png")}));
        QVERIFY2(b.chat()->errorMessage().contains("mmproj"), qPrintable(b.chat()->errorMessage()));
        QTest::qWait(50);
        QCOMPARE(attachments->count(), 0);
    }

    // The model reads no images: a drop and a paste are refused with a sentence naming it and what
    // to load instead, rather than dropped without a word.
    void refusedByAModelThatReadsNoImages() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        QVERIFY(!b.models()->imageInput());
        ImageAttachments* attachments = b.chat()->attachments();
        const QString expected =
            QStringLiteral("%1 reads no images: load a vision model with its image projector (mmproj)")
                .arg(b.models()->modelName());
        QCOMPARE(attachments->refusal(), expected);
        QVERIFY(!attachments->attachFiles({url("red.png"), url("green.jpg")}));
        QCOMPARE(b.chat()->errorMessage(), expected);
        b.chat()->clearError();
        QGuiApplication::clipboard()->setImage(QImage(8, 8, QImage::Format_RGB32));
        QVERIFY(attachments->pasteFromClipboard()); // it was an image: not pasted as text either
        QCOMPARE(b.chat()->errorMessage(), expected);
        QTest::qWait(50);
        QCOMPARE(attachments->count(), 0);
    }

    // Images attached while a vision model was loaded stay when another model comes in; sending
    // is refused, saying why, and nothing is lost until a vision model is back.
    void attachedImagesStayWhenTheModelReadsNone() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadVisionModel(b, dir_));
        ImageAttachments* attachments = b.chat()->attachments();
        QVERIFY(attachments->attachFiles({url("red.png")}));
        QVERIFY(waitForCount(attachments, 1));
        QVERIFY(loadModel(b));
        QVERIFY(!b.models()->imageInput());
        QCOMPARE(attachments->count(), 1);
        QVERIFY(!b.chat()->send(QStringLiteral("What colour is it?")));
        QVERIFY2(b.chat()->errorMessage().contains("reads no images"), qPrintable(b.chat()->errorMessage()));
        QCOMPARE(attachments->count(), 1);
        QCOMPARE(b.chat()->messages()->count(), 0);
    }

    void attachesImageFilesInOrder() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadVisionModel(b, dir_));
        ImageAttachments* attachments = b.chat()->attachments();
        QAbstractItemModelTester tester(attachments, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(attachments->refusal().isEmpty());
        QVERIFY(attachments->attachFiles({url("red.png"), url("green.jpg"), url("violet.webp")}));
        QVERIFY(waitForCount(attachments, 3));
        QVERIFY(b.chat()->errorMessage().isEmpty());
        const QStringList names{"red.png", "green.jpg", "violet.webp"};
        for (int row = 0; row < 3; ++row) {
            const MessageImage& image = attachments->images().at(row);
            const QByteArray bytes = bytesOf(file(names.at(row)));
            QCOMPARE(image.name, names.at(row));
            QCOMPARE(image.bytes, bytes);
            QCOMPARE(image.sha256, sha256Of(bytes));
            const QModelIndex index = attachments->index(row);
            QCOMPARE(index.data(ImageAttachments::NameRole).toString(), names.at(row));
            QCOMPARE(index.data(ImageAttachments::Sha256Role).toString(), image.sha256);
            QCOMPARE(index.data(ImageAttachments::BytesRole).toLongLong(), qint64{bytes.size()});
            // The thumbnails' provider has them while they are attached.
            QCOMPARE(b.chat()->imageLibrary()->bytes(image.sha256).value_or(QByteArray()), bytes);
        }
        // The same picture again is the same image: attached once.
        QVERIFY(attachments->attachFiles({url("red.png")}));
        QTest::qWait(100);
        QVERIFY(waitForCount(attachments, 3));
        const QString removed = attachments->images().at(1).sha256;
        attachments->remove(1);
        QCOMPARE(attachments->count(), 2);
        QCOMPARE(attachments->images().at(1).name, QStringLiteral("violet.webp"));
        QVERIFY(!b.chat()->imageLibrary()->bytes(removed));
        attachments->clear();
        QCOMPARE(attachments->count(), 0);
    }

    // Each file that cannot be attached is named with the reason; the good one beside it joins.
    void namesEachFileItRefuses_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("reason");
        QTest::newRow("words named .png") << "notes.png"
                                          << "not a PNG, JPEG or WebP image";
        QTest::newRow("empty") << "empty.jpg"
                               << "the file is empty";
        QTest::newRow("too large") << "huge.png"
                                   << "257 MiB, more than the 256 MiB an image may have";
        QTest::newRow("a folder") << "album.png"
                                  << "it is a folder";
        QTest::newRow("gone") << "gone.webp"
                              << "there is no such file";
    }
    void namesEachFileItRefuses() {
        QFETCH(QString, name);
        QFETCH(QString, reason);
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadVisionModel(b, dir_));
        ImageAttachments* attachments = b.chat()->attachments();
        QSignalSpy failed(attachments, &ImageAttachments::failed);
        QVERIFY(attachments->attachFiles({url("red.png"), url(name)}));
        QVERIFY(waitForCount(attachments, 1));
        QCOMPARE(attachments->images().constFirst().name, QStringLiteral("red.png"));
        QCOMPARE(failed.count(), 1);
        const QString message = failed.at(0).at(0).toString();
        QVERIFY2(message.startsWith(name + " cannot be attached: "), qPrintable(message));
        QVERIFY2(message.contains(reason), qPrintable(message));
        QVERIFY2(!message.contains("red.png"), qPrintable(message));
        QCOMPARE(b.chat()->errorMessage(), message); // shown in the chat
    }

    void pastesAPictureFromTheClipboard() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadVisionModel(b, dir_));
        QImage picture(20, 10, QImage::Format_RGB32);
        picture.fill(QColor(10, 20, 250));
        QGuiApplication::clipboard()->setImage(picture);
        ImageAttachments* attachments = b.chat()->attachments();
        QVERIFY(attachments->pasteFromClipboard());
        QVERIFY(waitForCount(attachments, 1));
        const MessageImage& pasted = attachments->images().constFirst();
        QCOMPARE(pasted.name, QStringLiteral("pasted image"));
        QCOMPARE(pasted.sha256, sha256Of(pasted.bytes));
        QImage stored;
        QVERIFY(stored.loadFromData(pasted.bytes, "PNG")); // stored as PNG, which the engine reads
        QCOMPARE(stored.size(), QSize(20, 10));
        QCOMPARE(stored.pixelColor(5, 5), QColor(10, 20, 250));
    }

    // Files copied in a file manager: the clipboard holds their URLs.
    void pastesImageFilesFromTheClipboard() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadVisionModel(b, dir_));
        auto* data = new QMimeData;
        data->setUrls({url("green.jpg"), url("red.png")});
        QGuiApplication::clipboard()->setMimeData(data);
        ImageAttachments* attachments = b.chat()->attachments();
        QVERIFY(attachments->pasteFromClipboard());
        QVERIFY(waitForCount(attachments, 2));
        QCOMPARE(attachments->images().at(0).name, QStringLiteral("green.jpg"));
        QCOMPARE(attachments->images().at(1).name, QStringLiteral("red.png"));
    }

    // Text, or files that are no images, are left to the text field's own paste.
    void leavesTextToTheTextField() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadVisionModel(b, dir_));
        ImageAttachments* attachments = b.chat()->attachments();
        QGuiApplication::clipboard()->setText(QStringLiteral("just words"));
        QVERIFY(!attachments->pasteFromClipboard());
        auto* data = new QMimeData;
        data->setUrls({url("red.png"), QUrl::fromLocalFile(dir_ + "/notes.txt")});
        QGuiApplication::clipboard()->setMimeData(data);
        QVERIFY(!attachments->pasteFromClipboard());
        QTest::qWait(50);
        QCOMPARE(attachments->count(), 0);
        QVERIFY(b.chat()->errorMessage().isEmpty());
    }

    // Reading files takes a moment off the GUI thread; the message waits for them.
    void sendWaitsForFilesBeingRead() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadVisionModel(b, dir_));
        ImageAttachments* attachments = b.chat()->attachments();
        QVERIFY(b.chat()->canSend());
        QSignalSpy reading(attachments, &ImageAttachments::readingChanged);
        // Whether a message could be sent at the moment reading starts: the read of a small file
        // may finish before attachFiles returns (the coroutine then resumes at once), so the
        // state is taken when it changes, not after the call.
        QList<bool> canSendWhileReading;
        connect(attachments, &ImageAttachments::readingChanged, this, [&] {
            if (attachments->reading()) canSendWhileReading.append(b.chat()->canSend());
        });
        QVERIFY(attachments->attachFiles({url("red.png")}));
        QVERIFY(waitForCount(attachments, 1));
        QCOMPARE(canSendWhileReading, QList<bool>{false});
        QVERIFY(!attachments->reading());
        QVERIFY(b.chat()->canSend());
        QCOMPARE(reading.count(), 2);
    }
};

QTEST_MAIN(TestImageAttachments)
#include "test_image_attachments.moc"
