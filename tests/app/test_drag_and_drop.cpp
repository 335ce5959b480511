// Drag and drop through the real window (offscreen): real drag-enter, drag-move and drop events
// with file URLs, as a file manager sends them, for a .gguf model, a file that is not one, several
// files at once and a folder. The overlay shows whether the drop would load, and the drop does
// what it showed: the model loads, or the Models page says why it did not.
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/gui/main_window.h"
#include "app/models/model_controller.h"
#include "tests/app/qml_warnings.h"
#include "tests/app/quick_items.h"
#include "tests/support/test_support.h"

#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMimeData>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QTest>
#include <QUrl>
#include <QtQuickTest/quicktest.h>
#include <memory>

using namespace hearth;

namespace {
using hearth::test::findByName;
} // namespace

class TestDragAndDrop : public QObject {
    Q_OBJECT

    QString dir_;
    std::unique_ptr<app::HearthBackend> backend_;
    std::unique_ptr<QQmlApplicationEngine> engine_;
    QQuickWindow* window_ = nullptr;

    QQuickItem* item(const QString& name) const { return findByName(window_->contentItem(), name); }
    bool overlayShown() const { return item(QStringLiteral("dropOverlay"))->isVisible(); }
    bool shownAsLoadable() const { return item(QStringLiteral("dropArea"))->property("acceptable").toBool(); }

    // Enters the window, moves over it, and checks the overlay on the way; `drop` false leaves.
    void drag(const QList<QUrl>& urls, bool expectLoadable, bool drop = true) {
        QMimeData data;
        data.setUrls(urls);
        const QPoint start(window_->width() / 2, window_->height() / 2);
        QDragEnterEvent enter(start, Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QGuiApplication::sendEvent(window_, &enter);
        QDragMoveEvent move(start + QPoint(20, 10), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QGuiApplication::sendEvent(window_, &move);
        QVERIFY(move.isAccepted()); // refused files are dropped too, so that the app can say why
        QVERIFY(overlayShown());
        QCOMPARE(shownAsLoadable(), expectLoadable);
        const QString message = item(QStringLiteral("dropMessage"))->property("text").toString();
        QVERIFY2(message.contains(expectLoadable ? QLatin1String("Drop to load") : QLatin1String("Only one")),
                 qPrintable(message));
        if (drop) {
            QDropEvent dropEvent(QPointF(start + QPoint(20, 10)), Qt::CopyAction, &data, Qt::LeftButton,
                                 Qt::NoModifier);
            QGuiApplication::sendEvent(window_, &dropEvent);
            QVERIFY(dropEvent.isAccepted());
        } else {
            QDragLeaveEvent leave;
            QGuiApplication::sendEvent(window_, &leave);
        }
        QVERIFY(!overlayShown());
    }
    void expectRefusal(const QString& why) {
        QTRY_VERIFY(!backend_->models()->errorMessage().isEmpty());
        QVERIFY2(backend_->models()->errorMessage().contains(why),
                 qPrintable(backend_->models()->errorMessage()));
        QVERIFY(!backend_->models()->loaded());
        QVERIFY(QQuickTest::qWaitForPolish(window_));
        QQuickItem* shown = item(QStringLiteral("modelError")); // on the Models page, where it was dropped
        QVERIFY(shown && shown->isVisible());
        QCOMPARE(shown->property("text").toString(), backend_->models()->errorMessage());
        backend_->models()->clearError();
    }

private slots:
    void initTestCase() {
        test::failOnQmlWarnings();
        app::prepareQuick();
        dir_ = QString::fromStdString(test::make_temp_dir("hearth-drop"));
        backend_ =
            std::make_unique<app::HearthBackend>(app::AppPaths{dir_ + "/data", dir_ + "/settings.ini"});
        engine_ = std::make_unique<QQmlApplicationEngine>();
        window_ = app::loadMainWindow(*engine_, *backend_);
        QVERIFY(window_ != nullptr);
        backend_->start();
        QTRY_VERIFY_WITH_TIMEOUT(backend_->chat()->ready(), 10000);
        QCOMPARE(window_->property("page").toString(), QStringLiteral("models"));
        QVERIFY(QQuickTest::qWaitForPolish(window_));
    }
    void cleanupTestCase() {
        engine_.reset();
        backend_.reset();
    }

    void aDragThatLeavesChangesNothing() {
        drag({QUrl::fromLocalFile(QString::fromStdString(test::testdata("models/stories260K.gguf")))}, true,
             false);
        QVERIFY(!backend_->models()->busy() && !backend_->models()->loaded());
    }

    void aFileThatIsNotAModelIsRefused() {
        QFile notes(dir_ + "/notes.txt");
        QVERIFY(notes.open(QIODevice::WriteOnly));
        notes.write("not a model");
        notes.close();
        drag({QUrl::fromLocalFile(notes.fileName())}, false);
        expectRefusal(QStringLiteral("notes.txt: not a GGUF model file"));
    }

    void severalFilesAreRefused() {
        const QString model = QString::fromStdString(test::testdata("models/stories260K.gguf"));
        drag({QUrl::fromLocalFile(model), QUrl::fromLocalFile(dir_ + "/notes.txt")}, false);
        expectRefusal(QStringLiteral("2 files were dropped"));
    }

    void aFolderIsRefused() {
        QDir(dir_).mkpath(QStringLiteral("models.gguf"));          // a folder, even one named like a model
        drag({QUrl::fromLocalFile(dir_ + "/models.gguf")}, false); // not by its name: it is a folder
        expectRefusal(QStringLiteral("models.gguf is a folder"));
    }

    void aModelLoads() {
        const QString model = QString::fromStdString(test::testdata("models/stories260K.gguf"));
        drag({QUrl::fromLocalFile(model)}, true);
        QTRY_VERIFY_WITH_TIMEOUT(backend_->models()->loaded() && !backend_->models()->busy(), 60000);
        QCOMPARE(QFileInfo(backend_->models()->modelPath()).fileName(), QStringLiteral("stories260K.gguf"));
        QVERIFY(backend_->models()->errorMessage().isEmpty());
        QCOMPARE(window_->property("page").toString(), QStringLiteral("chat"));
    }
};

QTEST_MAIN(TestDragAndDrop)
#include "test_drag_and_drop.moc"
