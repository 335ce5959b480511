// The chat column's layout in the real window (offscreen, software-rendered) with stories260K,
// which writes real prose: at several window sizes, with the metrics panel open and closed,
// after a reply has streamed and after a restart, no message is laid out wider than the list
// and every line of its text lies inside the list. A finished reply once kept the width it was
// first laid out at and ran off the column's right edge. The metrics panel, docked, once left the
// chat ~220 px in a 900-1200 px window: it now lies over the chat there, and the list keeps 400 px.
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/chat/message_list_model.h"
#include "app/gui/main_window.h"
#include "app/gui/translations.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "tests/app/qml_warnings.h"
#include "tests/app/quick_items.h"
#include "tests/support/test_support.h"

#include <QDateTime>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QTest>
#include <QUrl>
#include <QtQuickTest/quicktest.h>
#include <memory>

using namespace hearth;

namespace {

void collectTexts(QQuickItem* item, QList<QQuickItem*>& out) {
    if (!item || !item->isVisible()) return;
    const QString name = item->objectName();
    if (name == QLatin1String("assistantText") || name == QLatin1String("userText")) out.append(item);
    for (QQuickItem* child : item->childItems())
        collectTexts(child, out);
}

using hearth::test::findByName;

// The window, its engine and backend over one data folder: destroyed and made again to restart.
struct RunningApp {
    std::unique_ptr<app::HearthBackend> backend;
    std::unique_ptr<QQmlApplicationEngine> engine;
    QQuickWindow* window = nullptr;
};

} // namespace

class TestChatLayout : public QObject {
    Q_OBJECT

    QString dir_;

    void start(RunningApp& running) {
        running.backend =
            std::make_unique<app::HearthBackend>(app::AppPaths{dir_ + "/data", dir_ + "/settings.ini"});
        running.backend->settings()->setTemperature(0.0);
        // Long enough that the conversation is taller than the chat column at 800x600, now that
        // the metrics panel no longer narrows it there.
        running.backend->settings()->setMaxReplyTokens(400);
        running.engine = std::make_unique<QQmlApplicationEngine>();
        running.window = app::loadMainWindow(*running.engine, *running.backend);
        QVERIFY(running.window != nullptr);
        running.backend->start();
        QTRY_VERIFY_WITH_TIMEOUT(running.backend->chat()->ready(), 10000);
    }

    // Every size and both states of the metrics panel: the messages fit the list.
    void checkEveryLayout(QQuickWindow* window, const QString& when) {
        const QList<QSize> sizes{{800, 600}, {1000, 700}, {1280, 800}, {1920, 1080}};
        for (const QSize size : sizes) {
            for (const bool metricsOpen : {false, true}) {
                window->setProperty("metricsOpen", metricsOpen);
                window->resize(size);
                // The platform applies a new geometry through its event queue.
                QTRY_COMPARE(window->contentItem()->size(), QSizeF(size));
                const QString where = QStringLiteral("%1, %2x%3, metrics %4")
                                          .arg(when)
                                          .arg(size.width())
                                          .arg(size.height())
                                          .arg(metricsOpen ? "open" : "closed");
                checkMessagesFit(window, where);
                if (QTest::currentTestFailed()) return;
                checkTheChatKeepsItsWidth(window, metricsOpen, where);
                if (QTest::currentTestFailed()) return;
            }
        }
    }

    // The metrics panel never squeezes the chat below a usable width: under 1200 px it lies over
    // the chat from the right edge, with a shadow; in a wider window it takes its own place beside it.
    static void checkTheChatKeepsItsWidth(QQuickWindow* window, bool metricsOpen, const QString& where) {
        QQuickItem* list = findByName(window->contentItem(), QStringLiteral("messageList"));
        QQuickItem* panel = findByName(window->contentItem(), QStringLiteral("metricsPanel"));
        QQuickItem* shadow = findByName(window->contentItem(), QStringLiteral("metricsShadow"));
        QVERIFY(list && panel && shadow);
        QVERIFY2(list->width() >= 400,
                 qPrintable(QStringLiteral("%1: the chat list is %2 px wide").arg(where).arg(list->width())));
        QCOMPARE(panel->isVisible(), metricsOpen);
        // The engine's figures are published to the bindings only while the panel shows them.
        const auto* metrics = window->property("metrics").value<QObject*>();
        QVERIFY(metrics);
        QCOMPARE(metrics->property("watched").toBool(), metricsOpen);
        if (!metricsOpen) return;
        const QRectF panelRect = panel->mapRectToScene(QRectF(0, 0, panel->width(), panel->height()));
        const QRectF listRect = list->mapRectToScene(QRectF(0, 0, list->width(), list->height()));
        QCOMPARE(panelRect.right(), qreal(window->width()));
        QVERIFY2(panelRect.width() >= 300, qPrintable(where));
        const bool overlaid = window->width() < 1200;
        QVERIFY2(shadow->isVisible() == overlaid, qPrintable(where + QStringLiteral(": shadow")));
        if (overlaid)
            QVERIFY2(listRect.right() > panelRect.left(),
                     qPrintable(where + QStringLiteral(": not over the chat")));
        else
            QVERIFY2(listRect.right() <= panelRect.left() + 0.5,
                     qPrintable(QStringLiteral("%1: the list ends at %2, the panel starts at %3")
                                    .arg(where)
                                    .arg(listRect.right())
                                    .arg(panelRect.left())));
    }

    static void checkMessagesFit(QQuickWindow* window, const QString& where) {
        QVERIFY(QQuickTest::qWaitForPolish(window));
        QQuickItem* list = findByName(window->contentItem(), QStringLiteral("messageList"));
        QVERIFY(list);
        const int count = list->property("count").toInt();
        QVERIFY2(count >= 2, qPrintable(where));
        const QRectF listRect = list->mapRectToScene(QRectF(0, 0, list->width(), list->height()));
        int textsSeen = 0;
        for (int row = 0; row < count; ++row) {
            QQuickItem* delegate = nullptr;
            QMetaObject::invokeMethod(list, "itemAtIndex", Q_RETURN_ARG(QQuickItem*, delegate),
                                      Q_ARG(int, row));
            if (!delegate) continue; // not instantiated: out of the cache buffer
            QVERIFY2(delegate->width() <= list->width() + 0.5,
                     qPrintable(QStringLiteral("%1: message %2 is %3 wide in a list %4 wide")
                                    .arg(where)
                                    .arg(row)
                                    .arg(delegate->width())
                                    .arg(list->width())));
            QList<QQuickItem*> texts;
            collectTexts(delegate, texts);
            for (QQuickItem* text : texts) {
                ++textsSeen;
                // contentWidth is the widest line; from the item's left edge it must end inside the list.
                const qreal widest = text->property("contentWidth").toReal();
                const QRectF lines = text->mapRectToScene(QRectF(0, 0, widest, text->height()));
                QVERIFY2(lines.left() >= listRect.left() - 0.5 && lines.right() <= listRect.right() + 0.5,
                         qPrintable(QStringLiteral("%1: message %2's text spans x %3..%4, the list %5..%6")
                                        .arg(where)
                                        .arg(row)
                                        .arg(lines.left())
                                        .arg(lines.right())
                                        .arg(listRect.left())
                                        .arg(listRect.right())));
                QVERIFY2(
                    widest <= text->width() + 0.5,
                    qPrintable(QStringLiteral("%1: message %2's lines are %3 wide in a text item %4 wide")
                                   .arg(where)
                                   .arg(row)
                                   .arg(widest)
                                   .arg(text->width())));
            }
        }
        QVERIFY2(textsSeen >= 2, qPrintable(where));
        // At the end of the conversation there is nothing below to scroll to.
        QQuickItem* scrollDown = findByName(window->contentItem(), QStringLiteral("scrollToBottomButton"));
        QVERIFY(scrollDown);
        if (list->property("atYEnd").toBool())
            QVERIFY2(!scrollDown->isVisible(),
                     qPrintable(where + ": the scroll-to-bottom button shows at the bottom"));
    }

private slots:
    void initTestCase() {
        app::prepareQuick();
        app::installTranslations(*QCoreApplication::instance()); // as main() does: English plural forms
        test::failOnQmlWarnings();
        dir_ = QString::fromStdString(test::make_temp_dir("hearth-chat-layout"));
    }

    void finishedRepliesFitTheColumnAtEverySize() {
        QString conversation;
        {
            RunningApp running;
            start(running);
            if (QTest::currentTestFailed()) return;
            app::HearthBackend& backend = *running.backend;
            // Streamed at the default size, then the window changes around the finished reply.
            backend.models()->loadDroppedFile(
                QUrl::fromLocalFile(QString::fromStdString(test::testdata("models/stories260K.gguf"))));
            QTRY_VERIFY_WITH_TIMEOUT(backend.models()->loaded() && !backend.models()->busy(), 60000);
            QVERIFY(backend.chat()->send(QStringLiteral("Once upon a time there was a little dog")));
            QTRY_VERIFY_WITH_TIMEOUT(backend.chat()->generating(), 10000);
            QTRY_VERIFY_WITH_TIMEOUT(!backend.chat()->generating(), 120000);
            QCOMPARE(backend.chat()->messages()->rowCount(), 2);
            // Long enough to wrap in every column width tried.
            QVERIFY(backend.chat()->messages()->messages().constLast().content.size() > 200);
            conversation = backend.chat()->currentConversationId();
            running.window->setProperty("page", QStringLiteral("chat"));
            checkEveryLayout(running.window, QStringLiteral("after streaming"));
            if (QTest::currentTestFailed()) return;
            // Scrolled up, away from the end, the button is there to go back down.
            running.window->resize(800, 600);
            QTRY_COMPARE(running.window->contentItem()->size(), QSizeF(800, 600));
            QVERIFY(QQuickTest::qWaitForPolish(running.window));
            QQuickItem* list = findByName(running.window->contentItem(), QStringLiteral("messageList"));
            QVERIFY(QMetaObject::invokeMethod(list, "positionViewAtBeginning"));
            QVERIFY(!list->property("atYEnd").toBool()); // the conversation is taller than the view
            QTRY_VERIFY(findByName(running.window->contentItem(), QStringLiteral("scrollToBottomButton"))
                            ->isVisible());
        }
        RunningApp restarted;
        start(restarted);
        if (QTest::currentTestFailed()) return;
        restarted.backend->chat()->selectConversation(conversation);
        QTRY_COMPARE_WITH_TIMEOUT(restarted.backend->chat()->messages()->rowCount(), 2, 10000);
        restarted.window->setProperty("page", QStringLiteral("chat"));
        checkEveryLayout(restarted.window, QStringLiteral("after a restart"));
    }

    // While a reply streams, a paragraph that has ended becomes Markdown in an event of its own,
    // after the piece that ended it; until then its plain text stays on screen, so no frame shows
    // it blank or twice.
    void endedParagraphsStayOnScreenWhileTheirMarkdownIsMade() {
        RunningApp running;
        start(running);
        if (QTest::currentTestFailed()) return;
        QQuickWindow* window = running.window;
        window->setProperty("page", QStringLiteral("chat"));
        app::MessageListModel* messages = running.backend->chat()->messages();
        QVERIFY(messages != nullptr);
        app::MessageRecord question;
        question.id = QStringLiteral("question");
        question.content = QStringLiteral("Write two paragraphs.");
        question.createdAt = QDateTime::currentDateTime();
        messages->append(question);
        app::MessageRecord reply;
        reply.id = QStringLiteral("reply");
        reply.role = chat::Role::Assistant;
        reply.state = app::MessageState::Streaming;
        reply.createdAt = QDateTime::currentDateTime();
        reply.parentId = question.id;
        messages->append(reply);

        // Every frame: whether it shows one text per paragraph, none with no height.
        int paragraphs = 0, frames = 0;
        QString wrongFrame;
        const auto replyTexts = [&] {
            QList<QQuickItem*> texts;
            collectTexts(window->contentItem(), texts);
            QList<QQuickItem*> replies;
            for (QQuickItem* t : texts)
                if (t->objectName() == QLatin1String("assistantText")) replies.append(t);
            return replies;
        };
        QObject::connect(window, &QQuickWindow::frameSwapped, this, [&] {
            ++frames;
            const QList<QQuickItem*> texts = replyTexts();
            if (texts.size() != paragraphs && wrongFrame.isEmpty())
                wrongFrame = QStringLiteral("frame %1 showed %2 texts for %3 paragraphs")
                                 .arg(frames)
                                 .arg(texts.size())
                                 .arg(paragraphs);
            for (QQuickItem* t : texts)
                if (t->height() <= 0 && wrongFrame.isEmpty())
                    wrongFrame = QStringLiteral("frame %1 showed a text with no height").arg(frames);
        });
        const QString first = QStringLiteral("The first paragraph, which ends here.");
        paragraphs = 1;
        messages->appendText(reply.id, first);
        QTRY_COMPARE(replyTexts().size(), 1);
        QCOMPARE(replyTexts().constFirst()->metaObject()->className(), "QQuickText"); // growing: plain
        paragraphs = 2;
        messages->appendText(reply.id, QStringLiteral("\n\nThe second paragraph"));
        // Not in the call that ended the paragraph (the two together would hold the GUI thread).
        QCOMPARE(replyTexts().size(), 2);
        QCOMPARE(replyTexts().constFirst()->metaObject()->className(), "QQuickText");
        // The ended paragraph becomes a Markdown TextEdit while the reply still streams.
        QTRY_VERIFY(replyTexts().size() == 2 && replyTexts().constFirst()->inherits("QQuickTextEdit"));
        QCOMPARE(replyTexts().constFirst()->property("text").toString().trimmed(), first);
        QVERIFY(replyTexts().constLast()->metaObject()->className() == QByteArray("QQuickText"));
        for (int i = 0; i < 5; ++i) { // a few frames more, growing
            messages->appendText(reply.id, QStringLiteral(" grows"));
            QVERIFY(QQuickTest::qWaitForPolish(window));
            QTest::qWait(20);
        }
        messages->setState(reply.id, app::MessageState::Complete);
        QTRY_VERIFY(replyTexts().size() == 2 && replyTexts().constLast()->inherits("QQuickTextEdit"));
        QVERIFY(frames > 3);
        QVERIFY2(wrongFrame.isEmpty(), qPrintable(wrongFrame));
    }

    // A reply that pushes the conversation out of a small context: the divider says how large the
    // context is and that the system prompt keeps part of it, and its button leads to the fix (the
    // context length in the settings; another model, where the model allows no more).
    void theContextNoticeSaysWhyAndOffersTheFix() {
        RunningApp running;
        start(running);
        if (QTest::currentTestFailed()) return;
        app::HearthBackend& backend = *running.backend;
        QQuickWindow* window = running.window;
        backend.settings()->setContextLength(64); // stories260K was trained for 128
        backend.settings()->setSystemPrompt(QStringLiteral("You tell short stories."));
        backend.models()->loadDroppedFile(
            QUrl::fromLocalFile(QString::fromStdString(test::testdata("models/stories260K.gguf"))));
        QTRY_VERIFY_WITH_TIMEOUT(backend.models()->loaded() && !backend.models()->busy(), 60000);
        QTRY_COMPARE_WITH_TIMEOUT(backend.models()->contextLength(), 64, 10000);

        const auto sendAndFindNotice = [&](const QString& prompt) -> QQuickItem* {
            backend.chat()->newConversation();
            if (!backend.chat()->send(prompt)) return nullptr;
            if (!QTest::qWaitFor([&] { return backend.chat()->generating(); }, 10000)) return nullptr;
            if (!QTest::qWaitFor([&] { return !backend.chat()->generating(); }, 120000)) return nullptr;
            window->setProperty("page", QStringLiteral("chat"));
            if (!QQuickTest::qWaitForPolish(window)) return nullptr;
            QQuickItem* list = findByName(window->contentItem(), QStringLiteral("messageList"));
            QMetaObject::invokeMethod(list, "positionViewAtBeginning");
            QQuickTest::qWaitForPolish(window);
            QQuickItem* delegate = nullptr;
            QMetaObject::invokeMethod(list, "itemAtIndex", Q_RETURN_ARG(QQuickItem*, delegate),
                                      Q_ARG(int, 1));
            QQuickItem* notice = findByName(delegate, QStringLiteral("contextExplanation"));
            return notice && notice->isVisible() ? notice : nullptr;
        };
        const auto click = [window](QQuickItem* item) {
            QTest::mouseClick(window, Qt::LeftButton, Qt::NoModifier,
                              item->mapToScene(QPointF(item->width() / 2, item->height() / 2)).toPoint());
        };

        QQuickItem* notice = sendAndFindNotice(QStringLiteral("Once upon a time there was a little dog"));
        QVERIFY2(notice, "no context notice after a reply longer than the context");
        const QString why =
            findByName(notice, QStringLiteral("contextExplanationText"))->property("text").toString();
        QVERIFY2(why.contains(QLatin1String("64 tokens")), qPrintable(why));
        QVERIFY2(why.contains(QLatin1String("system prompt")), qPrintable(why));
        QQuickItem* fix = findByName(notice, QStringLiteral("contextFixButton"));
        QVERIFY(fix && fix->isVisible());
        click(fix);
        QCOMPARE(window->property("page").toString(), QStringLiteral("settings"));
        QTRY_VERIFY(findByName(window->contentItem(), QStringLiteral("contextCombo"))->hasActiveFocus());

        // At the model's own limit a larger setting would change nothing: the notice says so.
        backend.settings()->setContextLength(2048);
        QTRY_COMPARE_WITH_TIMEOUT(backend.models()->contextLength(), 128, 10000);
        notice = sendAndFindNotice(QStringLiteral("Once upon a time there was a cat"));
        QVERIFY2(notice, "no context notice at the model's own context");
        const QString limit =
            findByName(notice, QStringLiteral("contextExplanationText"))->property("text").toString();
        QVERIFY2(limit.contains(QLatin1String("128 tokens")) && limit.contains(QLatin1String("trained")),
                 qPrintable(limit));
        click(findByName(notice, QStringLiteral("contextFixButton")));
        QCOMPARE(window->property("page").toString(), QStringLiteral("models"));
    }
};

QTEST_MAIN(TestChatLayout)
#include "test_chat_layout.moc"
