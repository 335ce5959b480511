// The window's other popups in the real window, as under Xvfb: the Material style and the
// software renderer, which draws no shader effects. Material draws a dialog's background and a
// combo box's list with a layer effect (ElevationEffect), so there the delete-chat dialog and the
// settings' drop-down lists showed the page through them. Each must be an opaque panel in the
// theme's colour; the dialog also dims the page behind it and takes its clicks. In the light and
// the dark theme; screenshots at 1280x800 go to build/test-artifacts/delete-dialog-*.png and
// combo-popup-*.png.
#include "app/chat/chat_controller.h"
#include "app/chat/conversation_search_model.h"
#include "app/chat/hearth_backend.h"
#include "app/gui/main_window.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "tests/app/backend_fixture.h"
#include "tests/app/qml_warnings.h"
#include "tests/app/quick_items.h"
#include "tests/support/test_support.h"

#include <QDir>
#include <QGuiApplication>
#include <QImage>
#include <QQmlApplicationEngine>
#include <QQmlContext>
#include <QQmlExpression>
#include <QQuickItem>
#include <QQuickWindow>
#include <QTest>
#include <QtQuickTest/quicktest.h>
#include <memory>

using namespace hearth;
using hearth::test::findShown;
using hearth::test::luminance;
using hearth::test::sameColour;
using hearth::test::sceneRect;

class TestPopups : public QObject {
    Q_OBJECT

    QString dir_;
    std::unique_ptr<app::HearthBackend> backend_;
    std::unique_ptr<QQmlApplicationEngine> engine_;
    QQuickWindow* window_ = nullptr;

    QQuickItem* item(const QString& name) const { return test::findByName(window_->contentItem(), name); }
    QQuickItem* shown(const QString& name) const { return findShown(window_->contentItem(), name); }
    void clickOn(QQuickItem* target) {
        QTest::mouseClick(window_, Qt::LeftButton, {},
                          target->mapToScene(target->boundingRect().center()).toPoint());
    }
    // A colour of the theme (Theme.qml), as the window's QML sees it.
    QColor themeColour(const QString& name) {
        QQmlExpression expression(qmlContext(item(QStringLiteral("sidebar"))), nullptr,
                                  QStringLiteral("Theme.") + name);
        const QVariant value = expression.evaluate();
        if (expression.hasError()) qWarning("%s", qPrintable(expression.error().toString()));
        return value.value<QColor>();
    }
    void setTheme(const QString& theme) {
        backend_->settings()->setTheme(theme);
        QTRY_COMPARE(themeColour(QStringLiteral("window")),
                     QColor(theme == QLatin1String("dark") ? "#15161b" : "#f7f7fa"));
        QVERIFY(QQuickTest::qWaitForPolish(window_));
    }
    // name: a file name in build/test-artifacts.
    void saveScreenshot(const QImage& image, const QString& name) {
        const QString folder = QString::fromStdString(test::artifact_dir());
        QDir().mkpath(folder);
        const QString path = folder + QLatin1Char('/') + name;
        QVERIFY2(image.save(path), qPrintable(path));
        qInfo("screenshot: %s", qPrintable(path));
    }

    // The panel is drawn opaque in `colour`: just inside its top edge and its left edge the
    // grabbed window has that colour (the page does not show through), and its background item,
    // Hearth's own, says so and covers the popup's whole area.
    void checkOpaquePanel(const QImage& image, QQuickItem* panel, const QColor& colour,
                          const QString& backgroundName, const QString& what) {
        const QRectF area = sceneRect(panel);
        for (const QPoint inside : {QPoint(qRound(area.center().x()), qRound(area.top()) + 3),
                                    QPoint(qRound(area.left()) + 3, qRound(area.center().y()))}) {
            QVERIFY2(sameColour(image.pixel(inside), colour.rgb()),
                     qPrintable(QStringLiteral("%1: the panel is %2 at %3,%4 where the theme's colour is %5")
                                    .arg(what, QColor(image.pixel(inside)).name())
                                    .arg(inside.x())
                                    .arg(inside.y())
                                    .arg(colour.name())));
        }
        QQuickItem* background = shown(backgroundName);
        QVERIFY2(background, qPrintable(what + QStringLiteral(": no background of Hearth's own")));
        QCOMPARE(background->property("color").value<QColor>(), colour);
        QCOMPARE(colour.alpha(), 255);
        QCOMPARE(sceneRect(background), area);
    }

private slots:
    void initTestCase() {
        test::failOnQmlWarnings();
        dir_ = QString::fromStdString(test::make_temp_dir("hearth-popups"));
        app::prepareQuick(); // Material, and the software renderer offscreen (as under Xvfb)
        backend_ =
            std::make_unique<app::HearthBackend>(app::AppPaths{dir_ + "/data", dir_ + "/settings.ini"});
        backend_->settings()->setTheme(QStringLiteral("light"));
        backend_->settings()->setMaxReplyTokens(8);
        engine_ = std::make_unique<QQmlApplicationEngine>();
        window_ = app::loadMainWindow(*engine_, *backend_);
        QVERIFY(window_ != nullptr);
        QVERIFY(test::startChat(*backend_));
        window_->resize(1280, 800);
        window_->requestActivate();
        QVERIFY(QTest::qWaitForWindowActive(window_));
        // Two conversations in the sidebar: the dialog asks about one of them.
        QVERIFY(test::loadModel(*backend_));
        for (const char* prompt : {"Once upon a time", "The cat"}) {
            backend_->chat()->newConversation();
            QVERIFY(backend_->chat()->send(QString::fromLatin1(prompt)));
            QVERIFY(test::finishReply(backend_->chat()));
        }
        window_->setProperty("page", QStringLiteral("chat"));
        QTRY_VERIFY(item(QStringLiteral("conversation_1")));
        QVERIFY(QQuickTest::qWaitForPolish(window_));
    }

    void deleteDialogIsADialog_data() {
        QTest::addColumn<QString>("theme");
        QTest::newRow("light") << QStringLiteral("light");
        QTest::newRow("dark") << QStringLiteral("dark");
    }
    // The current conversation's Delete opens the dialog: an opaque panel in the theme's surface
    // colour over a dim that darkens the whole window and takes its clicks; its title, text and
    // buttons inside the panel. Cancel keeps the conversation, Delete (the dark run) deletes it.
    void deleteDialogIsADialog() {
        QFETCH(QString, theme);
        setTheme(theme);
        QQuickItem* row = item(QStringLiteral("conversation_0"));
        QVERIFY(row);
        clickOn(row); // the current conversation: its Rename and Delete show
        QVERIFY(QQuickTest::qWaitForPolish(window_));
        QTest::mouseMove(window_,
                         QPoint(window_->width() - 5, window_->height() / 2)); // no hover over the page
        QTRY_VERIFY(!row->property("hovered").toBool());
        QVERIFY(QQuickTest::qWaitForPolish(window_));
        const QImage page = window_->grabWindow();
        const QString title = row->property("title").toString();
        QQuickItem* deleteButton = findShown(row, QStringLiteral("deleteChatButton"));
        QVERIFY(deleteButton);
        QObject* popup =
            item(QStringLiteral("sidebar"))->findChild<QObject*>(QStringLiteral("deleteChatDialog"));
        QVERIFY(popup);
        clickOn(deleteButton);
        QTRY_VERIFY(popup->property("opened").toBool());
        QQuickItem* dialog =
            popup->property("background").value<QQuickItem*>()->parentItem(); // the popup's item
        QVERIFY(dialog);
        QTRY_COMPARE(dialog->opacity(), 1.0); // the enter transition is over
        QTRY_COMPARE(dialog->scale(), 1.0);
        QQuickItem* dim = shown(QStringLiteral("deleteChatDim"));
        QVERIFY2(dim, "no modal dim of Hearth's own");
        QTRY_COMPARE(dim->opacity(), 1.0); // its fade is over
        const QImage image = window_->grabWindow();
        saveScreenshot(image, QStringLiteral("delete-dialog-%1.png").arg(theme));

        // Around it, the page is darker than before: in the sidebar and on the chat page.
        const QRectF panel = sceneRect(dialog);
        for (const QPoint outside : {QPoint(20, 20), QPoint(window_->width() - 20, window_->height() - 20),
                                     QPoint(qRound(panel.center().x()), qRound(panel.top()) - 30)})
            QVERIFY2(luminance(image.pixel(outside)) < luminance(page.pixel(outside)) * 0.75 ||
                         luminance(page.pixel(outside)) < 8,
                     qPrintable(
                         QStringLiteral("%1: the page at %2,%3 is not dimmed (%4 before, %5 now)")
                             .arg(theme)
                             .arg(outside.x())
                             .arg(outside.y())
                             .arg(QColor(page.pixel(outside)).name(), QColor(image.pixel(outside)).name())));
        checkOpaquePanel(image, dialog, themeColour(QStringLiteral("surface")),
                         QStringLiteral("deleteChatBackground"), theme);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(sceneRect(dim), QRectF(QPointF(0, 0), window_->size()));

        // What it says, inside the panel, in the theme's text colour.
        QQuickItem* heading = shown(QStringLiteral("deleteChatTitle"));
        QQuickItem* text = shown(QStringLiteral("deleteChatText"));
        QQuickItem* cancel = shown(QStringLiteral("deleteChatCancel"));
        QQuickItem* confirm = shown(QStringLiteral("deleteChatConfirm"));
        QVERIFY(heading && text && cancel && confirm);
        QCOMPARE(heading->property("text").toString(), QStringLiteral("Delete chat?"));
        QCOMPARE(heading->property("color").value<QColor>(), themeColour(QStringLiteral("text")));
        QVERIFY(text->property("text").toString().contains(title));
        for (QQuickItem* part : {heading, text, cancel, confirm})
            QVERIFY2(panel.contains(sceneRect(part)),
                     qPrintable(part->objectName() + QStringLiteral(" lies outside the panel")));
        QVERIFY(sceneRect(heading).bottom() <= sceneRect(text).top());
        QVERIFY(sceneRect(text).bottom() <= sceneRect(cancel).top());
        QVERIFY(cancel->hasActiveFocus()); // Esc, Space and Tab work at once

        // The dim takes the page's clicks: a click on another conversation does not open it. (QTest
        // delivers the click before it returns: had it reached the row, the row's handler would
        // have switched the conversation by then.) A click outside closes the dialog, as Cancel.
        const QString current = backend_->chat()->currentConversationId();
        QTest::mouseClick(window_, Qt::LeftButton, {},
                          sceneRect(item(QStringLiteral("conversation_1"))).center().toPoint());
        QCOMPARE(backend_->chat()->currentConversationId(), current);
        QTRY_VERIFY(!dialog->isVisible());
        QCOMPARE(backend_->chat()->currentConversationId(), current);
        QCOMPARE(backend_->chat()->conversations()->rowCount(), 2);

        clickOn(deleteButton);
        QTRY_COMPARE(dialog->opacity(), 1.0);
        if (theme == QLatin1String("light")) {
            clickOn(cancel);
            QTRY_VERIFY(!dialog->isVisible());
            QCOMPARE(backend_->chat()->conversations()->rowCount(), 2);
        } else {
            clickOn(confirm);
            QTRY_VERIFY(!dialog->isVisible());
            QTRY_COMPARE(backend_->chat()->conversations()->rowCount(), 1);
        }
    }

    void comboBoxListIsOpaque_data() {
        QTest::addColumn<QString>("theme");
        QTest::newRow("light") << QStringLiteral("light");
        QTest::newRow("dark") << QStringLiteral("dark");
    }
    // The context length's drop-down list on the settings page: an opaque panel in the theme's
    // raised surface colour, the entries on it; the box itself drawn in the theme's colours.
    void comboBoxListIsOpaque() {
        QFETCH(QString, theme);
        setTheme(theme);
        window_->setProperty("page", QStringLiteral("settings"));
        QVERIFY(QQuickTest::qWaitForPolish(window_));
        QVERIFY(QMetaObject::invokeMethod(item(QStringLiteral("settingsPanel")), "showContextLength"));
        QVERIFY(QQuickTest::qWaitForPolish(window_));
        QQuickItem* combo = item(QStringLiteral("contextCombo"));
        QVERIFY(combo && combo->isVisible());
        QTest::mouseMove(window_, QPoint(window_->width() - 5, window_->height() / 2)); // not over the box
        QTRY_VERIFY(!combo->property("hovered").toBool());
        QVERIFY(QQuickTest::qWaitForPolish(window_));
        const QImage closed = window_->grabWindow();

        clickOn(combo);
        QObject* popup = combo->property("popup").value<QObject*>();
        QVERIFY(popup);
        QTRY_VERIFY(popup->property("opened").toBool());
        QQuickItem* panel =
            popup->property("background").value<QQuickItem*>()->parentItem(); // the popup's item
        QVERIFY(panel);
        QTRY_COMPARE(panel->opacity(), 1.0);
        QTRY_COMPARE(panel->scale(), 1.0);
        QVERIFY(panel->height() > combo->height() * 3); // the seven context lengths, or most of them
        const QImage image = window_->grabWindow();
        saveScreenshot(image, QStringLiteral("combo-popup-%1.png").arg(theme));
        checkOpaquePanel(image, panel, themeColour(QStringLiteral("surfaceRaised")),
                         QStringLiteral("comboPopupBackground"), theme);
        if (QTest::currentTestFailed()) return;

        // The box itself, closed: drawn in the theme's surface colour (Material's was a layer
        // effect too).
        const QRectF box = sceneRect(combo);
        const QPoint insideBox(qRound(box.left()) + 5, qRound(box.center().y()));
        QVERIFY2(sameColour(closed.pixel(insideBox), themeColour(QStringLiteral("surface")).rgb()),
                 qPrintable(
                     QStringLiteral("%1: the box is %2").arg(theme, QColor(closed.pixel(insideBox)).name())));
        QTest::keyClick(window_, Qt::Key_Escape);
        QTRY_VERIFY(!popup->property("visible").toBool());
        window_->setProperty("page", QStringLiteral("chat"));
    }

    // A popup a failed check left open is closed before the next test: Esc, then its exit
    // transition runs to its end (a popup is visible until then).
    void cleanup() {
        QTest::keyClick(window_, Qt::Key_Escape);
        QList<QObject*> popups{
            item(QStringLiteral("sidebar"))->findChild<QObject*>(QStringLiteral("deleteChatDialog"))};
        if (QQuickItem* combo = item(QStringLiteral("contextCombo")))
            popups << combo->property("popup").value<QObject*>();
        for (QObject* popup : popups)
            QTRY_VERIFY(popup && !popup->property("visible").toBool());
    }

    void cleanupTestCase() {
        engine_.reset();
        backend_.reset();
    }
};

QTEST_MAIN(TestPopups)
#include "test_popups.moc"
