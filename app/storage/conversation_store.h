#pragma once
// The conversation database seen from the GUI thread: every query runs on one
// dedicated database thread, in the order it was asked for, so the GUI never
// waits on the disk. Reads are awaited with QCoro; writes are fire-and-forget
// and report failures through failed(). A write the disk refuses (full, I/O
// error, locked) is kept in memory with every write after it, in order, and
// written when the disk takes writes again: at the next write, at flush(), and
// every retryInterval() until then. A damaged database is set aside at open and replaced by a
// fresh one (damaged_database.h); one locked by another program is waited for, its
// conversations read once it is free.
#include "app/storage/conversation_import.h"
#include "app/storage/records.h"
#include <QFuture>
#include <QObject>
#include <QThreadPool>
#include <QTimer>
#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <qcoro/qcorotask.h>

namespace hearth::app {

class SqlStore;
class StoreError;

class ConversationStore : public QObject {
    Q_OBJECT
public:
    explicit ConversationStore(const QString& databasePath, QObject* parent = nullptr);
    ~ConversationStore() override; // finishes every queued write

    [[nodiscard]] const QString& path() const { return path_; }

    QCoro::Task<QList<ConversationRecord>> loadConversations();
    // Every message of the conversation, every branch (SqlStore::messages).
    QCoro::Task<QList<MessageRecord>> loadMessages(const QString& conversationId);
    // The conversations `ids` names (every one when empty, most recent first), with their
    // messages: what an export writes. Writes queued before it are in it.
    QCoro::Task<QList<ConversationBundle>> loadBundles(QStringList ids);
    struct ImportOutcome {
        std::optional<ImportSummary> summary; // when it was imported
        QString error;                        // when not: nothing of the file was kept
    };
    // Imports a conversation file in one transaction (conversation_import.h).
    QCoro::Task<ImportOutcome> importFile(QString path);

    void saveConversation(const ConversationRecord& conversation);
    void renameConversation(const QString& id, const QString& title);
    void deleteConversation(const QString& id);
    void saveMessage(const MessageRecord& message);
    void chooseMessage(const QString& id); // the branch shown (SqlStore::chooseMessage)
    void deleteMessage(const QString& id);

    // The queries of other tables on this store's database (preset_store.h), on its thread and in
    // order with everything else: `job` reads (the future finishes after it) or writes (kept and
    // retried as every write). A failure is reported by failed(), as the store's own.
    QFuture<void> read(std::function<void(SqlStore&)> job);
    void write(const QString& key, std::function<void(SqlStore&)> job);

    // Finishes when every write queued before it is done, kept writes retried first (co_await
    // it; do not block on it).
    QFuture<void> flush();
    // Blocks until the database thread is idle (shutdown and tests only).
    void waitForIdle();

    // Writes kept in memory because the disk refused them (any thread).
    [[nodiscard]] int pendingWrites() const { return pendingCount_.load(); }
    [[nodiscard]] int retryInterval() const { return retryTimer_.interval(); }
    void setRetryInterval(int milliseconds) { retryTimer_.setInterval(milliseconds); }

signals:
    // Emitted on the thread the store lives on.
    void failed(const QString& message);
    // Every kept write is now on disk.
    void recovered();
    // The database was damaged: it now lies at backupPath, and a fresh one holds the
    // conversations that could still be read from it.
    void damagedDatabaseSetAside(const QString& backupPath, int conversationsCopied);
    // The conversations could not be read (the database was locked) and now can: read them again.
    void conversationsAvailable();

private:
    struct Write {
        QString key; // consecutive writes of one key keep only the last (a streaming reply)
        std::function<void(SqlStore&)> job;
    };
    void enqueue(const QString& key, std::function<void(SqlStore&)> job);
    // Database thread only: runs the kept writes in order; true when none is left.
    bool retryPending();
    void keep(Write write);
    SqlStore& store(); // database thread only; opens the file on first use
    void reportFailure(const QString& message);
    // What the user is told when the disk or another program refuses a read or a write.
    [[nodiscard]] QString describeFailure(const StoreError& error) const;
    void startRetrying(); // any thread

    QString path_;
    QThreadPool pool_;
    std::unique_ptr<SqlStore> store_;
    std::deque<Write> pending_; // database thread only
    std::atomic<int> pendingCount_{0};
    std::atomic<bool> conversationsUnread_{false}; // a read of the conversations was refused
    QTimer retryTimer_;                            // runs while writes are kept
};

} // namespace hearth::app
