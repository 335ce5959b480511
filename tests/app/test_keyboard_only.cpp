// Every feature of the real window (offscreen) used with the keyboard alone, as someone who
// cannot use a mouse would: open a model through the file dialog's typed path, send, stop,
// regenerate, edit and resend, change a setting, start and cancel a download, and export the
// conversation. Each control is reached with Tab or Shift+Tab from where the focus was, and
// pressed with Space; nothing is clicked and no method of the controllers is called to act.
#include "app/chat/chat_controller.h"
#include "app/chat/conversation_files.h"
#include "app/chat/hearth_backend.h"
#include "app/chat/message_list_model.h"
#include "app/gui/main_window.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "tests/app/main_window_fixture.h"
#include "tests/app/qml_warnings.h"
#include "tests/app/quick_items.h"
#include "tests/support/test_support.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QTest>
#include <QtQuickTest/quicktest.h>
#include <memory>

using namespace hearth;

namespace {

// The item, or the nearest of its parents, whose objectName starts with `prefix`.
QQuickItem* namedAncestor(QQuickItem* item, const QString& prefix) {
    for (QQuickItem* up = item; up; up = up->parentItem())
        if (up->objectName().startsWith(prefix)) return up;
    return nullptr;
}

QString focusTrail(QQuickItem* item) {
    return item ? QStringLiteral("%1 \"%2\"")
                      .arg(QString::fromLatin1(item->metaObject()->className()), item->objectName())
                : QStringLiteral("nothing");
}

} // namespace

class TestKeyboardOnly : public QObject {
    Q_OBJECT

    test::MainWindowFixture fixture_;

    QQuickItem* item(const QString& name) const {
        return test::findByName(fixture_.window->contentItem(), name);
    }
    const QList<app::MessageRecord>& messages() const {
        return fixture_.backend->chat()->messages()->messages();
    }

    // Presses Tab (Shift+Tab backwards) until a control whose objectName starts with `prefix`
    // has the focus; null when the focus chain never comes to one.
    QQuickItem* tabTo(const QString& prefix, bool backwards = false) {
        for (int step = 0; step < 300; ++step) {
            if (backwards)
                QTest::keyClick(fixture_.window, Qt::Key_Backtab, Qt::ShiftModifier);
            else
                QTest::keyClick(fixture_.window, Qt::Key_Tab);
            if (QQuickItem* found = namedAncestor(fixture_.window->activeFocusItem(), prefix)) return found;
        }
        qWarning("Tab never reached \"%s\"; the focus is on %s", qPrintable(prefix),
                 qPrintable(focusTrail(fixture_.window->activeFocusItem())));
        return nullptr;
    }
    void press() { QTest::keyClick(fixture_.window, Qt::Key_Space); }
    void typeText(const QString& text) {
        for (const char c : text.toLatin1())
            QTest::keyClick(fixture_.window, c);
    }

private slots:
    void initTestCase() {
        test::failOnQmlWarnings();
        QVERIFY(fixture_.open("hearth-keyboard-only", [](app::HearthBackend& backend, const QString& dir) {
            QDir().mkpath(dir + "/models");
            QDir().mkpath(dir + "/exports");
            backend.settings()->setModelsFolder(dir + "/models");
            backend.settings()->setTemperature(1.0);
            backend.settings()->setMaxReplyTokens(32768); // stories260K writes on until stopped
            backend.chat()->files()->setExportFolder(dir + "/exports");
        }));
        QVERIFY(QFileInfo(fixture_.dir + "/models").isDir() && QFileInfo(fixture_.dir + "/exports").isDir());
    }
    void cleanupTestCase() { fixture_.close(); }

    // Ctrl+O, then the path typed into the file dialog and Enter: the model loads and the
    // composer has the focus.
    void openAModelByItsPath() {
        app::ModelController* models = fixture_.backend->models();
        const QString model = models->demoModelPath();
        QVERIFY(QFileInfo(model).isFile());
        QTest::keyClick(fixture_.window, Qt::Key_O, Qt::ControlModifier);
        QObject* dialog = fixture_.window->findChild<QObject*>(QStringLiteral("modelFileDialog"));
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->property("opened").toBool());
        QVERIFY(tabTo(QStringLiteral("fileBrowserPath")));
        QTest::keyClick(fixture_.window, Qt::Key_A, Qt::ControlModifier);
        typeText(model);
        QTest::keyClick(fixture_.window, Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(models->loaded() && !models->busy(), 60000);
        QCOMPARE(QFileInfo(models->modelPath()).canonicalFilePath(), QFileInfo(model).canonicalFilePath());
        QTRY_VERIFY(!dialog->property("opened").toBool());
        QCOMPARE(fixture_.window->property("page").toString(), QStringLiteral("chat"));
        QTRY_VERIFY(item(QStringLiteral("composerInput"))->hasActiveFocus());
    }

    // Typed and sent with Enter; Esc stops the reply while it streams.
    void sendAndStop() {
        typeText(QStringLiteral("Once upon a time"));
        QTest::keyClick(fixture_.window, Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(fixture_.backend->chat()->generating(), 10000);
        QCOMPARE(messages().size(), 2);
        QCOMPARE(messages().constFirst().content, QStringLiteral("Once upon a time"));
        QTRY_VERIFY_WITH_TIMEOUT(!messages().constLast().content.isEmpty(), 30000);
        QTest::keyClick(fixture_.window, Qt::Key_Escape);
        QTRY_VERIFY_WITH_TIMEOUT(!fixture_.backend->chat()->generating(), 10000);
        QCOMPARE(messages().constLast().state, app::MessageState::Stopped);
    }

    // From the composer, Shift+Tab to the last reply's Regenerate, Space: a new reply replaces
    // the stopped one (a short one, so that it ends by itself).
    void regenerate() {
        fixture_.backend->settings()->setMaxReplyTokens(24);
        const QString replyId = messages().constLast().id;
        item(QStringLiteral("composerInput"))->forceActiveFocus(Qt::TabFocusReason);
        QVERIFY(tabTo(QStringLiteral("regenerateButton"), true));
        press();
        // 24 tokens of the demo model take milliseconds: the reply may be done at the first look.
        QTRY_VERIFY_WITH_TIMEOUT(
            !fixture_.backend->chat()->generating() && messages().constLast().id != replyId, 60000);
        QCOMPARE(messages().size(), 2);
        QCOMPARE(messages().constLast().state, app::MessageState::Complete);
        QVERIFY(!messages().constLast().content.isEmpty());
    }

    // Shift+Tab to the user message's Edit, Space opens its editor with the focus in it; the
    // text is replaced and Enter resends it, and a new reply follows.
    void editAndResend() {
        item(QStringLiteral("composerInput"))->forceActiveFocus(Qt::TabFocusReason);
        QVERIFY(tabTo(QStringLiteral("editMessageButton"), true));
        press();
        QQuickItem* editor = item(QStringLiteral("messageEditor"));
        QVERIFY(editor);
        QTRY_VERIFY(editor->hasActiveFocus());
        QTest::keyClick(fixture_.window, Qt::Key_A, Qt::ControlModifier);
        typeText(QStringLiteral("A dog named Rex"));
        QTest::keyClick(fixture_.window, Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(!fixture_.backend->chat()->generating() && messages().size() == 2 &&
                                     messages().constFirst().content == QStringLiteral("A dog named Rex") &&
                                     messages().constLast().state == app::MessageState::Complete,
                                 60000);
        QVERIFY(!messages().constLast().content.isEmpty());
    }

    // Ctrl+, to the settings, Tab to the reply length, and the arrow keys change it.
    void changeASetting() {
        QTest::keyClick(fixture_.window, Qt::Key_Comma, Qt::ControlModifier);
        QCOMPARE(fixture_.window->property("page").toString(), QStringLiteral("settings"));
        const int before = fixture_.backend->settings()->maxReplyTokens();
        item(QStringLiteral("newChatButton"))->forceActiveFocus(Qt::TabFocusReason);
        QVERIFY(tabTo(QStringLiteral("maxReplySpin")));
        QTest::keyClick(fixture_.window, Qt::Key_Up);
        QTRY_VERIFY(fixture_.backend->settings()->maxReplyTokens() > before);
        QTest::keyClick(fixture_.window, Qt::Key_Down);
        QTRY_COMPARE(fixture_.backend->settings()->maxReplyTokens(), before);
    }

    // Tab to the sidebar's Models entry, Space; Tab to a catalog entry's Download, Space: its
    // download starts (or fails at once on a machine with no network, and says so); Tab to its
    // Cancel and Space ends it, leaving no file behind.
    void startAndCancelADownload() {
        item(QStringLiteral("newChatButton"))->forceActiveFocus(Qt::TabFocusReason);
        QVERIFY(tabTo(QStringLiteral("nav_models")));
        press();
        QTRY_COMPARE(fixture_.window->property("page").toString(), QStringLiteral("models"));
        QVERIFY(QQuickTest::qWaitForPolish(fixture_.window));
        QQuickItem* download = tabTo(QStringLiteral("downloadButton_"));
        QVERIFY(download);
        const QString id = download->objectName().mid(QStringLiteral("downloadButton_").size());
        press();
        QQuickItem* cancel = item(QStringLiteral("cancelButton_") + id);
        QVERIFY(cancel);
        QTRY_VERIFY_WITH_TIMEOUT(cancel->isVisible(), 30000);
        QVERIFY(tabTo(QStringLiteral("cancelButton_") + id, true) ||
                tabTo(QStringLiteral("cancelButton_") + id));
        press();
        QTRY_VERIFY_WITH_TIMEOUT(!cancel->isVisible(), 30000);
        QTRY_VERIFY(item(QStringLiteral("downloadButton_") + id)->isVisible());
        QDir models(fixture_.dir + "/models");
        QTRY_COMPARE(models.entryList(QDir::Files).size(), 0);
    }

    // Ctrl+L to the chat, Shift+Tab to Export, Space opens the formats, Tab to Markdown and
    // Space: the file is written and what was written is said.
    void exportTheConversation() {
        QTest::keyClick(fixture_.window, Qt::Key_L, Qt::ControlModifier);
        QCOMPARE(fixture_.window->property("page").toString(), QStringLiteral("chat"));
        QVERIFY(tabTo(QStringLiteral("exportConversation"), true));
        press();
        QObject* formats = fixture_.window->findChild<QObject*>(QStringLiteral("exportFormats"));
        QVERIFY(formats);
        QTRY_VERIFY(formats->property("opened").toBool());
        QVERIFY(tabTo(QStringLiteral("exportAs_markdown")));
        press();
        app::ConversationFiles* files = fixture_.backend->chat()->files();
        QTRY_VERIFY_WITH_TIMEOUT(!files->busy() && !files->lastFile().isEmpty(), 30000);
        QVERIFY2(!files->failed(), qPrintable(files->status()));
        QFile written(files->lastFile());
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(QFileInfo(written).absolutePath(), QFileInfo(fixture_.dir + "/exports").absoluteFilePath());
        const QString markdown = QString::fromUtf8(written.readAll());
        QVERIFY(markdown.contains(QStringLiteral("A dog named Rex")));
        QVERIFY(markdown.contains(messages().constLast().content.left(20)));
        QObject* result = fixture_.window->findChild<QObject*>(QStringLiteral("exportResult"));
        QVERIFY(result);
        QTRY_VERIFY(result->property("opened").toBool());
    }
};

QTEST_MAIN(TestKeyboardOnly)
#include "test_keyboard_only.moc"
