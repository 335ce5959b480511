#pragma once
// The conversation database itself: synchronous SQL on one connection. Used only
// from the database thread (ConversationStore); tests may drive it directly.
#include "app/core/records.h"
#include <QString>
#include <stdexcept>

namespace hearth::app {

class StoreError : public std::runtime_error {
public:
    enum class Kind {
        Query,   // the write itself is wrong: it never succeeds
        Disk,    // full, I/O error, cannot open: the same write may succeed later
        Locked,  // another program holds the database's lock: it may succeed once it lets go
        Damaged, // not a database, or corrupt pages: only a new database helps
    };
    explicit StoreError(const std::string& message, Kind kind = Kind::Query)
        : std::runtime_error(message), kind_(kind) {}
    [[nodiscard]] Kind kind() const { return kind_; }
    [[nodiscard]] bool retryable() const { return kind_ == Kind::Disk || kind_ == Kind::Locked; }

private:
    Kind kind_;
};

class SqlStore {
public:
    enum class Access {
        ReadWrite, // creates the file and its tables when missing, in WAL mode
        ReadOnly,  // reads an existing file as it is (what can be saved from a damaged one)
    };
    // Opens the SQLite file; throws StoreError naming the file.
    explicit SqlStore(const QString& path, Access access = Access::ReadWrite);
    ~SqlStore();
    SqlStore(const SqlStore&) = delete;
    SqlStore& operator=(const SqlStore&) = delete;

    [[nodiscard]] QList<ConversationRecord> conversations() const; // most recently updated first
    [[nodiscard]] QList<MessageRecord> messages(const QString& conversationId) const; // by position
    [[nodiscard]] QString journalMode() const;
    // PRAGMA integrity_check: "ok", or SQLite's list of problems, one a line.
    [[nodiscard]] QString integrityCheck() const;
    // PRAGMA quick_check: the same without matching indexes to their tables, in linear time.
    [[nodiscard]] QString quickCheck() const;

    void saveConversation(const ConversationRecord& conversation); // insert or update
    void renameConversation(const QString& id, const QString& title);
    void deleteConversation(const QString& id);     // and its messages
    void saveMessage(const MessageRecord& message); // insert or update; touches the conversation
    void deleteMessage(const QString& id);

private:
    void createSchema();
    void closeConnection() const;
    [[nodiscard]] QString check(const QString& pragma) const;
    void exec(const QString& sql) const;
    QString path_;
    QString connectionName_;
};

} // namespace hearth::app
