#pragma once
// The conversation database itself: synchronous SQL on one connection. Used only
// from the database thread (ConversationStore); tests may drive it directly.
#include "app/storage/message_image_store.h"
#include "app/storage/records.h"
#include <QSet>
#include <QString>
#include <QStringList>
#include <QVariantList>
#include <functional>
#include <optional>
#include <stdexcept>

class QSqlDatabase;
class QSqlQuery;

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
    // The conversation's messages, every branch (its tree: chosenPath() gives what it shows), by
    // position, parents before children. A row whose role no chat::Role spells (a database
    // edited by hand or written by a later version) is left out, its children hung on its
    // parent, and never changed or deleted but with its conversation; the first read of such a
    // conversation says so with qWarning. Each message comes with its images, bytes and all.
    [[nodiscard]] QList<MessageRecord> messages(const QString& conversationId) const;
    // Every message row of the conversation exactly as stored, whatever its role, each one's
    // columns in the table's order: what a copy of the database carries (damaged_database.h). A
    // file written before messages formed a tree (opened read-only) gives its rows as one chain.
    using StoredRow = QVariantList;
    [[nodiscard]] QList<StoredRow> storedMessages(const QString& conversationId) const;
    // Into their conversations, as they were, with the images of each (by message id), in one
    // transaction.
    void insertStoredMessages(const QList<StoredRow>& rows, const ImagesByMessage& images = {});
    [[nodiscard]] QString journalMode() const;
    // PRAGMA integrity_check: "ok", or SQLite's list of problems, one a line.
    [[nodiscard]] QString integrityCheck() const;
    // PRAGMA quick_check: the same without matching indexes to their tables, in linear time.
    [[nodiscard]] QString quickCheck() const;

    void saveConversation(const ConversationRecord& conversation); // insert or update
    void renameConversation(const QString& id, const QString& title);
    void deleteConversation(const QString& id); // and its messages
    // Insert or update; touches the conversation. A new message goes after every row stored for
    // its conversation (at `position`, or later where rows left out of messages() lie there) and,
    // when active, becomes its siblings' chosen one; an update changes the content, state and
    // function calls only. A message's images are stored when it is inserted (each picture once, by
    // its SHA-256: message_image_store.h) and kept as they are by every update.
    void saveMessage(const MessageRecord& message);
    // Makes the message the chosen one among its siblings (a branch shown).
    void chooseMessage(const QString& id);
    void deleteMessage(const QString& id);

    // Runs `work` in one transaction: committed when it returns, rolled back (nothing of it left)
    // and rethrown when it throws.
    void inTransaction(const std::function<void()>& work);
    // Inserts a conversation and its messages (with their images) as they are, in no transaction
    // of its own (run it inside inTransaction); throws StoreError when an id is already taken.
    void insertConversation(const ConversationRecord& conversation, const QList<MessageRecord>& messages);

    // For the tables of other files (preset_store.h): the connection, and a query run on it that
    // throws StoreError (of the kind SQLite's code says) naming the file.
    [[nodiscard]] QSqlDatabase database() const;
    void runQuery(QSqlQuery& query) const;
    [[nodiscard]] const QString& path() const { return path_; } // what its errors name

private:
    void createSchema();
    // A database written before messages formed a tree: each conversation's rows become one chain
    // in their order, each the chosen child of the one before; ids and content unchanged.
    void migrateToTree();
    [[nodiscard]] bool hasColumn(const QString& name) const;
    [[nodiscard]] QString treeColumns() const; // "parent_id, active", or a chain's stand-ins
    [[nodiscard]] bool storesTree() const;
    void closeConnection() const;
    [[nodiscard]] QString check(const QString& pragma) const;
    void exec(const QString& sql) const;
    void commit(QSqlDatabase& db) const; // throws StoreError when the transaction cannot be committed
    void warnOfUnknownRoles(const QString& conversationId, QStringList names) const;
    void insertMessage(const MessageRecord& message) const;
    // The messages' model column, or "''" in a file written before it existed (opened read-only).
    [[nodiscard]] QString modelColumn() const;
    // The messages' tool_data column, or "''" in a file written before it existed (read-only).
    [[nodiscard]] QString toolDataColumn() const;
    mutable std::optional<bool> hasModelColumn_;
    mutable std::optional<bool> hasToolDataColumn_;
    mutable std::optional<bool> hasTreeColumns_;
    QString path_;
    QString connectionName_;
    mutable QSet<QString> warnedConversations_; // of unknown roles, once each
};

} // namespace hearth::app
