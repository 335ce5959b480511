// Images through the real window (offscreen), as a person attaches them: image files dropped on
// the window with real drag and drop events, a picture pasted with Ctrl+V in the composer. A
// model that reads no images says so over the drop and in the chat; a vision model takes them:
// the composer shows their thumbnails (their pixels drawn), one is removed with its button, one
// opens large and Escape closes it; sent, the message shows them. Both themes, at the window's
// smallest size, with screenshots in build/test-artifacts.
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/chat/image_attachments.h"
#include "app/gui/main_window.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "tests/app/backend_fixture.h"
#include "tests/app/qml_warnings.h"
#include "tests/app/quick_items.h"
#include "tests/app/vision_model.h"
#include "tests/support/test_support.h"
#include <QClipboard>
#include <QDir>
#include <QDropEvent>
#include <QGuiApplication>
#include <QImage>
#include <QMimeData>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QTest>
#include <QtQuickTest/quicktest.h>
#include <memory>

using namespace hearth;
using hearth::test::findByName;
using hearth::test::findShown;
using hearth::test::sceneRect;

class TestChatImagesWindow : public QObject {
    Q_OBJECT

    QString dir_;
    std::unique_ptr<app::HearthBackend> backend_;
    std::unique_ptr<QQmlApplicationEngine> engine_;
    QQuickWindow* window_ = nullptr;

    QQuickItem* item(const QString& name) const { return findByName(window_->contentItem(), name); }
    QString file(const QString& name) const { return dir_ + "/" + name; }
    app::ImageAttachments* attachments() const { return backend_->chat()->attachments(); }

    // Drags `urls` over the window, checks what the overlay says, and drops them.
    void dropFiles(const QList<QUrl>& urls, bool expectAcceptable, const QString& expectMessage) {
        QMimeData data;
        data.setUrls(urls);
        const QPoint point(window_->width() / 2, window_->height() / 2);
        QDragEnterEvent enter(point, Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QGuiApplication::sendEvent(window_, &enter);
        QDragMoveEvent move(point + QPoint(10, 10), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QGuiApplication::sendEvent(window_, &move);
        QVERIFY(move.isAccepted());
        QVERIFY(item(QStringLiteral("dropOverlay"))->isVisible());
        QCOMPARE(item(QStringLiteral("dropArea"))->property("acceptable").toBool(), expectAcceptable);
        QCOMPARE(item(QStringLiteral("dropMessage"))->property("text").toString(), expectMessage);
        QDropEvent drop(QPointF(point + QPoint(10, 10)), Qt::CopyAction, &data, Qt::LeftButton,
                        Qt::NoModifier);
        QGuiApplication::sendEvent(window_, &drop);
        QVERIFY(drop.isAccepted());
        QVERIFY(!item(QStringLiteral("dropOverlay"))->isVisible());
    }
    QList<QQuickItem*> shownNamed(QQuickItem* root, const QString& name) const {
        QList<QQuickItem*> found;
        if (!root || !root->isVisible()) return found;
        if (root->objectName() == name) found.append(root);
        for (QQuickItem* child : root->childItems())
            found += shownNamed(child, name);
        return found;
    }
    // The colour at the middle of an item, as the window draws it.
    QColor colourAt(const QImage& shot, const QQuickItem* item) const {
        const QPointF centre = sceneRect(item).center() * shot.devicePixelRatio();
        return shot.pixelColor(centre.toPoint());
    }
    static bool near(const QColor& a, const QColor& b) {
        return qAbs(a.red() - b.red()) <= 12 && qAbs(a.green() - b.green()) <= 12 &&
               qAbs(a.blue() - b.blue()) <= 12;
    }
    void saveScreenshot(const QImage& image, const QString& name) {
        const QString folder = QString::fromStdString(test::artifact_dir());
        QDir().mkpath(folder);
        QVERIFY(image.save(folder + QLatin1Char('/') + name));
    }
    void setTheme(const QString& theme) {
        backend_->settings()->setTheme(theme);
        QTRY_COMPARE(window_->color(), QColor(theme == QLatin1String("dark") ? "#15161b" : "#f7f7fa"));
        QVERIFY(QQuickTest::qWaitForPolish(window_));
    }

private slots:
    void initTestCase() {
        test::failOnQmlWarnings();
        app::prepareQuick();
        dir_ = QString::fromStdString(test::make_temp_dir("hearth-images-window"));
        for (const auto& [name, colour] :
             {std::pair{"red.png", QColor(220, 30, 30)}, {"blue.jpg", QColor(30, 60, 220)}}) {
            QImage picture(120, 90, QImage::Format_RGB32);
            picture.fill(colour);
            QVERIFY(picture.save(file(name)));
        }
        backend_ =
            std::make_unique<app::HearthBackend>(app::AppPaths{dir_ + "/data", dir_ + "/settings.ini"});
        engine_ = std::make_unique<QQmlApplicationEngine>();
        window_ = app::loadMainWindow(*engine_, *backend_);
        QVERIFY(window_ != nullptr);
        backend_->start();
        QTRY_VERIFY_WITH_TIMEOUT(backend_->chat()->ready(), 10000);
        // The smallest window the app allows.
        window_->resize(window_->minimumSize());
        QVERIFY(QQuickTest::qWaitForPolish(window_));
    }
    void cleanupTestCase() {
        engine_.reset();
        backend_.reset();
    }

    // A text model: the overlay says why before the drop, and the chat says it after.
    void aModelThatReadsNoImagesSaysSo() {
        QVERIFY(test::loadModel(*backend_));
        window_->setProperty("page", QStringLiteral("models"));
        const QString refusal =
            QStringLiteral("%1 reads no images: load a vision model with its image projector (mmproj)")
                .arg(backend_->models()->modelName());
        dropFiles({QUrl::fromLocalFile(file("red.png"))}, false, refusal);
        QCOMPARE(window_->property("page").toString(), QStringLiteral("chat")); // where it is said
        QVERIFY(QQuickTest::qWaitForPolish(window_));
        QCOMPARE(item(QStringLiteral("toastText"))->property("text").toString(), refusal);
        QVERIFY(item(QStringLiteral("toast"))->isVisible());
        QCOMPARE(attachments()->count(), 0);
        backend_->chat()->clearError();
        // The attach button says the same at once, rather than after choosing files.
        QMetaObject::invokeMethod(item(QStringLiteral("attachImageButton")), "clicked");
        QCOMPARE(backend_->chat()->errorMessage(), refusal);
        QVERIFY(!item(QStringLiteral("imageFileDialog"))->property("opened").toBool());
        backend_->chat()->clearError();
    }

    // The attach button opens the file dialog (Hearth's own here: no platform theme); the file
    // chosen joins the message.
    void theAttachButtonChoosesAFile() {
        QVERIFY(test::loadVisionModel(*backend_, dir_));
        QQuickItem* dialog = item(QStringLiteral("imageFileDialog"));
        QMetaObject::invokeMethod(item(QStringLiteral("attachImageButton")), "clicked");
        QTRY_VERIFY(dialog->property("opened").toBool());
        QQuickItem* field = findShown(window_->contentItem(), QStringLiteral("fileBrowserPath"));
        QVERIFY2(field, "no field to type a path in");
        field->forceActiveFocus(Qt::TabFocusReason);
        field->setProperty("text", file("blue.jpg"));
        QTest::keyClick(window_, Qt::Key_Return);
        QTRY_VERIFY(!dialog->property("opened").toBool());
        QTRY_COMPARE_WITH_TIMEOUT(attachments()->count(), 1, 10000);
        QCOMPARE(attachments()->images().constFirst().name, QStringLiteral("blue.jpg"));
        attachments()->clear();
    }

    void imagesJoinTheMessageAndAreSent() {
        QVERIFY(test::loadVisionModel(*backend_, dir_));
        dropFiles({QUrl::fromLocalFile(file("red.png")), QUrl::fromLocalFile(file("blue.jpg"))}, true,
                  QStringLiteral("Drop to attach these 2 images to your message"));
        QTRY_COMPARE_WITH_TIMEOUT(attachments()->count(), 2, 10000);
        QVERIFY(backend_->chat()->errorMessage().isEmpty());

        // Ctrl+V in the composer: a picture on the clipboard joins too, and no text is pasted.
        QImage green(60, 60, QImage::Format_RGB32);
        green.fill(QColor(30, 200, 60));
        QGuiApplication::clipboard()->setImage(green);
        QQuickItem* input = item(QStringLiteral("composerInput"));
        input->forceActiveFocus();
        QTest::keyClick(window_, Qt::Key_V, Qt::ControlModifier);
        QTRY_COMPARE_WITH_TIMEOUT(attachments()->count(), 3, 10000);
        QVERIFY(input->property("text").toString().isEmpty());

        // Their thumbnails, drawn with their pixels.
        QQuickItem* strip = item(QStringLiteral("attachmentStrip"));
        QVERIFY(QQuickTest::qWaitForPolish(window_));
        QList<QQuickItem*> attached = shownNamed(strip, QStringLiteral("attachedImage"));
        QCOMPARE(attached.size(), 3);
        for (QQuickItem* a : attached)
            QTRY_COMPARE_WITH_TIMEOUT(
                findByName(a, QStringLiteral("thumbnailImage"))->property("status").toInt(), 1, 5000);
        for (const QString& theme : {QStringLiteral("dark"), QStringLiteral("light")}) {
            setTheme(theme);
            const QImage shot = window_->grabWindow();
            saveScreenshot(shot, QStringLiteral("chat-images-composer-%1.png").arg(theme));
            QVERIFY(near(colourAt(shot, findByName(attached.at(0), QStringLiteral("thumbnailImage"))),
                         QColor(220, 30, 30)));
            QVERIFY(near(colourAt(shot, findByName(attached.at(1), QStringLiteral("thumbnailImage"))),
                         QColor(30, 60, 220)));
            QVERIFY(near(colourAt(shot, findByName(attached.at(2), QStringLiteral("thumbnailImage"))),
                         QColor(30, 200, 60)));
            // Inside the composer, which stays within the chat column.
            const QRectF composer = sceneRect(item(QStringLiteral("composer")));
            for (QQuickItem* a : attached)
                QVERIFY(composer.contains(sceneRect(a)));
            QVERIFY(composer.right() <= window_->width());
        }

        // The second one removed with its button.
        QQuickItem* remove = findByName(attached.at(1), QStringLiteral("removeImageButton"));
        QCOMPARE(remove->property("tip").toString(), QStringLiteral("Remove blue.jpg"));
        QMetaObject::invokeMethod(remove, "clicked");
        QCOMPARE(attachments()->count(), 2);

        // Sent: the message shows them, and a click opens one large until Escape.
        input->setProperty("text", QStringLiteral("What colours?"));
        QTest::keyClick(window_, Qt::Key_Return);
        QTRY_COMPARE_WITH_TIMEOUT(backend_->chat()->messages()->count(), 2, 10000);
        QCOMPARE(attachments()->count(), 0);
        QVERIFY(!strip->isVisible());
        QVERIFY(test::finishReply(backend_->chat()));
        QVERIFY(QQuickTest::qWaitForPolish(window_));
        QList<QQuickItem*> shown;
        QTRY_VERIFY_WITH_TIMEOUT(
            (shown = shownNamed(item(QStringLiteral("messageList")), QStringLiteral("messageImage")))
                    .size() == 2,
            5000);
        for (QQuickItem* thumbnail : shown)
            QTRY_COMPARE_WITH_TIMEOUT(
                findByName(thumbnail, QStringLiteral("thumbnailImage"))->property("status").toInt(), 1, 5000);
        const QImage sent = window_->grabWindow();
        saveScreenshot(sent, QStringLiteral("chat-images-message-light.png"));
        QVERIFY(near(colourAt(sent, findByName(shown.at(0), QStringLiteral("thumbnailImage"))),
                     QColor(220, 30, 30)));

        QMetaObject::invokeMethod(shown.at(1), "clicked");
        QTRY_VERIFY(findShown(window_->contentItem(), QStringLiteral("imageViewerImage")) != nullptr);
        QQuickItem* viewer = findShown(window_->contentItem(), QStringLiteral("imageViewerImage"));
        QCOMPARE(
            findShown(window_->contentItem(), QStringLiteral("imageViewerName"))->property("text").toString(),
            QStringLiteral("pasted image"));
        QTRY_COMPARE_WITH_TIMEOUT(viewer->property("status").toInt(), 1, 5000);
        setTheme(QStringLiteral("dark"));
        const QImage large = window_->grabWindow();
        saveScreenshot(large, QStringLiteral("chat-images-viewer-dark.png"));
        QVERIFY(near(colourAt(large, viewer), QColor(30, 200, 60)));
        QVERIFY(sceneRect(viewer).width() > 300); // large: most of the window
        QTest::keyClick(window_, Qt::Key_Escape);
        QTRY_VERIFY(findShown(window_->contentItem(), QStringLiteral("imageViewerImage")) == nullptr);
    }
};

QTEST_MAIN(TestChatImagesWindow)
#include "test_chat_images_window.moc"
