#pragma once
// The conversation database seen from the GUI thread: every query runs on one
// dedicated database thread, in the order it was asked for, so the GUI never
// waits on the disk. Reads are awaited with QCoro; writes are fire-and-forget
// and report failures through failed().
#include "app/core/records.h"
#include <QFuture>
#include <QObject>
#include <QThreadPool>
#include <functional>
#include <memory>
#include <qcoro/qcorotask.h>

namespace hearth::app {

class SqlStore;

class ConversationStore : public QObject {
    Q_OBJECT
public:
    explicit ConversationStore(const QString& databasePath, QObject* parent = nullptr);
    ~ConversationStore() override; // finishes every queued write

    [[nodiscard]] const QString& path() const { return path_; }

    QCoro::Task<QList<ConversationRecord>> loadConversations();
    QCoro::Task<QList<MessageRecord>> loadMessages(const QString& conversationId);

    void saveConversation(const ConversationRecord& conversation);
    void renameConversation(const QString& id, const QString& title);
    void deleteConversation(const QString& id);
    void saveMessage(const MessageRecord& message);
    void deleteMessage(const QString& id);

    // Finishes when every write queued before it is on disk (co_await it; do not block on it).
    QFuture<void> flush();
    // Blocks until the database thread is idle (shutdown and tests only).
    void waitForIdle();

signals:
    // Emitted on the thread the store lives on.
    void failed(const QString& message);

private:
    QFuture<void> enqueue(std::function<void(SqlStore&)> job);
    SqlStore& store(); // database thread only; opens the file on first use
    void reportFailure(const QString& message);

    QString path_;
    QThreadPool pool_;
    std::unique_ptr<SqlStore> store_;
};

} // namespace hearth::app
