#pragma once
// The conversation database itself: synchronous SQL on one connection. Used only
// from the database thread (ConversationStore); tests may drive it directly.
#include "app/core/records.h"
#include <QString>
#include <stdexcept>

namespace hearth::app {

class StoreError : public std::runtime_error {
public:
    // retryable: the disk or the file failed (full, I/O error, locked, cannot open), so the same
    // write may succeed later; otherwise the write itself is wrong and never will.
    explicit StoreError(const std::string& message, bool retryable = false)
        : std::runtime_error(message), retryable_(retryable) {}
    [[nodiscard]] bool retryable() const { return retryable_; }

private:
    bool retryable_;
};

class SqlStore {
public:
    // Opens (creating if needed) the SQLite file in WAL mode; throws StoreError naming the file.
    explicit SqlStore(const QString& path);
    ~SqlStore();
    SqlStore(const SqlStore&) = delete;
    SqlStore& operator=(const SqlStore&) = delete;

    [[nodiscard]] QList<ConversationRecord> conversations() const; // most recently updated first
    [[nodiscard]] QList<MessageRecord> messages(const QString& conversationId) const; // by position
    [[nodiscard]] QString journalMode() const;
    // PRAGMA integrity_check: "ok", or SQLite's list of problems, one a line.
    [[nodiscard]] QString integrityCheck() const;

    void saveConversation(const ConversationRecord& conversation); // insert or update
    void renameConversation(const QString& id, const QString& title);
    void deleteConversation(const QString& id);     // and its messages
    void saveMessage(const MessageRecord& message); // insert or update; touches the conversation
    void deleteMessage(const QString& id);

private:
    void exec(const QString& sql) const;
    QString path_;
    QString connectionName_;
};

} // namespace hearth::app
