#include "app/storage/sql_store.h"
#include "app/storage/preset_store.h"
#include <QHash>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>
#include <QtDebug>
#include <atomic>
#include <optional>

namespace hearth::app {

namespace {
QString nextConnectionName() {
    static std::atomic<int> counter{0};
    return QStringLiteral("hearth-store-%1").arg(counter.fetch_add(1));
}

qint64 toMillis(const QDateTime& time) {
    return time.isValid() ? time.toMSecsSinceEpoch() : 0;
}
QDateTime fromMillis(qint64 ms) {
    return QDateTime::fromMSecsSinceEpoch(ms);
}
// A null QString binds as SQL NULL; an empty reply (stopped before its first token) is text "".
QString text(const QString& value) {
    return value.isNull() ? QStringLiteral("") : value;
}

// What SQLite's primary result code says failed: the query, the disk, another program's lock,
// or the file itself.
StoreError::Kind kindOf(const QSqlError& error) {
    bool ok = false;
    const int code =
        error.nativeErrorCode().toInt(&ok) & 0xff; // extended codes keep the primary in the low byte
    if (!ok) return StoreError::Kind::Query;
    constexpr int kBusy = 5, kLocked = 6, kNoMem = 7, kReadOnly = 8, kIoErr = 10, kCorrupt = 11, kFull = 13,
                  kCantOpen = 14, kNotADatabase = 26;
    switch (code) {
    case kBusy:
    case kLocked:
        return StoreError::Kind::Locked;
    case kNoMem:
    case kReadOnly:
    case kIoErr:
    case kFull:
    case kCantOpen:
        return StoreError::Kind::Disk;
    case kCorrupt:
    case kNotADatabase:
        return StoreError::Kind::Damaged;
    default:
        return StoreError::Kind::Query;
    }
}

StoreError databaseError(const QString& path, const QSqlError& error) {
    return StoreError(QStringLiteral("%1: database error: %2").arg(path, error.text()).toStdString(),
                      kindOf(error));
}
} // namespace

SqlStore::SqlStore(const QString& path, Access access) : path_(path), connectionName_(nextConnectionName()) {
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connectionName_);
        db.setDatabaseName(path);
        if (access == Access::ReadOnly) db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY"));
        if (!db.open()) {
            const QString reason = db.lastError().text();
            db = QSqlDatabase();
            closeConnection(); // the destructor does not run for a constructor that throws
            throw StoreError(QStringLiteral("%1: cannot open the conversation database: %2")
                                 .arg(path, reason)
                                 .toStdString(),
                             StoreError::Kind::Disk); // a folder or disk that is not there now may be later
        }
    }
    if (access == Access::ReadOnly) return;
    try {
        createSchema();
    } catch (...) {
        closeConnection(); // a file left open would keep its locks (and a damaged file) in use
        throw;
    }
}

void SqlStore::createSchema() {
    exec(QStringLiteral("PRAGMA journal_mode=WAL"));
    // WAL with synchronous=NORMAL never loses a committed transaction when the app is killed.
    exec(QStringLiteral("PRAGMA synchronous=NORMAL"));
    exec(QStringLiteral("PRAGMA foreign_keys=ON"));
    exec(QStringLiteral("CREATE TABLE IF NOT EXISTS conversations("
                        " id TEXT PRIMARY KEY, title TEXT NOT NULL,"
                        " created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)"));
    exec(QStringLiteral("CREATE TABLE IF NOT EXISTS messages("
                        " id TEXT PRIMARY KEY,"
                        " conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,"
                        " position INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL,"
                        " state TEXT NOT NULL, created_at INTEGER NOT NULL,"
                        " model TEXT NOT NULL DEFAULT '', parent_id TEXT, active INTEGER NOT NULL DEFAULT 1,"
                        " tool_data TEXT NOT NULL DEFAULT '')"));
    exec(QStringLiteral("CREATE INDEX IF NOT EXISTS messages_by_conversation"
                        " ON messages(conversation_id, position)"));
    if (!storesTree()) migrateToTree(); // a table this CREATE made has the columns already
    // Function calls came after the tree: a file written before them gains the column, empty.
    if (toolDataColumn() != QLatin1String("tool_data"))
        exec(QStringLiteral("ALTER TABLE messages ADD COLUMN tool_data TEXT NOT NULL DEFAULT ''"));
    hasModelColumn_ = true;
    hasTreeColumns_ = true;
    hasToolDataColumn_ = true;
    exec(QStringLiteral(
        "CREATE INDEX IF NOT EXISTS messages_by_parent ON messages(conversation_id, parent_id)"));
    PresetStore(*this).createTables();
    MessageImageStore(*this).createTables(); // a database written before images gains them, empty
}

void SqlStore::migrateToTree() {
    inTransaction([this] {
        // The model column came after the first release: a file written before it gains it, empty.
        if (modelColumn() != QLatin1String("model"))
            exec(QStringLiteral("ALTER TABLE messages ADD COLUMN model TEXT NOT NULL DEFAULT ''"));
        exec(QStringLiteral("ALTER TABLE messages ADD COLUMN parent_id TEXT"));
        exec(QStringLiteral("ALTER TABLE messages ADD COLUMN active INTEGER NOT NULL DEFAULT 1"));
        // Each row's parent is the row before it in its conversation, in the order it was read.
        exec(QStringLiteral("UPDATE messages SET parent_id = chain.previous FROM (SELECT id, LAG(id) OVER"
                            " (PARTITION BY conversation_id ORDER BY position, rowid) AS previous"
                            " FROM messages) AS chain WHERE chain.id = messages.id"));
    });
}

bool SqlStore::hasColumn(const QString& name) const {
    QSqlQuery query(QSqlDatabase::database(connectionName_));
    query.prepare(QStringLiteral("SELECT COUNT(*) FROM pragma_table_info('messages') WHERE name = ?"));
    query.addBindValue(name);
    if (!query.exec()) throw databaseError(path_, query.lastError());
    return query.next() && query.value(0).toInt() > 0;
}

bool SqlStore::storesTree() const {
    if (!hasTreeColumns_) hasTreeColumns_ = hasColumn(QStringLiteral("parent_id"));
    return *hasTreeColumns_;
}

QString SqlStore::treeColumns() const {
    return storesTree() ? QStringLiteral("parent_id, active") : QStringLiteral("NULL, 1");
}

QString SqlStore::toolDataColumn() const {
    if (!hasToolDataColumn_) hasToolDataColumn_ = hasColumn(QStringLiteral("tool_data"));
    return *hasToolDataColumn_ ? QStringLiteral("tool_data") : QStringLiteral("''");
}

QString SqlStore::modelColumn() const {
    if (!hasModelColumn_) hasModelColumn_ = hasColumn(QStringLiteral("model"));
    return *hasModelColumn_ ? QStringLiteral("model") : QStringLiteral("''");
}

SqlStore::~SqlStore() {
    closeConnection();
}

void SqlStore::closeConnection() const {
    {
        QSqlDatabase db = QSqlDatabase::database(connectionName_, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(connectionName_);
}

void SqlStore::exec(const QString& sql) const {
    QSqlQuery query(QSqlDatabase::database(connectionName_));
    if (!query.exec(sql)) throw databaseError(path_, query.lastError());
}

namespace {
// id, conversation_id, position, role, content, state, created_at, model, parent_id, active, tool_data
constexpr int kMessageColumns = 11;
constexpr int kParentColumn = 8;

// A message's parent as stored: NULL for a root.
QVariant parentValue(const QString& parentId) {
    return parentId.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(parentId);
}

// A message's columns after its id, conversation and position, in the table's order: role,
// content, state, created_at, model, parent_id, active, tool_data.
void bindMessageFields(QSqlQuery& query, const MessageRecord& m) {
    query.addBindValue(roleName(m.role));
    query.addBindValue(text(m.content));
    query.addBindValue(messageStateName(m.state));
    query.addBindValue(toMillis(m.createdAt));
    query.addBindValue(text(m.model));
    query.addBindValue(parentValue(m.parentId));
    query.addBindValue(m.active ? 1 : 0);
    query.addBindValue(text(m.toolData));
}

void run(QSqlQuery& query, const QString& path) {
    if (!query.exec()) throw databaseError(path, query.lastError());
}
} // namespace

QString SqlStore::journalMode() const {
    QSqlQuery query(QSqlDatabase::database(connectionName_));
    query.prepare(QStringLiteral("PRAGMA journal_mode"));
    run(query, path_);
    return query.next() ? query.value(0).toString() : QString();
}

QString SqlStore::integrityCheck() const {
    return check(QStringLiteral("PRAGMA integrity_check"));
}

QString SqlStore::quickCheck() const {
    return check(QStringLiteral("PRAGMA quick_check"));
}

QString SqlStore::check(const QString& pragma) const {
    QSqlQuery query(QSqlDatabase::database(connectionName_));
    query.prepare(pragma);
    run(query, path_);
    QStringList problems;
    while (query.next())
        problems.append(query.value(0).toString());
    return problems.join(QLatin1Char('\n'));
}

QList<ConversationRecord> SqlStore::conversations() const {
    QSqlQuery query(QSqlDatabase::database(connectionName_));
    query.prepare(QStringLiteral(
        "SELECT id, title, created_at, updated_at FROM conversations ORDER BY updated_at DESC, rowid DESC"));
    run(query, path_);
    QList<ConversationRecord> rows;
    while (query.next())
        rows.append({query.value(0).toString(), query.value(1).toString(),
                     fromMillis(query.value(2).toLongLong()), fromMillis(query.value(3).toLongLong())});
    return rows;
}

QList<MessageRecord> SqlStore::messages(const QString& conversationId) const {
    QSqlQuery query(QSqlDatabase::database(connectionName_));
    query.prepare(
        QStringLiteral("SELECT id, conversation_id, position, role, content, state, created_at, %1, %2, %3"
                       " FROM messages WHERE conversation_id = ? ORDER BY position, rowid")
            .arg(modelColumn(), treeColumns(), toolDataColumn()));
    query.addBindValue(conversationId);
    run(query, path_);
    QList<MessageRecord> rows;
    QStringList unknownRoles;
    QHash<QString, QString> parentOfLeftOut; // a row left out: its children hang on its parent
    const bool chain = !storesTree();        // an old file read as it is: one chain
    QString previous;
    while (query.next()) {
        const QString roleText = query.value(3).toString();
        const std::optional<chat::Role> role = roleFromName(roleText);
        QString parent = chain ? previous : query.value(8).toString();
        previous = query.value(0).toString();
        while (parentOfLeftOut.contains(parent))
            parent = parentOfLeftOut.value(parent);
        if (!role) { // stays in the file as it is; not the app's to show or to send to the model
            unknownRoles.append(roleText);
            parentOfLeftOut.insert(query.value(0).toString(), parent);
            continue;
        }
        MessageRecord m;
        m.id = query.value(0).toString();
        m.conversationId = query.value(1).toString();
        m.position = query.value(2).toInt();
        m.role = *role;
        m.content = query.value(4).toString();
        m.state = messageStateFromName(query.value(5).toString());
        m.createdAt = fromMillis(query.value(6).toLongLong());
        m.model = query.value(7).toString();
        m.parentId = parent;
        m.active = query.value(9).toInt() != 0;
        m.toolData = query.value(10).toString();
        rows.append(m);
    }
    if (!unknownRoles.isEmpty()) warnOfUnknownRoles(conversationId, unknownRoles);
    const ImagesByMessage images = MessageImageStore(*this).imagesOfConversation(conversationId);
    if (!images.isEmpty())
        for (MessageRecord& m : rows)
            m.images = images.value(m.id);
    return rows;
}

void SqlStore::warnOfUnknownRoles(const QString& conversationId, QStringList names) const {
    if (warnedConversations_.contains(conversationId)) return;
    warnedConversations_.insert(conversationId);
    const qsizetype count = names.size();
    names.removeDuplicates();
    for (QString& name : names) // whatever the file holds: quoted, and not too long for a log line
        name = QLatin1Char('"') + name.left(40) + QLatin1Char('"');
    QSqlQuery query(QSqlDatabase::database(connectionName_));
    query.prepare(QStringLiteral("SELECT title FROM conversations WHERE id = ?"));
    query.addBindValue(conversationId);
    const QString title = query.exec() && query.next() ? query.value(0).toString() : QString();
    qWarning().noquote() << QStringLiteral("%1: conversation \"%2\" (%3) holds %4 message(s) whose role "
                                           "Hearth does not know (%5): they are kept in the database as "
                                           "they are, but not shown or sent to the model")
                                .arg(path_, title, conversationId, QString::number(count),
                                     names.join(QStringLiteral(", ")));
}

QList<SqlStore::StoredRow> SqlStore::storedMessages(const QString& conversationId) const {
    QSqlQuery query(QSqlDatabase::database(connectionName_));
    query.prepare(
        QStringLiteral("SELECT id, conversation_id, position, role, content, state, created_at, %1, %2, %3"
                       " FROM messages WHERE conversation_id = ? ORDER BY position, rowid")
            .arg(modelColumn(), treeColumns(), toolDataColumn()));
    query.addBindValue(conversationId);
    run(query, path_);
    QList<StoredRow> rows;
    const bool chain = !storesTree();
    QVariant previous(QMetaType::fromType<QString>());
    while (query.next()) {
        StoredRow row;
        for (int column = 0; column < kMessageColumns; ++column)
            row.append(query.value(column));
        if (chain) row[kParentColumn] = previous; // as the migration links them
        previous = row.value(0);
        rows.append(row);
    }
    return rows;
}

void SqlStore::insertStoredMessages(const QList<StoredRow>& rows, const ImagesByMessage& images) {
    QSqlDatabase db = QSqlDatabase::database(connectionName_);
    db.transaction();
    try {
        for (const StoredRow& row : rows) {
            QSqlQuery query(db);
            query.prepare(QStringLiteral(
                "INSERT INTO messages(id, conversation_id, position, role, content, state, created_at, model,"
                " parent_id, active, tool_data) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
            for (int column = 0; column < kMessageColumns; ++column)
                query.addBindValue(row.value(column));
            run(query, path_);
            MessageImageStore(*this).addImages(row.value(0).toString(),
                                               images.value(row.value(0).toString()));
        }
    } catch (...) {
        db.rollback();
        throw;
    }
    commit(db);
}

void SqlStore::saveConversation(const ConversationRecord& c) {
    QSqlQuery query(QSqlDatabase::database(connectionName_));
    query.prepare(QStringLiteral(
        "INSERT INTO conversations(id, title, created_at, updated_at) VALUES(?, ?, ?, ?)"
        " ON CONFLICT(id) DO UPDATE SET title = excluded.title, updated_at = excluded.updated_at"));
    query.addBindValue(c.id);
    query.addBindValue(text(c.title));
    query.addBindValue(toMillis(c.createdAt));
    query.addBindValue(toMillis(c.updatedAt));
    run(query, path_);
}

void SqlStore::renameConversation(const QString& id, const QString& title) {
    QSqlQuery query(QSqlDatabase::database(connectionName_));
    query.prepare(QStringLiteral("UPDATE conversations SET title = ? WHERE id = ?"));
    query.addBindValue(text(title));
    query.addBindValue(id);
    run(query, path_);
}

void SqlStore::deleteConversation(const QString& id) {
    QSqlQuery query(QSqlDatabase::database(connectionName_));
    query.prepare(QStringLiteral("DELETE FROM conversations WHERE id = ?"));
    query.addBindValue(id);
    run(query, path_); // messages go with it (ON DELETE CASCADE)
}

void SqlStore::saveMessage(const MessageRecord& m) {
    QSqlDatabase db = QSqlDatabase::database(connectionName_);
    db.transaction();
    try {
        QSqlQuery exists(db);
        exists.prepare(QStringLiteral("SELECT 1 FROM messages WHERE id = ?"));
        exists.addBindValue(m.id);
        run(exists, path_);
        const bool inserted = !exists.next();
        QSqlQuery query(db);
        // A new row goes after every row of its conversation, the ones messages() leaves out too,
        // so that their order stays; an existing row keeps its place, role, parent and choice.
        query.prepare(QStringLiteral(
            "INSERT INTO messages(id, conversation_id, position, role, content, state, created_at, model,"
            " parent_id, active, tool_data)"
            " VALUES(?, ?, (SELECT MAX(?, COALESCE(MAX(position) + 1, 0)) FROM messages"
            " WHERE conversation_id = ?), ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(id) DO UPDATE SET content = excluded.content, state = excluded.state,"
            " tool_data = excluded.tool_data"));
        query.addBindValue(m.id);
        query.addBindValue(m.conversationId);
        query.addBindValue(m.position);
        query.addBindValue(m.conversationId);
        bindMessageFields(query, m);
        run(query, path_);
        if (inserted) MessageImageStore(*this).addImages(m.id, m.images);
        if (inserted && m.active) chooseMessage(m.id);
        QSqlQuery touch(db);
        touch.prepare(
            QStringLiteral("UPDATE conversations SET updated_at = MAX(updated_at, ?) WHERE id = ?"));
        touch.addBindValue(toMillis(m.createdAt));
        touch.addBindValue(m.conversationId);
        run(touch, path_);
    } catch (...) {
        db.rollback();
        throw;
    }
    commit(db);
}

void SqlStore::chooseMessage(const QString& id) {
    QSqlQuery query(QSqlDatabase::database(connectionName_));
    // `IS` matches the roots' NULL parent too.
    query.prepare(QStringLiteral(
        "UPDATE messages SET active = (id = ?) WHERE conversation_id = (SELECT conversation_id FROM messages"
        " WHERE id = ?) AND parent_id IS (SELECT parent_id FROM messages WHERE id = ?)"));
    query.addBindValue(id);
    query.addBindValue(id);
    query.addBindValue(id);
    run(query, path_);
}

void SqlStore::commit(QSqlDatabase& db) const {
    if (db.commit()) return;
    const QSqlError error = db.lastError();
    db.rollback();
    // Qt gives no SQLite code for a failed commit; with immediate foreign keys a commit can only
    // fail on the disk or the file.
    throw StoreError(QStringLiteral("%1: database error: %2").arg(path_, error.text()).toStdString(),
                     StoreError::Kind::Disk);
}

void SqlStore::inTransaction(const std::function<void()>& work) {
    QSqlDatabase db = QSqlDatabase::database(connectionName_);
    if (!db.transaction()) throw databaseError(path_, db.lastError());
    try {
        work();
    } catch (...) {
        db.rollback();
        throw;
    }
    commit(db);
}

void SqlStore::insertConversation(const ConversationRecord& c, const QList<MessageRecord>& messages) {
    QSqlQuery query(QSqlDatabase::database(connectionName_));
    query.prepare(
        QStringLiteral("INSERT INTO conversations(id, title, created_at, updated_at) VALUES(?, ?, ?, ?)"));
    query.addBindValue(c.id);
    query.addBindValue(text(c.title));
    query.addBindValue(toMillis(c.createdAt));
    query.addBindValue(toMillis(c.updatedAt));
    run(query, path_);
    for (const MessageRecord& m : messages)
        insertMessage(m);
}

void SqlStore::insertMessage(const MessageRecord& m) const {
    QSqlQuery query(QSqlDatabase::database(connectionName_));
    query.prepare(QStringLiteral(
        "INSERT INTO messages(id, conversation_id, position, role, content, state, created_at, model,"
        " parent_id, active, tool_data) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    query.addBindValue(m.id);
    query.addBindValue(m.conversationId);
    query.addBindValue(m.position);
    bindMessageFields(query, m);
    run(query, path_);
    MessageImageStore(*this).addImages(m.id, m.images);
}

QSqlDatabase SqlStore::database() const {
    return QSqlDatabase::database(connectionName_);
}

void SqlStore::runQuery(QSqlQuery& query) const {
    run(query, path_);
}

void SqlStore::deleteMessage(const QString& id) {
    QSqlQuery query(QSqlDatabase::database(connectionName_));
    query.prepare(QStringLiteral("DELETE FROM messages WHERE id = ?"));
    query.addBindValue(id);
    run(query, path_);
}

} // namespace hearth::app
