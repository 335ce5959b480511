#include "app/storage/conversation_store.h"
#include "app/storage/damaged_database.h"
#include "app/storage/sql_store.h"
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
    retryTimer_.setInterval(5000);
    connect(&retryTimer_, &QTimer::timeout, this, [this] { pool_.start([this] { retryPending(); }); });
}

ConversationStore::~ConversationStore() {
    retryTimer_.stop();
    pool_.start([this] {
        if (!retryPending())
            qWarning("%s: %d writes could not be saved before closing", qPrintable(path_),
                     static_cast<int>(pending_.size()));
        store_.reset();
    });
    pool_.waitForDone();
}

void ConversationStore::reportFailure(const QString& message) {
    // Called on the database thread; the signal is emitted on the store's own (GUI) thread.
    QMetaObject::invokeMethod(
        this, [this, message] { emit failed(message); }, Qt::QueuedConnection);
}

QString ConversationStore::describeFailure(const StoreError& error) const {
    if (error.kind() == StoreError::Kind::Locked)
        return tr("%1 is locked by another program, so conversations can be neither read nor saved now. "
                  "Nothing is lost: new messages are kept and saved as soon as it is free.")
            .arg(QDir::toNativeSeparators(path_));
    if (error.retryable())
        return tr("%1. The conversation stays open and is saved as soon as the disk takes writes again.")
            .arg(QString::fromUtf8(error.what()));
    return QString::fromUtf8(error.what());
}

void ConversationStore::startRetrying() {
    QMetaObject::invokeMethod(
        this, [this] { retryTimer_.start(); }, Qt::QueuedConnection);
}

SqlStore& ConversationStore::store() {
    if (!store_) {
        QDir().mkpath(QFileInfo(path_).absolutePath());
        std::optional<DamagedDatabase> damaged;
        store_ = openConversationDatabase(path_, &damaged);
        if (damaged) {
            qWarning("%s: damaged (%s); kept as %s, %d conversations copied to a new database",
                     qPrintable(path_), qPrintable(damaged->problem), qPrintable(damaged->backupPath),
                     damaged->conversationsCopied);
            QMetaObject::invokeMethod(
                this,
                [this, backup = damaged->backupPath, copied = damaged->conversationsCopied] {
                    emit damagedDatabaseSetAside(backup, copied);
                },
                Qt::QueuedConnection);
        }
    }
    return *store_;
}

void ConversationStore::keep(Write write) {
    if (!pending_.empty() && pending_.back().key == write.key)
        pending_.back() = std::move(write);
    else
        pending_.push_back(std::move(write));
    pendingCount_.store(static_cast<int>(pending_.size()));
}

bool ConversationStore::retryPending() {
    if (pending_.empty()) return true;
    while (!pending_.empty()) {
        try {
            pending_.front().job(store());
        } catch (const StoreError& e) {
            if (e.retryable()) return false;
            reportFailure(QString::fromUtf8(e.what())); // never succeeds: dropped, as when first tried
        } catch (const std::exception& e) {
            reportFailure(QString::fromUtf8(e.what()));
        }
        pending_.pop_front();
        pendingCount_.store(static_cast<int>(pending_.size()));
    }
    QMetaObject::invokeMethod(
        this,
        [this, reread = conversationsUnread_.exchange(false)] {
            retryTimer_.stop();
            emit recovered();
            if (reread) emit conversationsAvailable();
        },
        Qt::QueuedConnection);
    return true;
}

void ConversationStore::enqueue(const QString& key, std::function<void(SqlStore&)> job) {
    pool_.start([this, write = Write{key, std::move(job)}]() mutable {
        // Behind kept writes a write waits its turn: the order is what makes them correct.
        if (!retryPending()) {
            keep(std::move(write));
            return;
        }
        try {
            write.job(store());
        } catch (const StoreError& e) {
            if (!e.retryable()) {
                reportFailure(QString::fromUtf8(e.what()));
                return;
            }
            keep(std::move(write));
            reportFailure(describeFailure(e));
            startRetrying();
        } catch (const std::exception& e) {
            reportFailure(QString::fromUtf8(e.what()));
        }
    });
}

QFuture<void> ConversationStore::read(std::function<void(SqlStore&)> job) {
    return QtConcurrent::run(&pool_, [this, job = std::move(job)] {
        try {
            job(store());
        } catch (const StoreError& e) {
            reportFailure(describeFailure(e));
        } catch (const std::exception& e) {
            reportFailure(QString::fromUtf8(e.what()));
        }
    });
}

void ConversationStore::write(const QString& key, std::function<void(SqlStore&)> job) {
    enqueue(key, std::move(job));
}

QCoro::Task<QList<ConversationRecord>> ConversationStore::loadConversations() {
    // Futures and tasks are named before co_await: GCC 12 mishandles temporaries in co_await expressions.
    QFuture<QList<ConversationRecord>> future = QtConcurrent::run(&pool_, [this] {
        try {
            return store().conversations();
        } catch (const StoreError& e) {
            if (e.retryable()) {
                // Tried again with the kept writes, in order; once it goes through, the
                // conversations are read again (conversationsAvailable).
                conversationsUnread_.store(true);
                keep(Write{QStringLiteral("read conversations"),
                           [](SqlStore& s) { (void)s.conversations(); }});
                startRetrying();
            }
            reportFailure(describeFailure(e));
            return QList<ConversationRecord>{};
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
        } catch (const StoreError& e) {
            reportFailure(describeFailure(e));
            return QList<MessageRecord>{};
        } catch (const std::exception& e) {
            reportFailure(QString::fromUtf8(e.what()));
            return QList<MessageRecord>{};
        }
    });
    QList<MessageRecord> rows = co_await future;
    co_return rows;
}

QCoro::Task<QList<ConversationBundle>> ConversationStore::loadBundles(QStringList ids) {
    QFuture<QList<ConversationBundle>> future = QtConcurrent::run(&pool_, [this, ids] {
        QList<ConversationBundle> bundles;
        try {
            SqlStore& s = store();
            for (const ConversationRecord& c : s.conversations())
                if (ids.isEmpty() || ids.contains(c.id)) bundles.append({c, s.messages(c.id)});
        } catch (const StoreError& e) {
            reportFailure(describeFailure(e));
            bundles.clear();
        } catch (const std::exception& e) {
            reportFailure(QString::fromUtf8(e.what()));
            bundles.clear();
        }
        return bundles;
    });
    QList<ConversationBundle> bundles = co_await future;
    co_return bundles;
}

QCoro::Task<ConversationStore::ImportOutcome> ConversationStore::importFile(QString path) {
    QFuture<ImportOutcome> future = QtConcurrent::run(&pool_, [this, path] {
        ImportOutcome outcome;
        try {
            outcome.summary = importConversations(store(), path);
        } catch (const TransferError& e) {
            outcome.error = e.message();
        } catch (const std::exception& e) { // StoreError, or memory for a huge file
            outcome.error = QString::fromUtf8(e.what());
        }
        return outcome;
    });
    ImportOutcome outcome = co_await future;
    co_return outcome;
}

void ConversationStore::saveConversation(const ConversationRecord& conversation) {
    enqueue(QStringLiteral("conversation ") + conversation.id,
            [conversation](SqlStore& s) { s.saveConversation(conversation); });
}

void ConversationStore::renameConversation(const QString& id, const QString& title) {
    enqueue(QStringLiteral("title ") + id, [id, title](SqlStore& s) { s.renameConversation(id, title); });
}

void ConversationStore::deleteConversation(const QString& id) {
    enqueue(QStringLiteral("delete conversation ") + id, [id](SqlStore& s) { s.deleteConversation(id); });
}

void ConversationStore::saveMessage(const MessageRecord& message) {
    enqueue(QStringLiteral("message ") + message.id, [message](SqlStore& s) { s.saveMessage(message); });
}

void ConversationStore::chooseMessage(const QString& id) {
    enqueue(QStringLiteral("choose message ") + id, [id](SqlStore& s) { s.chooseMessage(id); });
}

void ConversationStore::deleteMessage(const QString& id) {
    enqueue(QStringLiteral("delete message ") + id, [id](SqlStore& s) { s.deleteMessage(id); });
}

QFuture<void> ConversationStore::flush() {
    return QtConcurrent::run(&pool_, [this] { retryPending(); });
}

void ConversationStore::waitForIdle() {
    // Not flush().waitForFinished(): that may run the empty job on this thread
    // ahead of the queue. A semaphore released by the database thread cannot.
    QSemaphore done;
    pool_.start([&done] { done.release(); });
    done.acquire();
}

} // namespace hearth::app
