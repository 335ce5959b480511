// Conversations and messages survive a restart: written through the async store,
// read back by a fresh connection; WAL mode; cascading deletes; upserts.
#include "app/core/conversation_store.h"
#include "app/core/sql_store.h"
#include "tests/support/test_support.h"
#include <QSignalSpy>
#include <QTest>
#include <qcoro/qcorotask.h>

using namespace hearth::app;

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
