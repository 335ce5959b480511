// Conversations and messages survive a restart: written through the async store,
// read back by a fresh connection; WAL mode; cascading deletes; upserts. A full disk
// (a file-size limit: writes past it fail as on a full disk) keeps the writes in memory
// and saves them once space returns.
#include "app/core/conversation_store.h"
#include "app/core/sql_store.h"
#include "tests/app/file_size_limit.h"
#include "tests/support/test_support.h"
#include <QSignalSpy>
#include <QTest>
#include <qcoro/qcorotask.h>

using namespace hearth::app;

using hearth::test::FileSizeLimit;
using hearth::test::largestFileIn;

class TestPersistence : public QObject {
    Q_OBJECT

    QString databasePath() {
        return QString::fromStdString(hearth::test::make_temp_dir("hearth-db")) +
               "/data/conversations.sqlite";
    }
    static MessageRecord message(const QString& conversation, int position, const QString& role,
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

private slots:
    void sqlStoreRoundTrip() {
        const QString path = databasePath();
        QDir().mkpath(QFileInfo(path).absolutePath());
        const QDateTime t0 = QDateTime::currentDateTime();
        const ConversationRecord older{newRecordId(), "Older", t0.addSecs(-100), t0.addSecs(-100)};
        const ConversationRecord newer{newRecordId(), "Newer", t0, t0};
        MessageRecord reply =
            message(newer.id, 1, "assistant", "Hello! Here is `code`.", MessageState::Stopped);
        {
            SqlStore store(path);
            QCOMPARE(store.journalMode().toLower(), QStringLiteral("wal"));
            store.saveConversation(older);
            store.saveConversation(newer);
            store.saveMessage(message(newer.id, 0, "user", "Hi ✨"));
            store.saveMessage(reply);
            reply.content += " More.";
            reply.state = MessageState::Complete;
            store.saveMessage(reply); // an upsert, not a second row
            MessageRecord oldQuestion = message(older.id, 0, "user", "old question");
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
        QCOMPARE(messages[1].role, QStringLiteral("assistant"));

        reopened.renameConversation(older.id, "Renamed");
        reopened.deleteConversation(newer.id);
        QCOMPARE(reopened.conversations().size(), 1);
        QCOMPARE(reopened.conversations()[0].title, QStringLiteral("Renamed"));
        QVERIFY(reopened.messages(newer.id).isEmpty()); // cascaded
        QCOMPARE(reopened.messages(older.id).size(), 1);
        reopened.deleteMessage(reopened.messages(older.id)[0].id);
        QVERIFY(reopened.messages(older.id).isEmpty());
    }

    void emptyReplyIsKept() {
        // A reply stopped before its first token has no text, but it is still a message.
        const QString path = databasePath();
        QDir().mkpath(QFileInfo(path).absolutePath());
        SqlStore store(path);
        const ConversationRecord c{newRecordId(), "c", QDateTime::currentDateTime(),
                                   QDateTime::currentDateTime()};
        store.saveConversation(c);
        store.saveMessage(message(c.id, 0, "assistant", QString(), MessageState::Stopped));
        QCOMPARE(store.messages(c.id).size(), 1);
        QCOMPARE(store.messages(c.id)[0].content, QStringLiteral(""));
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
        MessageRecord partial = message(conversation.id, 1, "assistant", "Day 1: ", MessageState::Stopped);
        {
            ConversationStore store(path);
            QSignalSpy failed(&store, &ConversationStore::failed);
            store.saveConversation(conversation);
            store.saveMessage(message(conversation.id, 0, "user", "Plan a trip"));
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
        MessageRecord reply = message(conversation.id, 1, "assistant", "", MessageState::Stopped);
        {
            ConversationStore store(path);
            store.setRetryInterval(20);
            QSignalSpy failed(&store, &ConversationStore::failed);
            QSignalSpy recovered(&store, &ConversationStore::recovered);
            store.saveConversation(conversation);
            store.saveMessage(message(conversation.id, 0, "user", "Write it all down"));
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
                store.saveMessage(message(conversation.id, 0, "user", QString(256 * 1024, QLatin1Char('y'))));
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
        store.saveMessage(message(newRecordId(), 0, "user", "orphan"));
        const ConversationRecord conversation{newRecordId(), "c", QDateTime::currentDateTime(),
                                              QDateTime::currentDateTime()};
        store.saveConversation(conversation);
        store.saveMessage(message(conversation.id, 0, "user", "kept"));
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
