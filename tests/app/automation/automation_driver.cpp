#include "tests/app/automation/automation_driver.h"
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QQuickItem>
#include <QQuickWindow>
#include <QTextStream>
#include <QUrl>
#include <chrono>
#include <cstdio>
#include <qcoro/qcorotimer.h>

namespace hearth::app {

using namespace std::chrono_literals;

AutomationDriver::AutomationDriver(HearthBackend& backend, QQuickWindow& window, QString screenshotDir,
                                   QObject* parent)
    : QObject(parent), backend_(backend), window_(window), screenshotDir_(std::move(screenshotDir)) {}

void AutomationDriver::report(QJsonObject event) const {
    const QByteArray line = QJsonDocument(event).toJson(QJsonDocument::Compact);
    std::fprintf(stdout, "%s\n", line.constData());
    std::fflush(stdout);
}

QCoro::Task<bool> AutomationDriver::waitUntil(std::function<bool()> condition, int timeoutMs) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (!condition()) {
        if (std::chrono::steady_clock::now() > deadline) co_return false;
        QCoro::Task<> pause = QCoro::sleepFor(15ms);
        co_await pause;
    }
    co_return true;
}

namespace {
void collect(QQuickItem* item, const QString& name, QList<QQuickItem*>& out) {
    if (!item) return;
    if (item->objectName() == name && item->isVisible()) out.append(item);
    for (QQuickItem* child : item->childItems())
        collect(child, name, out);
}
} // namespace

QQuickItem* AutomationDriver::findItem(const QString& objectName) const {
    QList<QQuickItem*> found;
    collect(window_.contentItem(), objectName, found);
    return found.isEmpty() ? nullptr : found.constFirst();
}

bool AutomationDriver::click(const QString& objectName) {
    QQuickItem* item = findItem(objectName);
    if (!item) return false;
    const QPointF center = item->mapToScene(QPointF(item->width() / 2, item->height() / 2));
    const QPointF global = window_.mapToGlobal(center);
    QMouseEvent press(QEvent::MouseButtonPress, center, center, global, Qt::LeftButton, Qt::LeftButton,
                      Qt::NoModifier);
    QGuiApplication::sendEvent(&window_, &press);
    QMouseEvent release(QEvent::MouseButtonRelease, center, center, global, Qt::LeftButton, Qt::NoButton,
                        Qt::NoModifier);
    QGuiApplication::sendEvent(&window_, &release);
    return true;
}

bool AutomationDriver::typeAndSend(const QString& text) {
    QQuickItem* input = findItem(QStringLiteral("composerInput"));
    if (!input) return false;
    input->forceActiveFocus();
    input->setProperty("text", text);
    // The key goes to the window like a real key press: the composer decides what Enter means.
    QKeyEvent press(QEvent::KeyPress, Qt::Key_Return, Qt::NoModifier, QStringLiteral("\r"));
    QGuiApplication::sendEvent(&window_, &press);
    QKeyEvent release(QEvent::KeyRelease, Qt::Key_Return, Qt::NoModifier, QStringLiteral("\r"));
    QGuiApplication::sendEvent(&window_, &release);
    return true;
}

QString AutomationDriver::visibleReply() const {
    // The text the last message's delegate shows, read from the view itself.
    QQuickItem* list = findItem(QStringLiteral("messageList"));
    if (!list) return {};
    const int count = list->property("count").toInt();
    if (count == 0) return {};
    QQuickItem* delegate = nullptr;
    QMetaObject::invokeMethod(list, "itemAtIndex", Q_RETURN_ARG(QQuickItem*, delegate),
                              Q_ARG(int, count - 1));
    QList<QQuickItem*> texts;
    collect(delegate, QStringLiteral("assistantText"), texts);
    QString text;
    for (QQuickItem* t : texts) {
        QString plain;
        const int length = t->property("length").toInt();
        QMetaObject::invokeMethod(t, "getText", Q_RETURN_ARG(QString, plain), Q_ARG(int, 0),
                                  Q_ARG(int, length));
        text += plain;
    }
    return text;
}

QJsonObject AutomationDriver::state() const {
    ChatController* chat = backend_.chat();
    QJsonArray conversations;
    for (const ConversationRecord& c : chat->allConversations()->conversations())
        conversations.append(QJsonObject{{"id", c.id}, {"title", c.title}});
    QJsonArray messages;
    for (const MessageRecord& m : chat->messages()->messages())
        messages.append(QJsonObject{
            {"author", roleName(m.role)}, {"content", m.content}, {"state", messageStateName(m.state)}});
    return QJsonObject{{"event", "state"},
                       {"page", window_.property("page").toString()},
                       {"generating", chat->generating()},
                       {"modelLoaded", backend_.models()->loaded()},
                       {"modelPath", backend_.models()->modelPath()},
                       // The first start's demo offer: what the controller says, and what is on screen.
                       {"demoOffered", backend_.models()->offerDemo()},
                       {"demoOfferShown", findItem(QStringLiteral("demoOffer")) != nullptr},
                       {"currentTitle", chat->currentTitle()},
                       {"conversations", conversations},
                       {"messages", messages}};
}

QCoro::Task<> AutomationDriver::execute(QString command, QString argument) {
    ChatController* chat = backend_.chat();
    ModelController* models = backend_.models();
    if (command == QLatin1String("load")) {
        // The same call the drop area makes.
        const bool accepted = models->loadDroppedFile(QUrl::fromLocalFile(argument));
        report({{"event", "load"}, {"accepted", accepted}, {"error", models->errorMessage()}});
    } else if (command == QLatin1String("wait-model")) {
        QCoro::Task<bool> wait =
            waitUntil([models] { return !models->busy(); }, argument.toInt() > 0 ? argument.toInt() : 60000);
        const bool ok = co_await wait;
        report({{"event", "model"},
                {"ok", ok},
                {"loaded", models->loaded()},
                {"name", models->modelName()},
                {"error", models->errorMessage()},
                {"page", window_.property("page").toString()}});
    } else if (command == QLatin1String("wait-ready")) {
        QCoro::Task<bool> wait = waitUntil([chat] { return chat->ready(); }, 20000);
        const bool ok = co_await wait;
        report({{"event", "ready"}, {"ok", ok}});
    } else if (command == QLatin1String("send")) {
        const bool typed = typeAndSend(argument);
        report({{"event", "sent"}, {"typed", typed}, {"generating", chat->generating()}});
    } else if (command == QLatin1String("wait-stream")) {
        const int chars = argument.toInt();
        // Until the view shows `chars` characters, or the reply ends before that.
        QCoro::Task<bool> wait = waitUntil(
            [this, chars, chat] { return visibleReply().size() >= chars || !chat->generating(); }, 60000);
        const bool ok = co_await wait;
        const QString text = visibleReply();
        report({{"event", "stream"},
                {"ok", ok},
                {"visibleChars", text.size()},
                {"visibleText", text},
                {"generating", chat->generating()}});
    } else if (command == QLatin1String("wait-idle")) {
        QCoro::Task<bool> wait = waitUntil([chat] { return !chat->generating(); }, 120000);
        const bool ok = co_await wait;
        report({{"event", "idle"}, {"ok", ok}, {"visibleText", visibleReply()}});
    } else if (command == QLatin1String("click")) {
        // Whether a reply was streaming when the click landed: a Stop that comes after the
        // reply has ended stops nothing.
        const bool wasGenerating = chat->generating();
        const bool found = click(argument);
        report({{"event", "click"}, {"target", argument}, {"found", found}, {"generating", wasGenerating}});
    } else if (command == QLatin1String("set")) {
        const QString name = argument.section(QLatin1Char(' '), 0, 0);
        const QString value = argument.section(QLatin1Char(' '), 1);
        window_.setProperty(name.toUtf8().constData(), value == QLatin1String("true")    ? QVariant(true)
                                                       : value == QLatin1String("false") ? QVariant(false)
                                                                                         : QVariant(value));
        report({{"event", "set"}, {"name", name}, {"value", value}});
    } else if (command == QLatin1String("resize")) {
        // "resize W H": the window at that size, once its content has been laid out at it.
        const QSize size(argument.section(QLatin1Char(' '), 0, 0).toInt(),
                         argument.section(QLatin1Char(' '), 1, 1).toInt());
        window_.resize(size);
        QCoro::Task<bool> wait =
            waitUntil([this, size] { return window_.contentItem()->size() == QSizeF(size); }, 5000);
        const bool ok = co_await wait;
        report({{"event", "resize"}, {"ok", ok}, {"width", window_.width()}, {"height", window_.height()}});
    } else if (command == QLatin1String("text")) {
        // "text NAME": what the item of that objectName shows (the language of the window).
        const QQuickItem* item = findItem(argument);
        report({{"event", "text"},
                {"name", argument},
                {"found", item != nullptr},
                {"text", item ? item->property("text").toString() : QString()}});
    } else if (command == QLatin1String("theme")) {
        backend_.settings()->setTheme(argument);
        // A tenth of a second, as a person sees the switch: an icon's layer is drawn again in
        // the frames after its colour changes (Icon.qml), and a screenshot at once caught it empty.
        QCoro::Task<bool> settle = waitUntil([] { return false; }, 100);
        co_await settle;
        report({{"event", "theme"}, {"theme", backend_.settings()->theme()}});
    } else if (command == QLatin1String("wait-shown")) {
        // "wait-shown NAME": until the item of that objectName is on screen (a page, a panel).
        QCoro::Task<bool> wait = waitUntil([this, argument] { return findItem(argument) != nullptr; }, 10000);
        const bool ok = co_await wait;
        report({{"event", "shown"}, {"name", argument}, {"ok", ok}});
    } else if (command == QLatin1String("wait-messages")) {
        // "wait-messages N": until the current conversation shows N messages (read from the
        // database when it was opened).
        const int count = argument.toInt();
        QCoro::Task<bool> wait =
            waitUntil([chat, count] { return chat->messages()->count() >= count; }, 10000);
        const bool ok = co_await wait;
        report({{"event", "messages"}, {"ok", ok}, {"count", chat->messages()->count()}});
    } else if (command == QLatin1String("hold")) {
        // "hold": nothing more, until the test ends the app.
        QCoro::Task<bool> wait = waitUntil([] { return false; }, 600000);
        co_await wait;
    } else if (command == QLatin1String("screenshot")) {
        QDir().mkpath(screenshotDir_);
        const QString path = QDir(screenshotDir_).filePath(argument);
        const QImage image = window_.grabWindow();
        const bool saved = image.save(path);
        report({{"event", "screenshot"},
                {"path", path},
                {"saved", saved},
                {"width", image.width()},
                {"height", image.height()}});
    } else if (command == QLatin1String("state")) {
        report(state());
    } else {
        report({{"event", "error"}, {"message", QStringLiteral("unknown command: %1").arg(command)}});
    }
}

QCoro::Task<> AutomationDriver::run(QString scriptPath) {
    QFile file(scriptPath);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
        report(
            {{"event", "error"}, {"message", QStringLiteral("%1: cannot open the script").arg(scriptPath)}});
        QCoreApplication::exit(2);
        co_return;
    }
    const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'));
    file.close();
    QCoro::Task<bool> shown = waitUntil([this] { return window_.isExposed(); }, 10000);
    co_await shown;
    for (const QString& raw : lines) {
        const QString line = raw.trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#'))) continue;
        const QString command = line.section(QLatin1Char(' '), 0, 0);
        if (command == QLatin1String("quit")) break;
        QCoro::Task<> step = execute(command, line.section(QLatin1Char(' '), 1));
        co_await step;
    }
    report({{"event", "done"}});
    QCoreApplication::quit();
}

} // namespace hearth::app
