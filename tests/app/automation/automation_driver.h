#pragma once
// Drives the real window from a script, for the end-to-end test: it loads a
// model through the drop path, types into the composer and presses Enter,
// clicks buttons by objectName, waits for the stream, for an item to show and for a
// conversation's messages (on conditions, never on a fixed time), resizes the window,
// reads what an item shows, takes screenshots, and prints what it sees as JSON
// lines on stdout. Test-only: linked into hearth-scripted, never into the hearth that ships.
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <qcoro/qcorotask.h>

class QQuickItem;
class QQuickWindow;

namespace hearth::app {

class HearthBackend;

class AutomationDriver : public QObject {
    Q_OBJECT
public:
    AutomationDriver(HearthBackend& backend, QQuickWindow& window, QString screenshotDir,
                     QObject* parent = nullptr);
    // Runs the script's commands one by one, then quits the application.
    QCoro::Task<> run(QString scriptPath);

private:
    QCoro::Task<bool> waitUntil(std::function<bool()> condition, int timeoutMs);
    QCoro::Task<> execute(QString command, QString argument);
    QQuickItem* findItem(const QString& objectName) const;
    bool click(const QString& objectName);
    bool typeAndSend(const QString& text);
    QString visibleReply() const;
    QJsonObject state() const;
    void report(QJsonObject event) const;

    HearthBackend& backend_;
    QQuickWindow& window_;
    QString screenshotDir_;
};

} // namespace hearth::app
