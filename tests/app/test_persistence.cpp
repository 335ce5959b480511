// Conversations and messages survive a restart: written through the async store,
// read back by a fresh connection; WAL mode; cascading deletes; upserts. A row whose role the
// app does not know is kept as it is, through saves and a damaged database's copy. A full disk
// (a file-size limit: writes past it fail as on a full disk) keeps the writes in memory
// and saves them once space returns.
#include "app/storage/conversation_store.h"
#include "app/storage/damaged_database.h"
#include "app/storage/sql_store.h"
#include "tests/app/file_size_limit.h"
#include "tests/support/test_support.h"
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTest>
#include <qcoro/qcorotask.h>

using namespace hearth::app;

using hearth::test::FileSizeLimit;
using hearth::test::largestFileIn;
constexpr auto User = hearth::chat::Role::User;
constexpr auto Assistant = hearth::chat::Role::Assistant;

class TestPersistence : public QObject {
    Q_OBJECT

    QString databasePath() {
        return QString::fromStdString(hearth::test::make_temp_dir("hearth-db")) +
               "/data/conversations.sqlite";
    }
    static MessageRecord message(const QString& conversation, int position, hearth::chat::Role role,
                                 const QString& content, MessageState state = MessageState::Complete) {
        MessageRecord m;
        m.id = newRecordId();
        m.conversationId = conversation;
        m.position = position;
        m.role = role;
        m.content = content;
        m.state = state;
        m.createdAt = QDateTime::currentDateTime().addMSecs(position);
        return m;
    }
    // Runs `sql` on a connection of its own, as another program (or a later version) would; the
    // rows it selects, or nullopt when it fails.
    static std::optional<QList<QVariantList>> rawSql(const QString& path, const QString& sql,
                                                     const QVariantList& values = {}) {
        std::optional<QList<QVariantList>> rows;
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
            db.setDatabaseName(path);
            if (db.open()) {
                QSqlQuery query(db);
                query.prepare(sql);
                for (const QVariant& value : values)
                    query.addBindValue(value);
                if (query.exec()) {
                    rows.emplace();
                    while (query.next()) {
                        QVariantList row;
                        for (int column = 0; column < query.record().count(); ++column)
                            row.append(query.value(column));
                        rows->append(row);
                    }
                } else {
                    qWarning() << query.lastError().text();
                }
            }
        }
        QSqlDatabase::removeDatabase(QStringLiteral("raw"));
        return rows;
    }
    // The message row `id` exactly as the file holds it.
    static QList<QVariantList> storedRow(const QString& path, const QString& id) {
        return rawSql(path,
                      "SELECT id, conversation_id, position, role, content, state, created_at FROM messages"
                      " WHERE id = ?",
                      {id})
            .value_or(QList<QVariantList>{});
    }
    // A database holding one conversation ("Essay") of the app's messages around one whose role
    // the app does not know ("critic", at position 1, written with raw SQL), and that row as stored
    // (empty if it could not be written).
    struct UnknownRoleDatabase {
        QString path;
        ConversationRecord conversation;
        QString unknownId;
        QList<QVariantList> original;
    };
    UnknownRoleDatabase databaseWithAnUnknownRole() {
        UnknownRoleDatabase d;
        d.path = databasePath();
        QDir().mkpath(QFileInfo(d.path).absolutePath());
        const QDateTime now = QDateTime::currentDateTime();
        d.conversation = {newRecordId(), "Essay", now, now};
        {
            SqlStore store(d.path);
            store.saveConversation(d.conversation);
            store.saveMessage(message(d.conversation.id, 0, User, "Is this essay good?"));
            store.saveMessage(message(d.conversation.id, 2, Assistant, "It reads well."));
        }
        d.unknownId = newRecordId();
        if (rawSql(d.path,
                   "INSERT INTO messages(id, conversation_id, position, role, content, state,"
                   " created_at) VALUES(?, ?, 1, 'critic', 'Too long by half.', 'complete', 1234)",
                   {d.unknownId, d.conversation.id}))
            d.original = storedRow(d.path, d.unknownId);
        return d;
    }

private slots:
    void sqlStoreRoundTrip() {
        const QString path = databasePath();
        QDir().mkpath(QFileInfo(path).absolutePath());
        const QDateTime t0 = QDateTime::currentDateTime();
        const ConversationRecord older{newRecordId(), "Older", t0.addSecs(-100), t0.addSecs(-100)};
        const ConversationRecord newer{newRecordId(), "Newer", t0, t0};
        MessageRecord reply =
            message(newer.id, 1, Assistant, "Hello! Here is `code`.", MessageState::Stopped);
        {
            SqlStore store(path);
            QCOMPARE(store.journalMode().toLower(), QStringLiteral("wal"));
            store.saveConversation(older);
            store.saveConversation(newer);
            store.saveMessage(message(newer.id, 0, User, "Hi ✨"));
            store.saveMessage(reply);
            reply.content += " More.";
            reply.state = MessageState::Complete;
            store.saveMessage(reply); // an upsert, not a second row
            MessageRecord oldQuestion = message(older.id, 0, User, "old question");
            oldQuestion.createdAt = older.updatedAt;
            store.saveMessage(oldQuestion);
        }
        SqlStore reopened(path);
        const QList<ConversationRecord> conversations = reopened.conversations();
        QCOMPARE(conversations.size(), 2);
        QCOMPARE(conversations[0].title, QStringLiteral("Newer"));
        const QList<MessageRecord> messages = reopened.messages(newer.id);
        QCOMPARE(messages.size(), 2);
        QCOMPARE(messages[0].content, QStringLiteral("Hi ✨"));
        QCOMPARE(messages[1].content, QStringLiteral("Hello! Here is `code`. More."));
        QCOMPARE(messages[1].state, MessageState::Complete);
        QCOMPARE(messages[1].role, Assistant);

        reopened.renameConversation(older.id, "Renamed");
        reopened.deleteConversation(newer.id);
        QCOMPARE(reopened.conversations().size(), 1);
        QCOMPARE(reopened.conversations()[0].title, QStringLiteral("Renamed"));
        QVERIFY(reopened.messages(newer.id).isEmpty()); // cascaded
        QCOMPARE(reopened.messages(older.id).size(), 1);
        reopened.deleteMessage(reopened.messages(older.id)[0].id);
        QVERIFY(reopened.messages(older.id).isEmpty());
    }

    // A reply's function calls and a tool message's call (MessageRecord::toolData) are stored,
    // updated with the message, and read back; a database written before the column existed
    // gains it, empty, when it opens.
    void toolCallsAreStoredAndOlderDatabasesGainTheColumn() {
        const QString path = databasePath();
        QDir().mkpath(QFileInfo(path).absolutePath());
        {
            QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "before-tools");
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery query(db);
            for (const char* sql :
                 {"CREATE TABLE conversations(id TEXT PRIMARY KEY, title TEXT NOT NULL,"
                  " created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)",
                  "CREATE TABLE messages(id TEXT PRIMARY KEY,"
                  " conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,"
                  " position INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL,"
                  " state TEXT NOT NULL, created_at INTEGER NOT NULL, model TEXT NOT NULL DEFAULT '',"
                  " parent_id TEXT, active INTEGER NOT NULL DEFAULT 1)",
                  "INSERT INTO conversations VALUES('c', 'Before tools', 1000, 1000)",
                  "INSERT INTO messages VALUES('m0', 'c', 0, 'user', 'Hi', 'complete', 1000, '', NULL, 1)"})
                QVERIFY2(query.exec(sql), qPrintable(query.lastError().text()));
            db.close();
        }
        QSqlDatabase::removeDatabase("before-tools");
        const QString calls = QStringLiteral(R"({"calls":[{"id":"call_1","server":"files"}]})");
        {
            SqlStore store(path);
            const QList<MessageRecord> before = store.messages("c");
            QCOMPARE(before.size(), 1);
            QVERIFY(before[0].toolData.isEmpty());
            MessageRecord reply = message("c", 1, Assistant, "");
            reply.parentId = "m0";
            reply.toolData = calls;
            store.saveMessage(reply);
            MessageRecord result = message("c", 2, hearth::chat::Role::Tool, "It is 12:00.");
            result.parentId = reply.id;
            result.toolData = QStringLiteral(R"({"result":{"callId":"call_1"}})");
            store.saveMessage(result);
            reply.toolData = QStringLiteral(R"({"calls":[{"id":"call_1","status":"done"}]})");
            store.saveMessage(reply); // the calls' states change with the message
        }
        SqlStore reopened(path);
        const QList<MessageRecord> messages = reopened.messages("c");
        QCOMPARE(messages.size(), 3);
        QCOMPARE(messages[1].toolData, QStringLiteral(R"({"calls":[{"id":"call_1","status":"done"}]})"));
        QCOMPARE(messages[2].role, hearth::chat::Role::Tool);
        QCOMPARE(messages[2].content, QStringLiteral("It is 12:00."));
        QCOMPARE(messages[2].toolData, QStringLiteral(R"({"result":{"callId":"call_1"}})"));
        QCOMPARE(reopened.integrityCheck(), QStringLiteral("ok"));
    }

    void emptyReplyIsKept() {
        // A reply stopped before its first token has no text, but it is still a message.
        const QString path = databasePath();
        QDir().mkpath(QFileInfo(path).absolutePath());
        SqlStore store(path);
        const ConversationRecord c{newRecordId(), "c", QDateTime::currentDateTime(),
                                   QDateTime::currentDateTime()};
        store.saveConversation(c);
        store.saveMessage(message(c.id, 0, Assistant, QString(), MessageState::Stopped));
        QCOMPARE(store.messages(c.id).size(), 1);
        QCOMPARE(store.messages(c.id)[0].content, QStringLiteral(""));
    }

    // A row whose role no chat::Role spells (a database edited by hand, or written by a later
    // version) is never lost or changed: the app leaves it out of what it shows and sends to the
    // model, says so once, naming the file and the conversation, and keeps it as it was through
    // saves of that conversation, whose new messages go after it.
    void unknownRoleIsKeptButNotShown() {
        const auto [path, conversation, unknown, original] = databaseWithAnUnknownRole();
        QCOMPARE(original.size(), 1);
        {
            SqlStore store(path);
            QTest::ignoreMessage(
                QtWarningMsg,
                QRegularExpression("^" + QRegularExpression::escape(path) + ": conversation \"Essay\" \\(" +
                                   conversation.id +
                                   "\\) holds 1 message\\(s\\) whose role Hearth "
                                   "does not know \\(\"critic\"\\).*not shown or sent to the model"));
            QList<MessageRecord> shown = store.messages(conversation.id);
            QCOMPARE(shown.size(), 2);
            QCOMPARE(shown[0].role, User);
            QCOMPARE(shown[1].role, Assistant);
            QTest::failOnWarning(QRegularExpression("critic")); // once per conversation
            QCOMPARE(store.messages(conversation.id).size(), 2);

            // The conversation saved: renamed, a message edited, a question and its reply added
            // (the app places them by what it shows: from position 2).
            store.renameConversation(conversation.id, "Essay, renamed");
            shown[1].content += " Mostly.";
            shown[1].state = MessageState::Stopped;
            store.saveMessage(shown[1]);
            const MessageRecord question = message(conversation.id, 2, User, "Shorter, then?");
            const MessageRecord reply = message(conversation.id, 3, Assistant, "Yes.");
            store.saveMessage(question);
            store.saveMessage(reply);
            shown = store.messages(conversation.id);
            QCOMPARE(shown.size(), 4);
            QCOMPARE(shown[1].content, QStringLiteral("It reads well. Mostly."));
            QCOMPARE(shown[2].id, question.id);
            QCOMPARE(shown[3].id, reply.id);
            QVERIFY(shown[1].position > 1); // an update keeps the row's place
            QVERIFY(shown[2].position > 2); // new ones go after every stored row
            QVERIFY(shown[3].position > shown[2].position);
        }
        QCOMPARE(storedRow(path, unknown), original);
        SqlStore reopened(path);
        QCOMPARE(reopened.integrityCheck(), QStringLiteral("ok"));
        QCOMPARE(reopened.storedMessages(conversation.id).size(), 5);
    }

    // A damaged database's copy carries such a row over as it was.
    void damagedDatabaseCopyKeepsUnknownRoles() {
        const auto [path, conversation, unknown, original] = databaseWithAnUnknownRole();
        QCOMPARE(original.size(), 1);
        QVERIFY(!QFile::exists(path + "-wal")); // closed cleanly: everything is in the file
        // The conversations' index overwritten: the file fails the quick check, its rows still read.
        const std::optional<QList<QVariantList>> root = rawSql(
            path, "SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_conversations_1'");
        QVERIFY(root && root->size() == 1);
        const qint64 page = root->constFirst().constFirst().toLongLong();
        QVERIFY(page > 1);
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadWrite));
            constexpr qint64 kPageSize = 4096; // SQLite's default
            QVERIFY(file.seek((page - 1) * kPageSize));
            QByteArray garbage(kPageSize, '\0');
            for (qint64 i = 0; i < kPageSize; ++i)
                garbage[i] = static_cast<char>(0xA5 ^ (i * 31));
            QCOMPARE(file.write(garbage), kPageSize);
        }
        std::optional<DamagedDatabase> damaged;
        const std::unique_ptr<SqlStore> fresh = openConversationDatabase(path, &damaged);
        QVERIFY(damaged);
        QCOMPARE(damaged->conversationsCopied, 1);
        QCOMPARE(fresh->storedMessages(conversation.id).size(), 3);
        QCOMPARE(storedRow(path, unknown), original);
    }

    void unopenableFileNamesItself() {
        try {
            SqlStore store("/proc/definitely/not/here.sqlite");
            QFAIL("opening should fail");
        } catch (const StoreError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains("/proc/definitely/not/here.sqlite"), e.what());
        }
    }

    void asyncStoreWritesInOrderAndSurvivesRestart() {
        const QString path = databasePath();
        const ConversationRecord conversation{newRecordId(), "Trip", QDateTime::currentDateTime(),
                                              QDateTime::currentDateTime()};
        MessageRecord partial = message(conversation.id, 1, Assistant, "Day 1: ", MessageState::Stopped);
        {
            ConversationStore store(path);
            QSignalSpy failed(&store, &ConversationStore::failed);
            store.saveConversation(conversation);
            store.saveMessage(message(conversation.id, 0, User, "Plan a trip"));
            store.saveMessage(partial);
            store.renameConversation(conversation.id, "Trip to Lisbon");
            const QList<MessageRecord> read = QCoro::waitFor(store.loadMessages(conversation.id));
            QCOMPARE(read.size(), 2); // reads queue behind the writes
            QCOMPARE(failed.count(), 0);
        } // the destructor finishes every queued write
        ConversationStore again(path);
        const QList<ConversationRecord> conversations = QCoro::waitFor(again.loadConversations());
        QCOMPARE(conversations.size(), 1);
        QCOMPARE(conversations[0].title, QStringLiteral("Trip to Lisbon"));
        const QList<MessageRecord> messages = QCoro::waitFor(again.loadMessages(conversation.id));
        QCOMPARE(messages.size(), 2);
        QCOMPARE(messages[1].content, QStringLiteral("Day 1: "));
        QCOMPARE(messages[1].state, MessageState::Stopped);
    }

    void fullDiskKeepsWritesUntilSpaceReturns() {
        const QString path = databasePath();
        const ConversationRecord conversation{newRecordId(), "Notes", QDateTime::currentDateTime(),
                                              QDateTime::currentDateTime()};
        const QString longText(512 * 1024, QLatin1Char('x'));
        MessageRecord reply = message(conversation.id, 1, Assistant, "", MessageState::Stopped);
        {
            ConversationStore store(path);
            store.setRetryInterval(20);
            QSignalSpy failed(&store, &ConversationStore::failed);
            QSignalSpy recovered(&store, &ConversationStore::recovered);
            store.saveConversation(conversation);
            store.saveMessage(message(conversation.id, 0, User, "Write it all down"));
            store.waitForIdle();
            QCOMPARE(failed.count(), 0);
            {
                FileSizeLimit full(largestFileIn(QFileInfo(path).absolutePath()) + 64 * 1024);
                QVERIFY(full.ok());
                reply.content = longText; // a reply streaming: saved again and again
                store.saveMessage(reply);
                reply.content = longText + " The end.";
                reply.state = MessageState::Complete;
                store.saveMessage(reply);
                store.renameConversation(conversation.id, "Notes, renamed on a full disk");
                store.flush(); // a retry, still on a full disk
                store.waitForIdle();
                QCOMPARE(store.pendingWrites(), 2); // the reply's last version, then the rename
                QVERIFY(failed.wait(5000));
                QCOMPARE(failed.count(), 1); // one message for the outage, not one per write
                const QString shown = failed.constFirst().constFirst().toString();
                QVERIFY2(shown.contains(path), qPrintable(shown));
                QVERIFY2(shown.contains("saved as soon as the disk takes writes again"), qPrintable(shown));
                QCOMPARE(recovered.count(), 0);
            }
            QVERIFY(recovered.wait(10000)); // the retry timer, now that writes fit
            QCOMPARE(store.pendingWrites(), 0);
            QCOMPARE(failed.count(), 1);
        }
        SqlStore reopened(path);
        const QList<MessageRecord> messages = reopened.messages(conversation.id);
        QCOMPARE(messages.size(), 2);
        QCOMPARE(messages[1].content, longText + " The end.");
        QCOMPARE(messages[1].state, MessageState::Complete);
        QCOMPARE(reopened.conversations().constFirst().title,
                 QStringLiteral("Notes, renamed on a full disk"));
        QCOMPARE(reopened.integrityCheck(), QStringLiteral("ok"));
    }

    void keptWritesAreSavedAtClose() {
        const QString path = databasePath();
        const ConversationRecord conversation{newRecordId(), "Late", QDateTime::currentDateTime(),
                                              QDateTime::currentDateTime()};
        {
            ConversationStore store(path);
            store.setRetryInterval(60 * 60 * 1000); // only the close retries
            store.saveConversation(conversation);
            store.waitForIdle();
            {
                FileSizeLimit full(largestFileIn(QFileInfo(path).absolutePath()) + 64 * 1024);
                QVERIFY(full.ok());
                store.saveMessage(message(conversation.id, 0, User, QString(256 * 1024, QLatin1Char('y'))));
                store.waitForIdle();
                QCOMPARE(store.pendingWrites(), 1);
            }
        } // space is back: the destructor writes what was kept
        SqlStore reopened(path);
        QCOMPARE(reopened.messages(conversation.id).size(), 1);
    }

    void aWriteThatCanNeverSucceedIsNotKept() {
        const QString path = databasePath();
        ConversationStore store(path);
        QSignalSpy failed(&store, &ConversationStore::failed);
        // A message of a conversation that does not exist breaks the foreign key: no retry helps.
        store.saveMessage(message(newRecordId(), 0, User, "orphan"));
        const ConversationRecord conversation{newRecordId(), "c", QDateTime::currentDateTime(),
                                              QDateTime::currentDateTime()};
        store.saveConversation(conversation);
        store.saveMessage(message(conversation.id, 0, User, "kept"));
        store.waitForIdle();
        QVERIFY(failed.wait(5000));
        QCOMPARE(store.pendingWrites(), 0); // dropped, and the writes behind it went through
        QVERIFY2(!failed.constFirst().constFirst().toString().contains("saved as soon as"),
                 qPrintable(failed.constFirst().constFirst().toString()));
        const QList<MessageRecord> read = QCoro::waitFor(store.loadMessages(conversation.id));
        QCOMPARE(read.size(), 1);
    }

    void failuresAreReported() {
        ConversationStore store("/proc/no-such-dir/conversations.sqlite");
        QSignalSpy failed(&store, &ConversationStore::failed);
        store.saveConversation(
            {newRecordId(), "x", QDateTime::currentDateTime(), QDateTime::currentDateTime()});
        QVERIFY(failed.wait(5000));
        QVERIFY(
            failed.constFirst().constFirst().toString().contains("/proc/no-such-dir/conversations.sqlite"));
    }
};

QTEST_MAIN(TestPersistence)
#include "test_persistence.moc"
