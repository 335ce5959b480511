// The models page's file and folder dialogs in the real window, as under Xvfb: no platform
// theme, so no platform dialogs, the Material style and the software renderer. Hearth's own
// dialog opens in place of Qt's Qt Quick one (which drew no background and no dim there, and
// whose folder dialog could not choose the folder it showed). It must look like a dialog: an
// opaque panel the page does not show through, over a dim that covers the window and takes
// its clicks. The folder dialog chooses the folder it shows, an empty one too; the file dialog
// filters, walks into a folder from the keyboard, opens the model chosen, and Esc cancels it.
// Screenshots at 1280x800 go to build/test-artifacts/dialog-*.png.
#include "app/chat/hearth_backend.h"
#include "app/gui/main_window.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "tests/app/backend_fixture.h"
#include "tests/app/qml_warnings.h"
#include "tests/app/quick_items.h"
#include "tests/support/test_support.h"

#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QImage>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QSignalSpy>
#include <QTest>
#include <QtQuickTest/quicktest.h>
#include <memory>

using namespace hearth;
using hearth::test::findShown;
using hearth::test::luminance;
using hearth::test::sameColour;
using hearth::test::sceneRect;

class TestFileDialogs : public QObject {
    Q_OBJECT

    QString dir_;
    QString modelsDir_;
    std::unique_ptr<app::HearthBackend> backend_;
    std::unique_ptr<QQmlApplicationEngine> engine_;
    QQuickWindow* window_ = nullptr;

    QQuickItem* shown(const QString& name) const { return findShown(window_->contentItem(), name); }
    QObject* pickerDialog(const QString& name) const {
        return test::findByName(test::findByName(window_->contentItem(), QStringLiteral("modelPicker")),
                                name);
    }
    void clickOn(QQuickItem* item) {
        QTest::mouseClick(window_, Qt::LeftButton, {},
                          item->mapToScene(item->boundingRect().center()).toPoint());
    }
    void saveScreenshot(const QString& name) {
        const QString folder = QString::fromStdString(test::artifact_dir());
        QDir().mkpath(folder);
        const QString path = folder + QStringLiteral("/dialog-%1.png").arg(name);
        QVERIFY2(window_->grabWindow().save(path), qPrintable(path));
        qInfo("screenshot: %s", qPrintable(path));
    }

    // The open dialog is a dialog: an opaque panel covering its whole area, the page not
    // showing through it, and a dim over the whole window that darkens the page around it.
    void checkLooksLikeADialog(const QImage& pageBefore, const QString& what) {
        QQuickItem* background = shown(QStringLiteral("fileBrowserBackground"));
        QVERIFY2(background, qPrintable(what + ": no background"));
        const QColor colour = background->property("color").value<QColor>();
        QCOMPARE(colour.alpha(), 255);
        QQuickItem* panel = background->parentItem(); // the popup itself
        QVERIFY(panel);
        QCOMPARE(sceneRect(background), sceneRect(panel));
        QVERIFY2(panel->width() >= 600 && panel->height() >= 400, qPrintable(what));

        QQuickItem* dim = shown(QStringLiteral("fileBrowserDim"));
        QVERIFY2(dim, qPrintable(what + ": no modal dim"));
        QCOMPARE(sceneRect(dim), QRectF(QPointF(0, 0), window_->size()));
        QTRY_COMPARE(dim->opacity(), 1.0);
        QTRY_COMPARE(panel->opacity(), 1.0); // the enter transition is over
        QTRY_COMPARE(panel->scale(), 1.0);

        const QImage image = window_->grabWindow();
        // Just inside the panel's top edge, above its title: the panel's own colour.
        const QRectF area = sceneRect(panel);
        const QPoint insidePanel(qRound(area.center().x()), qRound(area.top()) + 6);
        QVERIFY2(sameColour(image.pixel(insidePanel), colour.rgb()),
                 qPrintable(QStringLiteral("%1: the panel is %2 where its background is %3")
                                .arg(what, QColor(image.pixel(insidePanel)).name(), colour.name())));
        // Around it, the page is darker than before.
        for (const QPoint outside : {QPoint(20, 20), QPoint(window_->width() - 20, window_->height() - 20)})
            QVERIFY2(luminance(image.pixel(outside)) < luminance(pageBefore.pixel(outside)) * 0.75 ||
                         luminance(pageBefore.pixel(outside)) < 8,
                     qPrintable(QStringLiteral("%1: the page at %2,%3 is not dimmed")
                                    .arg(what)
                                    .arg(outside.x())
                                    .arg(outside.y())));
    }

private slots:
    void initTestCase() {
        test::failOnQmlWarnings();
        dir_ = QString::fromStdString(test::make_temp_dir("hearth-file-dialogs"));
        // The models folder: a model (a card on the page behind the dialog), a folder with
        // another, an empty folder, and a file that is not a model.
        modelsDir_ = dir_ + "/models";
        QVERIFY(QDir().mkpath(modelsDir_ + "/More models"));
        QVERIFY(QDir().mkpath(modelsDir_ + "/Empty folder"));
        QVERIFY(QFile::copy(test::storiesModelPath(), modelsDir_ + "/stories260K.gguf"));
        QVERIFY(QFile::copy(test::storiesModelPath(), modelsDir_ + "/More models/tiny stories.gguf"));
        QFile notes(modelsDir_ + "/notes.txt");
        QVERIFY(notes.open(QIODevice::WriteOnly));
        notes.write("not a model\n");
        notes.close();

        app::prepareQuick(); // Material, and the software renderer offscreen (as under Xvfb)
        backend_ =
            std::make_unique<app::HearthBackend>(app::AppPaths{dir_ + "/data", dir_ + "/settings.ini"});
        backend_->settings()->setModelsFolder(modelsDir_);
        backend_->settings()->setTheme(QStringLiteral("light"));
        engine_ = std::make_unique<QQmlApplicationEngine>();
        window_ = app::loadMainWindow(*engine_, *backend_);
        QVERIFY(window_ != nullptr);
        backend_->start();
        QTRY_VERIFY_WITH_TIMEOUT(backend_->chat()->ready(), 10000);
        window_->resize(1280, 800);
        window_->requestActivate();
        QVERIFY(QTest::qWaitForWindowActive(window_));
        window_->setProperty("page", QStringLiteral("models"));
        QTRY_VERIFY_WITH_TIMEOUT(test::findByName(window_->contentItem(), QStringLiteral("modelCard_0")),
                                 10000);
        QVERIFY(QQuickTest::qWaitForPolish(window_));
    }

    void fileDialogOpensTheModelChosen() {
        QObject* dialog = pickerDialog(QStringLiteral("modelFileDialog"));
        QVERIFY(dialog);
        const QImage page = window_->grabWindow();
        QTest::keyClick(window_, Qt::Key_O, Qt::ControlModifier);
        QTRY_VERIFY(dialog->property("opened").toBool());
        checkLooksLikeADialog(page, QStringLiteral("file dialog"));
        if (QTest::currentTestFailed()) return;

        // Folders first, then the models; the other file only with "All files".
        QTRY_VERIFY(shown(QStringLiteral("fileBrowserEntry_stories260K.gguf")));
        QVERIFY(shown(QStringLiteral("fileBrowserEntry_More models")));
        QVERIFY(!shown(QStringLiteral("fileBrowserEntry_notes.txt")));
        saveScreenshot(QStringLiteral("file"));
        clickOn(shown(QStringLiteral("fileBrowserFilter_1")));
        QTRY_VERIFY(shown(QStringLiteral("fileBrowserEntry_notes.txt")));
        clickOn(shown(QStringLiteral("fileBrowserFilter_0")));
        QTRY_VERIFY(!shown(QStringLiteral("fileBrowserEntry_notes.txt")));

        // From the keyboard: the list has the focus; Enter on a folder opens it, Backspace goes
        // back up, Enter on a model opens the model.
        QQuickItem* list = shown(QStringLiteral("fileBrowserList"));
        QVERIFY(list);
        QTRY_VERIFY(list->hasActiveFocus());
        QTRY_COMPARE(list->property("count").toInt(), 3);    // two folders and the model
        QCOMPARE(list->property("currentIndex").toInt(), 0); // "Empty folder", then "More models"
        QTest::keyClick(window_, Qt::Key_Down);
        QTest::keyClick(window_, Qt::Key_Return);
        QTRY_VERIFY(shown(QStringLiteral("fileBrowserEntry_tiny stories.gguf")));
        QVERIFY(
            shown(QStringLiteral("fileBrowserPath"))->property("text").toString().endsWith("/More models"));
        QTest::keyClick(window_, Qt::Key_Backspace); // back up, on the folder it came from
        QTRY_VERIFY(shown(QStringLiteral("fileBrowserEntry_More models")));
        QTRY_COMPARE(list->property("count").toInt(), 3);
        QTRY_COMPARE(list->property("currentIndex").toInt(), 1);
        // A model lands in the folder (a download ends) and the listing comes again: the folder
        // left stays the current entry (each listing once reset it to the first).
        QFile landed(modelsDir_ + "/landed.gguf");
        QVERIFY(landed.open(QIODevice::WriteOnly));
        landed.close();
        QTRY_VERIFY(shown(QStringLiteral("fileBrowserEntry_landed.gguf")));
        QTRY_COMPARE(list->property("count").toInt(), 4);
        QCOMPARE(list->property("currentIndex").toInt(), 1);
        QTest::keyClick(window_, Qt::Key_Return);
        QTRY_VERIFY(shown(QStringLiteral("fileBrowserEntry_tiny stories.gguf")));
        QTRY_COMPARE(list->property("count").toInt(), 1);
        QTRY_COMPARE(list->property("currentIndex").toInt(), 0);
        QTRY_VERIFY(shown(QStringLiteral("openChosenFileButton"))->isEnabled());

        QSignalSpy accepted(dialog, SIGNAL(accepted()));
        QTest::keyClick(window_, Qt::Key_Return);
        QTRY_VERIFY(!dialog->property("opened").toBool());
        QCOMPARE(accepted.size(), 1);
        QVERIFY(dialog->property("selectedFile")
                    .toUrl()
                    .toLocalFile()
                    .endsWith("/More models/tiny stories.gguf"));
        QTRY_VERIFY_WITH_TIMEOUT(backend_->models()->loaded() && !backend_->models()->busy(), 60000);

        // Esc cancels.
        QSignalSpy rejected(dialog, SIGNAL(rejected()));
        QTest::keyClick(window_, Qt::Key_O, Qt::ControlModifier);
        QTRY_VERIFY(dialog->property("opened").toBool());
        QTRY_VERIFY(shown(QStringLiteral("fileBrowserList"))->hasActiveFocus());
        QTest::keyClick(window_, Qt::Key_Escape);
        QTRY_VERIFY(!dialog->property("opened").toBool());
        QCOMPARE(rejected.size(), 1);
        QCOMPARE(accepted.size(), 1);
    }

    // In the dark theme (the file dialog was in the light one).
    void folderDialogChoosesTheFolderItShows() {
        backend_->settings()->setTheme(QStringLiteral("dark"));
        QVERIFY(QQuickTest::qWaitForPolish(window_));
        QObject* dialog = pickerDialog(QStringLiteral("modelsFolderDialog"));
        QVERIFY(dialog);
        const QImage page = window_->grabWindow();
        QVERIFY(QMetaObject::invokeMethod(dialog, "open"));
        QTRY_VERIFY(dialog->property("opened").toBool());
        checkLooksLikeADialog(page, QStringLiteral("folder dialog"));
        if (QTest::currentTestFailed()) return;

        // Over the model cards, the folders only; the dialog takes the clicks, not the page.
        QTRY_VERIFY(shown(QStringLiteral("fileBrowserEntry_Empty folder")));
        QVERIFY(!shown(QStringLiteral("fileBrowserEntry_stories260K.gguf")));
        QVERIFY(shown(QStringLiteral("fileBrowserUpButton"))->isEnabled());
        saveScreenshot(QStringLiteral("folder"));
        QQuickItem* load = test::findByName(window_->contentItem(), QStringLiteral("loadButton_0"));
        if (load && load->isVisible()) {
            // QTest delivers the click before it returns: had it reached the button, the load
            // would have started (busy) by then.
            const QString loaded = backend_->models()->modelPath();
            clickOn(load);
            QVERIFY(dialog->property("opened").toBool());
            QVERIFY(!backend_->models()->busy());
            QCOMPARE(backend_->models()->modelPath(), loaded);
        }

        // Into the empty folder, which is the one wanted: "Choose this folder" takes it.
        QQuickItem* entry = shown(QStringLiteral("fileBrowserEntry_Empty folder"));
        clickOn(entry);
        QTest::keyClick(window_, Qt::Key_Return);
        QTRY_VERIFY(shown(QStringLiteral("fileBrowserEmpty")));
        QVERIFY(
            shown(QStringLiteral("fileBrowserPath"))->property("text").toString().endsWith("/Empty folder"));
        QQuickItem* choose = shown(QStringLiteral("chooseFolderButton"));
        QVERIFY(choose);
        QVERIFY(choose->isEnabled());
        saveScreenshot(QStringLiteral("folder-empty"));
        clickOn(choose);
        QTRY_VERIFY(!dialog->property("opened").toBool());
        QCOMPARE(QDir(backend_->settings()->modelsFolder()), QDir(modelsDir_ + "/Empty folder"));
    }

    // A path typed in the path field: a folder opens, a file is chosen, anything else is named as
    // not found. An empty folder says so, in the file dialog as in the folder dialog.
    void aTypedPathOpensAndAnEmptyFolderSaysSo() {
        // A models folder not made yet.
        backend_->settings()->setModelsFolder(modelsDir_ + "/Not made yet");
        QObject* dialog = pickerDialog(QStringLiteral("modelFileDialog"));
        QVERIFY(dialog);
        QVERIFY(QMetaObject::invokeMethod(dialog, "open"));
        QTRY_VERIFY(dialog->property("opened").toBool());
        QTRY_VERIFY2(shown(QStringLiteral("fileBrowserEmpty")), "a missing folder shows a blank list");
        QVERIFY(shown(QStringLiteral("fileBrowserEmpty"))
                    ->property("text")
                    .toString()
                    .contains("does not exist"));
        QMetaObject::invokeMethod(dialog, "close");
        QTRY_VERIFY(!dialog->property("opened").toBool());

        backend_->settings()->setModelsFolder(modelsDir_ + "/Empty folder");
        QVERIFY(QMetaObject::invokeMethod(dialog, "open"));
        QTRY_VERIFY(dialog->property("opened").toBool());
        QTRY_VERIFY2(shown(QStringLiteral("fileBrowserEmpty")), "an empty folder shows a blank list");
        QVERIFY(!shown(QStringLiteral("fileBrowserEmpty"))->property("text").toString().isEmpty());
        // Where the list shows it, not cut off above it.
        QVERIFY(QQuickTest::qWaitForPolish(window_));
        const QRectF hint = sceneRect(shown(QStringLiteral("fileBrowserEmpty")));
        const QRectF listArea = sceneRect(shown(QStringLiteral("fileBrowserList")));
        QVERIFY2(listArea.contains(hint),
                 qPrintable(QStringLiteral("the hint at y %1..%2, the list at %3..%4")
                                .arg(hint.top())
                                .arg(hint.bottom())
                                .arg(listArea.top())
                                .arg(listArea.bottom())));
        saveScreenshot(QStringLiteral("file-empty"));

        QQuickItem* field = shown(QStringLiteral("fileBrowserPath"));
        QVERIFY2(field, "no field to type a path in");
        const auto type = [&](const QString& path) {
            field->forceActiveFocus(Qt::TabFocusReason);
            field->setProperty("text", path);
            QTest::keyClick(window_, Qt::Key_Return);
        };
        type(modelsDir_ + "/no such folder");
        QTRY_VERIFY(shown(QStringLiteral("fileBrowserPathError")));
        QVERIFY(dialog->property("opened").toBool());
        type(modelsDir_ + "/More models");
        QTRY_VERIFY(shown(QStringLiteral("fileBrowserEntry_tiny stories.gguf")));
        QVERIFY(!shown(QStringLiteral("fileBrowserPathError")));
        // Sizes in MB, as on the model cards.
        QQuickItem* sizeLabel = shown(QStringLiteral("fileBrowserSize_tiny stories.gguf"));
        QVERIFY(sizeLabel);
        const QString size = sizeLabel->property("text").toString();
        QVERIFY2(size.endsWith(QLatin1String(" MB")), qPrintable(size));
        QSignalSpy accepted(dialog, SIGNAL(accepted()));
        type(modelsDir_ + "/stories260K.gguf");
        QTRY_VERIFY(!dialog->property("opened").toBool());
        QCOMPARE(accepted.size(), 1);
        QCOMPARE(dialog->property("selectedFile").toUrl().toLocalFile(), modelsDir_ + "/stories260K.gguf");
        QTRY_VERIFY_WITH_TIMEOUT(!backend_->models()->busy(), 60000);
    }

    // A test that fails with its dialog open leaves it there: the next test's own dialog
    // would open beneath it.
    void cleanup() {
        for (const QString& name :
             {QStringLiteral("modelFileDialog"), QStringLiteral("modelsFolderDialog")}) {
            QObject* dialog = pickerDialog(name);
            if (dialog && dialog->property("opened").toBool()) QMetaObject::invokeMethod(dialog, "close");
        }
        QTRY_VERIFY(!shown(QStringLiteral("fileBrowserDim")));
    }

    void cleanupTestCase() {
        engine_.reset();
        backend_.reset();
    }
};

QTEST_MAIN(TestFileDialogs)
#include "test_file_dialogs.moc"
