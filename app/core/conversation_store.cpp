#include "app/core/conversation_store.h"
#include "app/core/sql_store.h"
#include <QDir>
#include <QFileInfo>
#include <QSemaphore>
#include <QtConcurrent/QtConcurrentRun>
#include <qcoro/qcorofuture.h>

namespace hearth::app {

ConversationStore::ConversationStore(const QString& databasePath, QObject* parent)
    : QObject(parent), path_(databasePath) {
    // One thread that never expires: the SQLite connection belongs to it.
    pool_.setMaxThreadCount(1);
    pool_.setExpiryTimeout(-1);
}

ConversationStore::~ConversationStore() {
    pool_.start([this] { store_.reset(); });
    pool_.waitForDone();
}

void ConversationStore::reportFailure(const QString& message) {
    // Called on the database thread; the signal is emitted on the store's own (GUI) thread.
    QMetaObject::invokeMethod(
        this, [this, message] { emit failed(message); }, Qt::QueuedConnection);
}

SqlStore& ConversationStore::store() {
    if (!store_) {
        QDir().mkpath(QFileInfo(path_).absolutePath());
        store_ = std::make_unique<SqlStore>(path_);
    }
    return *store_;
}

QFuture<void> ConversationStore::enqueue(std::function<void(SqlStore&)> job) {
    return QtConcurrent::run(&pool_, [this, job = std::move(job)] {
        try {
            job(store());
        } catch (const std::exception& e) {
            reportFailure(QString::fromUtf8(e.what()));
        }
    });
}

QCoro::Task<QList<ConversationRecord>> ConversationStore::loadConversations() {
    // Futures and tasks are named before co_await: GCC 12 mishandles temporaries in co_await expressions.
    QFuture<QList<ConversationRecord>> future = QtConcurrent::run(&pool_, [this] {
        try {
            return store().conversations();
        } catch (const std::exception& e) {
            reportFailure(QString::fromUtf8(e.what()));
            return QList<ConversationRecord>{};
        }
    });
    QList<ConversationRecord> rows = co_await future;
    co_return rows;
}

QCoro::Task<QList<MessageRecord>> ConversationStore::loadMessages(const QString& conversationId) {
    const QString id = conversationId; // copied before the first suspension
    QFuture<QList<MessageRecord>> future = QtConcurrent::run(&pool_, [this, id] {
        try {
            return store().messages(id);
        } catch (const std::exception& e) {
            reportFailure(QString::fromUtf8(e.what()));
            return QList<MessageRecord>{};
        }
    });
    QList<MessageRecord> rows = co_await future;
    co_return rows;
}

void ConversationStore::saveConversation(const ConversationRecord& conversation) {
    enqueue([conversation](SqlStore& s) { s.saveConversation(conversation); });
}

void ConversationStore::renameConversation(const QString& id, const QString& title) {
    enqueue([id, title](SqlStore& s) { s.renameConversation(id, title); });
}

void ConversationStore::deleteConversation(const QString& id) {
    enqueue([id](SqlStore& s) { s.deleteConversation(id); });
}

void ConversationStore::saveMessage(const MessageRecord& message) {
    enqueue([message](SqlStore& s) { s.saveMessage(message); });
}

void ConversationStore::deleteMessage(const QString& id) {
    enqueue([id](SqlStore& s) { s.deleteMessage(id); });
}

QFuture<void> ConversationStore::flush() {
    return QtConcurrent::run(&pool_, [] {});
}

void ConversationStore::waitForIdle() {
    // Not flush().waitForFinished(): that may run the empty job on this thread
    // ahead of the queue. A semaphore released by the database thread cannot.
    QSemaphore done;
    pool_.start([&done] { done.release(); });
    done.acquire();
}

} // namespace hearth::app
