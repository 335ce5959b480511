// The real window (offscreen) used from the keyboard: Tab walks every control of each page,
// and each one has an accessible name and role (what a screen reader says); Tab leaves the
// composer and Ctrl+Tab types a tab; the shortcuts (Ctrl+N, Ctrl+K/Ctrl+F, Esc, Ctrl+,, Ctrl+O,
// Ctrl+Q) do what they say, and the controls' tooltips name them. The window's first start
// also offers the demo model shipped beside the binary, and loading it takes one call.
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/chat/message_list_model.h"
#include "app/gui/main_window.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "tests/app/main_window_fixture.h"
#include "tests/app/qml_warnings.h"
#include "tests/app/quick_items.h"
#include "tests/support/test_support.h"

#include <QAccessible>
#include <QFileInfo>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQmlProperty>
#include <QQuickItem>
#include <QQuickWindow>
#include <QSignalSpy>
#include <QTest>
#include <QtQuickTest/quicktest.h>
#include <memory>

using namespace hearth;

namespace {

using hearth::test::findByName;

// Controls that take input: buttons, text fields, combo and spin boxes, sliders. A read-only
// text (a message) is not one; nor are scroll bars and progress bars, which Tab does not visit.
bool isInputControl(const QQuickItem* item) {
    // A control that takes no keyboard focus (a row's hover-only buttons) is the mouse's.
    if (const QVariant policy = item->property("focusPolicy");
        policy.isValid() && policy.toInt() == Qt::NoFocus)
        return false;
    if (item->inherits("QQuickAbstractButton") || item->inherits("QQuickComboBox") ||
        item->inherits("QQuickSpinBox") || item->inherits("QQuickSlider"))
        return true;
    if (item->inherits("QQuickTextInput") || item->inherits("QQuickTextEdit"))
        return !item->property("readOnly").toBool();
    return false;
}

// The control a focused item belongs to: a spin box's or combo box's own text field is part of it.
QQuickItem* controlOf(QQuickItem* item) {
    for (QQuickItem* up = item; up; up = up->parentItem())
        if (up->inherits("QQuickSpinBox") || up->inherits("QQuickComboBox")) return up;
    return item;
}

void collectControls(QQuickItem* item, QSet<QQuickItem*>& out) {
    if (!item || !item->isVisible() || !item->isEnabled()) return;
    if (isInputControl(item)) out.insert(controlOf(item));
    for (QQuickItem* child : item->childItems())
        collectControls(child, out);
}

QString describe(QQuickItem* item) {
    return QStringLiteral("%1 \"%2\" at %3,%4")
        .arg(QString::fromLatin1(item->metaObject()->className()), item->objectName())
        .arg(item->mapToScene(QPointF()).x())
        .arg(item->mapToScene(QPointF()).y());
}

} // namespace

class TestKeyboard : public QObject {
    Q_OBJECT

    test::MainWindowFixture fixture_;

    QQuickItem* item(const QString& name) const { return findByName(fixture_.window->contentItem(), name); }
    void click(QQuickItem* target) {
        QVERIFY(target);
        QTest::mouseClick(fixture_.window, Qt::LeftButton, Qt::NoModifier,
                          target->mapToScene(QPointF(target->width() / 2, target->height() / 2)).toPoint());
    }
    void showPage(const QString& page) {
        fixture_.window->setProperty("page", page);
        QVERIFY(QQuickTest::qWaitForPolish(fixture_.window));
    }

    // Tab from the first control round to it again; every control on the page is visited once
    // on the way and tells a screen reader its name and role.
    void walkWithTab(const QString& page) {
        showPage(page);
        QSet<QQuickItem*> expected;
        collectControls(fixture_.window->contentItem(), expected);
        QVERIFY2(expected.size() >= 5, qPrintable(page));

        item(QStringLiteral("newChatButton"))->forceActiveFocus(Qt::TabFocusReason);
        QSet<QQuickItem*> reached;
        QQuickItem* first = nullptr;
        for (int step = 0; step < 600; ++step) {
            QTest::keyClick(fixture_.window, Qt::Key_Tab);
            QQuickItem* focused = fixture_.window->activeFocusItem();
            QVERIFY2(focused, qPrintable(QStringLiteral("%1: Tab left no item focused").arg(page)));
            QQuickItem* control = controlOf(focused);
            if (control == first) break;
            if (!first) first = control;
            QVERIFY2(!reached.contains(control),
                     qPrintable(QStringLiteral("%1: Tab came back to %2 before %3")
                                    .arg(page, describe(control), describe(first))));
            reached.insert(control);
            if (qEnvironmentVariableIsSet("HEARTH_TEST_TRACE_TAB"))
                qInfo("%s", qPrintable(describe(control)));

            QAccessibleInterface* accessible = QAccessible::queryAccessibleInterface(control);
            QVERIFY2(accessible, qPrintable(describe(control)));
            QVERIFY2(
                !accessible->text(QAccessible::Name).trimmed().isEmpty(),
                qPrintable(QStringLiteral("%1: %2 has no accessible name").arg(page, describe(control))));
            const QAccessible::Role role = accessible->role();
            QVERIFY2(
                role != QAccessible::NoRole && role != QAccessible::Client,
                qPrintable(QStringLiteral("%1: %2 has no accessible role").arg(page, describe(control))));
        }
        QVERIFY2(first != nullptr && reached.contains(first), qPrintable(page));
        for (QQuickItem* control : std::as_const(expected))
            QVERIFY2(reached.contains(control),
                     qPrintable(QStringLiteral("%1: Tab never reached %2").arg(page, describe(control))));
    }

private slots:
    void initTestCase() {
        test::failOnQmlWarnings();
        QAccessible::setActive(true); // as with a screen reader: controls publish their names
        QVERIFY(fixture_.open("hearth-keyboard", [](app::HearthBackend& backend, const QString&) {
            backend.settings()->setTemperature(1.0);
            backend.settings()->setMaxReplyTokens(32768); // stories260K writes on until stopped
        }));
    }
    void cleanupTestCase() { fixture_.close(); }

    // The build copies the demo model to ../share/hearth/models from the binaries, as the
    // package installs it; a fresh start offers it on the models page, and it loads.
    void theFirstStartOffersTheDemoModel() {
        app::ModelController* models = fixture_.backend->models();
        QCOMPARE(QFileInfo(models->demoModelPath()).fileName(), QStringLiteral("stories260K.gguf"));
        QVERIFY(QFileInfo(models->demoModelPath()).isFile());
        QVERIFY(models->offerDemo());
        showPage(QStringLiteral("models"));
        QQuickItem* offer = item(QStringLiteral("demoOffer"));
        QVERIFY(offer && offer->isVisible());
        QVERIFY(item(QStringLiteral("demoDescription"))->property("text").toString().contains("children"));

        QTest::mouseClick(fixture_.window, Qt::LeftButton, Qt::NoModifier,
                          item(QStringLiteral("tryDemoButton"))
                              ->mapToScene(QPointF(item(QStringLiteral("tryDemoButton"))->width() / 2,
                                                   item(QStringLiteral("tryDemoButton"))->height() / 2))
                              .toPoint());
        QTRY_VERIFY_WITH_TIMEOUT(models->loaded() && !models->busy(), 60000);
        QCOMPARE(models->modelPath(), models->demoModelPath());
        QVERIFY(!models->offerDemo()); // remembered now: the offer has done its work
        QCOMPARE(fixture_.window->property("page").toString(), QStringLiteral("chat"));
        QVERIFY(!offer->isVisible());
    }

    // Keys typed on the Settings or Models page never reach the chat's composer, which the page
    // hides: a click on a sidebar entry or on a blank area of the page takes no focus itself.
    void keysTypedOffTheChatStayOffIt_data() {
        QTest::addColumn<QString>("page");
        QTest::newRow("settings") << QStringLiteral("settings");
        QTest::newRow("models") << QStringLiteral("models");
    }
    void keysTypedOffTheChatStayOffIt() {
        QFETCH(QString, page);
        showPage(QStringLiteral("chat"));
        QQuickItem* input = item(QStringLiteral("composerInput"));
        input->forceActiveFocus();
        const int messages = fixture_.backend->chat()->messages()->rowCount();
        click(item(QStringLiteral("nav_") + page));
        QCOMPARE(fixture_.window->property("page").toString(), page);
        QVERIFY(QQuickTest::qWaitForPolish(fixture_.window));
        // A blank area: the top bar's left part, beside the page's title.
        QQuickItem* title = item(QStringLiteral("pageTitle"));
        QTest::mouseClick(fixture_.window, Qt::LeftButton, Qt::NoModifier,
                          title->mapToScene(QPointF(title->width() - 4, title->height() / 2)).toPoint());
        for (const char key : {'2', '0', '0', '0', 'z', 'z', 'z'})
            QTest::keyClick(fixture_.window, key);
        QTest::keyClick(fixture_.window, Qt::Key_Return);
        QVERIFY(!fixture_.backend->chat()->generating());
        QCOMPARE(fixture_.backend->chat()->messages()->rowCount(), messages);
        QCOMPARE(input->property("text").toString(), QString());
        showPage(QStringLiteral("chat"));
    }

    void tabReachesAndNamesEveryControl_data() {
        QTest::addColumn<QString>("page");
        QTest::newRow("models") << QStringLiteral("models");
        QTest::newRow("settings") << QStringLiteral("settings");
        QTest::newRow("chat") << QStringLiteral("chat");
    }
    void tabReachesAndNamesEveryControl() {
        QFETCH(QString, page);
        if (page == QLatin1String("chat") && fixture_.backend->chat()->messages()->rowCount() == 0) {
            // A conversation with a reply: its copy and regenerate buttons are controls too.
            fixture_.backend->settings()->setMaxReplyTokens(24);
            QVERIFY(fixture_.backend->chat()->send(QStringLiteral("Once upon a time")));
            QTRY_VERIFY_WITH_TIMEOUT(!fixture_.backend->chat()->generating(), 60000);
            fixture_.backend->settings()->setMaxReplyTokens(32768);
        }
        walkWithTab(page);
    }

    // Every Tab stop of the chat page shows that it has the focus: its pixels (and a ring's just
    // outside it) change when Tab reaches it. The hover-only buttons of a chat's row are not Tab
    // stops: the row itself takes F2 to rename and Delete to delete.
    void everyTabStopShowsItsFocus() {
        showPage(QStringLiteral("chat"));
        QVERIFY(fixture_.backend->chat()->messages()->rowCount() >
                0); // a current chat: its row is a Tab stop
        QQuickItem* start = item(QStringLiteral("newChatButton"));
        start->forceActiveFocus(Qt::TabFocusReason);
        QVERIFY(QQuickTest::qWaitForPolish(fixture_.window));
        // Unfocused, each control as it looks with the focus on the first one (which is compared
        // with the look after the walk, when the focus has left it).
        QImage unfocused = fixture_.window->grabWindow();
        const qreal scale = unfocused.devicePixelRatio();
        const auto changedPixels = [scale](const QImage& a, const QImage& b, QRectF rect) {
            const QRect pixels =
                QRectF(rect.x() * scale, rect.y() * scale, rect.width() * scale, rect.height() * scale)
                    .toAlignedRect()
                    .intersected(a.rect());
            int changed = 0;
            for (int y = pixels.top(); y <= pixels.bottom(); ++y)
                for (int x = pixels.left(); x <= pixels.right(); ++x)
                    if (!test::sameColour(a.pixel(x, y), b.pixel(x, y))) ++changed;
            return changed;
        };
        QQuickItem* first = nullptr;
        QList<QQuickItem*> stops;
        for (int step = 0; step < 100; ++step) {
            QTest::keyClick(fixture_.window, Qt::Key_Tab);
            QQuickItem* control = controlOf(fixture_.window->activeFocusItem());
            if (control == first) break;
            if (!first) first = control;
            const QString name = control->objectName();
            QVERIFY2(name != QLatin1String("renameChatButton") && name != QLatin1String("deleteChatButton"),
                     qPrintable(describe(control)));
            stops.append(control);
            QVERIFY(QQuickTest::qWaitForPolish(fixture_.window));
            if (control == start) continue;
            // A ring may fade in (the message actions' opacity is animated).
            const QRectF area = test::sceneRect(control).adjusted(-3, -3, 3, 3);
            QTRY_VERIFY2(
                changedPixels(unfocused, fixture_.window->grabWindow(), area) >= 12,
                qPrintable(QStringLiteral("%1 looks the same with the focus").arg(describe(control))));
        }
        QVERIFY(stops.size() >= 8);
        start->forceActiveFocus(Qt::TabFocusReason);
        const QImage startFocused = fixture_.window->grabWindow();
        first->forceActiveFocus(Qt::TabFocusReason);
        QVERIFY(QQuickTest::qWaitForPolish(fixture_.window));
        QVERIFY2(changedPixels(startFocused, fixture_.window->grabWindow(),
                               test::sceneRect(start).adjusted(-3, -3, 3, 3)) >= 12,
                 qPrintable(QStringLiteral("%1 looks the same with the focus").arg(describe(start))));

        // The current chat's row: F2 renames it, Delete asks before deleting it.
        QQuickItem* row = nullptr;
        for (QQuickItem* stop : std::as_const(stops))
            if (stop->objectName().startsWith(QLatin1String("conversation_")) &&
                stop->property("current").toBool())
                row = stop;
        QVERIFY(row);
        row->forceActiveFocus(Qt::TabFocusReason);
        QTest::keyClick(fixture_.window, Qt::Key_F2);
        QQuickItem* rename = findByName(row, QStringLiteral("renameField"));
        QVERIFY(rename && rename->isVisible() && rename->hasActiveFocus());
        QTest::keyClick(fixture_.window, Qt::Key_Escape);
        QVERIFY(!rename->isVisible());
        row->forceActiveFocus(Qt::TabFocusReason);
        QTest::keyClick(fixture_.window, Qt::Key_Delete);
        QObject* dialog = fixture_.window->findChild<QObject*>(QStringLiteral("deleteChatDialog"));
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->property("opened").toBool());
        QMetaObject::invokeMethod(dialog, "reject");
        QTRY_VERIFY(!dialog->property("opened").toBool());
        QVERIFY(fixture_.backend->chat()->messages()->rowCount() > 0);
    }

    void tabLeavesTheComposerAndCtrlTabTypesATab() {
        showPage(QStringLiteral("chat"));
        QQuickItem* input = item(QStringLiteral("composerInput"));
        input->forceActiveFocus();
        input->setProperty("text", QString());
        QTest::keyClick(fixture_.window, 'a');
        QTest::keyClick(fixture_.window, Qt::Key_Tab, Qt::ControlModifier);
        QTest::keyClick(fixture_.window, 'b');
        QCOMPARE(input->property("text").toString(), QStringLiteral("a\tb"));
        QTest::keyClick(fixture_.window, Qt::Key_Tab);
        QVERIFY(!input->hasActiveFocus());
        QCOMPARE(input->property("text").toString(), QStringLiteral("a\tb"));
        QTest::keyClick(fixture_.window, Qt::Key_Backtab, Qt::ShiftModifier);
        QVERIFY(input->hasActiveFocus());
        input->setProperty("text", QString());
    }

    void shortcutsDoWhatTheySay() {
        showPage(QStringLiteral("models"));
        QTest::keyClick(fixture_.window, Qt::Key_N, Qt::ControlModifier);
        QCOMPARE(fixture_.window->property("page").toString(), QStringLiteral("chat"));
        QVERIFY(fixture_.backend->chat()->currentConversationId().isEmpty()); // a new, empty chat
        QVERIFY(item(QStringLiteral("composerInput"))->hasActiveFocus());

        for (const Qt::Key key : {Qt::Key_K, Qt::Key_F}) {
            item(QStringLiteral("composerInput"))->forceActiveFocus();
            QTest::keyClick(fixture_.window, key, Qt::ControlModifier);
            QVERIFY(item(QStringLiteral("searchField"))->hasActiveFocus());
        }

        QTest::keyClick(fixture_.window, Qt::Key_Comma, Qt::ControlModifier);
        QCOMPARE(fixture_.window->property("page").toString(), QStringLiteral("settings"));

        QObject* fileDialog = fixture_.window->findChild<QObject*>(QStringLiteral("modelFileDialog"));
        QVERIFY(fileDialog);
        QTest::keyClick(fixture_.window, Qt::Key_O, Qt::ControlModifier);
        QCOMPARE(fixture_.window->property("page").toString(), QStringLiteral("models"));
        QTRY_VERIFY(fileDialog->property("opened").toBool());
        QMetaObject::invokeMethod(fileDialog, "reject");
        QTRY_VERIFY(!fileDialog->property("opened").toBool());

        // Esc stops a reply that is streaming.
        fixture_.window->setProperty("page", QStringLiteral("chat"));
        QVERIFY(fixture_.backend->chat()->send(QStringLiteral("Once upon a time")));
        QTRY_VERIFY_WITH_TIMEOUT(fixture_.backend->chat()->generating(), 10000);
        QQuickItem* stopButton = item(QStringLiteral("stopButton"));
        QVERIFY(stopButton);
        QVERIFY(QQmlProperty(stopButton, QStringLiteral("ToolTip.text"), qmlContext(stopButton))
                    .read()
                    .toString()
                    .contains("Esc"));
        QTest::keyClick(fixture_.window, Qt::Key_Escape);
        QTRY_VERIFY_WITH_TIMEOUT(!fixture_.backend->chat()->generating(), 10000);
        const auto& messages = fixture_.backend->chat()->messages()->messages();
        QCOMPARE(messages.constLast().state, app::MessageState::Stopped);

        // Ctrl+L: to the chat's composer, from any page; F1: the shortcuts, Esc closes them.
        showPage(QStringLiteral("settings"));
        QTest::keyClick(fixture_.window, Qt::Key_L, Qt::ControlModifier);
        QCOMPARE(fixture_.window->property("page").toString(), QStringLiteral("chat"));
        QVERIFY(item(QStringLiteral("composerInput"))->hasActiveFocus());
        QObject* shortcuts = fixture_.window->findChild<QObject*>(QStringLiteral("shortcutsDialog"));
        QVERIFY(shortcuts);
        QTest::keyClick(fixture_.window, Qt::Key_F1);
        QTRY_VERIFY(shortcuts->property("opened").toBool());
        QTest::keyClick(fixture_.window, Qt::Key_Escape);
        QTRY_VERIFY(!shortcuts->property("opened").toBool());

        QSignalSpy quit(fixture_.engine.get(), &QQmlEngine::quit);
        QTest::keyClick(fixture_.window, Qt::Key_Q, Qt::ControlModifier);
        QCOMPARE(quit.size(), 1);
    }

    void tooltipsNameTheShortcuts() {
        QVERIFY(item(QStringLiteral("newChatButton"))->property("tip").toString().contains("Ctrl+N"));
        showPage(QStringLiteral("models"));
        QVERIFY(item(QStringLiteral("openFileButton"))->property("tip").toString().contains("Ctrl+O"));
        QQuickItem* settingsEntry = item(QStringLiteral("nav_settings"));
        QVERIFY(QQmlProperty(settingsEntry, QStringLiteral("ToolTip.text"), qmlContext(settingsEntry))
                    .read()
                    .toString()
                    .contains("Ctrl+,"));
        QVERIFY(
            item(QStringLiteral("searchField"))->property("placeholderText").toString().contains("Ctrl+K"));
    }

    // A reply's versions from the keyboard: Tab reaches the "previous version" and "next version"
    // buttons, each named for a screen reader, and Space on them shows each version.
    void switchesVersionsWithTheKeyboard() {
        showPage(QStringLiteral("chat"));
        app::ChatController* chat = fixture_.backend->chat();
        chat->newConversation();
        fixture_.backend->settings()->setMaxReplyTokens(8);
        QVERIFY(chat->send(QStringLiteral("Once upon a time")));
        QTRY_VERIFY_WITH_TIMEOUT(!chat->generating(), 60000);
        const QString first = chat->messages()->messages().at(1).id;
        QVERIFY(chat->regenerate());
        QTRY_VERIFY_WITH_TIMEOUT(!chat->generating(), 60000);
        fixture_.backend->settings()->setMaxReplyTokens(32768);
        const QString second = chat->messages()->messages().at(1).id;
        QVERIFY(second != first);
        QVERIFY(QQuickTest::qWaitForPolish(fixture_.window));

        // Tab from the sidebar's first control to the named button.
        const auto tabTo = [this](const QString& name) -> QQuickItem* {
            item(QStringLiteral("newChatButton"))->forceActiveFocus(Qt::TabFocusReason);
            for (int step = 0; step < 100; ++step) {
                QTest::keyClick(fixture_.window, Qt::Key_Tab);
                QQuickItem* focused = fixture_.window->activeFocusItem();
                if (focused && focused->objectName() == name) return focused;
            }
            return nullptr;
        };
        QQuickItem* previous = tabTo(QStringLiteral("previousVersionButton"));
        QVERIFY2(previous, "Tab never reached the previous version's button");
        QAccessibleInterface* accessible = QAccessible::queryAccessibleInterface(previous);
        QVERIFY(accessible);
        QCOMPARE(accessible->role(), QAccessible::Button);
        QVERIFY(accessible->text(QAccessible::Name).contains(QStringLiteral("Previous version")));
        QQuickItem* label = findByName(previous->parentItem(), QStringLiteral("versionLabel")); // its "2 / 2"
        QVERIFY(label);
        QCOMPARE(label->property("text").toString(), QStringLiteral("2 / 2"));
        QTest::keyClick(fixture_.window, Qt::Key_Space);
        QCOMPARE(chat->messages()->messages().at(1).id, first);
        QTRY_COMPARE(label->property("text").toString(), QStringLiteral("1 / 2"));

        QQuickItem* next = tabTo(QStringLiteral("nextVersionButton"));
        QVERIFY2(next, "Tab never reached the next version's button");
        QVERIFY(
            QAccessible::queryAccessibleInterface(next)->text(QAccessible::Name).contains("Next version"));
        QTest::keyClick(fixture_.window, Qt::Key_Space);
        QCOMPARE(chat->messages()->messages().at(1).id, second);
        QTRY_COMPARE(label->property("text").toString(), QStringLiteral("2 / 2"));
    }
};

QTEST_MAIN(TestKeyboard)
#include "test_keyboard.moc"
