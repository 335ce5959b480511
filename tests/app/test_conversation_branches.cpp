// Branches in a conversation: a database written before messages formed a tree becomes one chain
// per conversation (same ids, order and content) in one transaction; regenerating a reply or
// editing a message adds a sibling version, switching shows each version with the branch below
// it, and the choice survives a restart; the engine reuses the cached common prefix after a
// switch; Hearth's JSON carries the tree there and back, ChatGPT's mapping keeps its branches,
// and Markdown follows the chosen path.
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/chat/message_list_model.h"
#include "app/models/inference_worker.h"
#include "app/settings/app_settings.h"
#include "app/storage/conversation_export_json.h"
#include "app/storage/conversation_export_markdown.h"
#include "app/storage/conversation_import.h"
#include "app/storage/conversation_store.h"
#include "app/storage/sql_store.h"
#include "tests/app/backend_fixture.h"
#include "tests/app/raw_sql.h"
#include "tests/support/test_support.h"
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTest>

using namespace hearth::app;
using hearth::chat::Role;
using hearth::test::finishReply;
using hearth::test::loadModel;
using hearth::test::rawSql;
using hearth::test::startChat;
using hearth::test::waitForMessages;

namespace {

// The schema as the release before branches wrote it (SqlStore::createSchema then): the first
// release's tables and index, and the model column it added to them.
const QStringList kLinearSchema{
    "PRAGMA journal_mode=WAL",
    "CREATE TABLE IF NOT EXISTS conversations( id TEXT PRIMARY KEY, title TEXT NOT NULL,"
    " created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS messages( id TEXT PRIMARY KEY,"
    " conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,"
    " position INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL,"
    " state TEXT NOT NULL, created_at INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS messages_by_conversation ON messages(conversation_id, position)",
    "ALTER TABLE messages ADD COLUMN model TEXT NOT NULL DEFAULT ''"};

// Rows as that release wrote them: "long" out of rowid order, with a gap in its positions and a
// row of a role the app does not know; "short" a plain exchange; "empty" none.
const QStringList kLinearRows{
    "INSERT INTO conversations VALUES('long', 'Long', 1000, 9000)",
    "INSERT INTO conversations VALUES('short', 'Short', 2000, 3000)",
    "INSERT INTO conversations VALUES('empty', 'Empty', 4000, 4000)",
    "INSERT INTO messages VALUES('l3', 'long', 3, 'assistant', 'Fourth', 'stopped', 1400, 'm')",
    "INSERT INTO messages VALUES('l0', 'long', 0, 'user', 'First ✨', 'complete', 1100, '')",
    "INSERT INTO messages VALUES('l5', 'long', 6, 'user', 'Sixth', 'complete', 1600, '')",
    "INSERT INTO messages VALUES('l1', 'long', 1, 'assistant', 'Second', 'complete', 1200, 'm')",
    "INSERT INTO messages VALUES('l4', 'long', 4, 'critic', 'Fifth', 'complete', 1500, '')",
    "INSERT INTO messages VALUES('l2', 'long', 2, 'user', 'Third', 'complete', 1300, '')",
    "INSERT INTO messages VALUES('l6', 'long', 7, 'assistant', '', 'failed', 1700, 'm')",
    "INSERT INTO messages VALUES('s0', 'short', 0, 'user', 'Hi', 'complete', 2100, '')",
    "INSERT INTO messages VALUES('s1', 'short', 1, 'assistant', 'Hello', 'complete', 2200, 'm')"};

const QString kOriginalColumns =
    QStringLiteral("id, conversation_id, position, role, content, state, created_at, model");

QStringList idsOf(const QList<MessageRecord>& messages) {
    QStringList ids;
    for (const MessageRecord& m : messages)
        ids << m.id;
    return ids;
}

QStringList contentsOf(const QList<MessageRecord>& messages) {
    QStringList contents;
    for (const MessageRecord& m : messages)
        contents << m.content;
    return contents;
}

MessageRecord message(const QString& conversation, const QString& parent, Role role, const QString& content,
                      int position) {
    MessageRecord m;
    m.id = newRecordId();
    m.conversationId = conversation;
    m.parentId = parent;
    m.position = position;
    m.role = role;
    m.content = content;
    m.createdAt = QDateTime::fromMSecsSinceEpoch(1714564800000 + position * 1000);
    m.model = role == Role::Assistant ? QStringLiteral("stories260K") : QString();
    return m;
}

// A conversation with branches: q -> a (older version) -> f, and q -> b (chosen) -> g; and an
// edited first question q2 (not chosen) -> c.
ConversationBundle branchedConversation() {
    ConversationBundle bundle;
    bundle.conversation = {newRecordId(), QStringLiteral("Branches"),
                           QDateTime::fromMSecsSinceEpoch(1714564800000),
                           QDateTime::fromMSecsSinceEpoch(1714564900000)};
    const QString id = bundle.conversation.id;
    const MessageRecord q = message(id, {}, Role::User, "Question", 0);
    MessageRecord a = message(id, q.id, Role::Assistant, "Answer A", 1);
    const MessageRecord f = message(id, a.id, Role::User, "Follow-up on A", 2);
    const MessageRecord b = message(id, q.id, Role::Assistant, "Answer B", 3);
    const MessageRecord g = message(id, b.id, Role::User, "Follow-up on B", 4);
    MessageRecord q2 = message(id, {}, Role::User, "Question, edited", 5);
    const MessageRecord c = message(id, q2.id, Role::Assistant, "Answer C", 6);
    a.active = false;
    q2.active = false;
    bundle.messages = {q, a, f, b, g, q2, c};
    return bundle;
}

// Each message as its content and its parent's content, with whether it is chosen: what a copy of
// the tree under other ids keeps.
QStringList shapeOf(const QList<MessageRecord>& tree) {
    QHash<QString, QString> contentOf;
    for (const MessageRecord& m : tree)
        contentOf.insert(m.id, m.content);
    QStringList shape;
    for (const MessageRecord& m : tree)
        shape << QStringLiteral("%1 <- %2%3")
                     .arg(m.content, contentOf.value(m.parentId, "(root)"), m.active ? " *" : "");
    shape.sort();
    return shape;
}

QByteArray readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(bytes), bytes.size());
}

} // namespace

class TestConversationBranches : public QObject {
    Q_OBJECT

    QString dir_;
    AppPaths paths() const { return {dir_ + "/data", dir_ + "/settings.ini"}; }
    QString linearDatabase() {
        const QString path = dir_ + "/linear.sqlite";
        [&] { QVERIFY(rawSql(path, kLinearSchema + kLinearRows)); }();
        return path;
    }
    int versionOf(ChatController* chat, int row) {
        return chat->messages()->index(row).data(MessageListModel::VersionRole).toInt();
    }
    int versionsOf(ChatController* chat, int row) {
        return chat->messages()->index(row).data(MessageListModel::VersionCountRole).toInt();
    }

private slots:
    void init() { dir_ = QString::fromStdString(hearth::test::make_temp_dir("hearth-branches")); }

    void anOldDatabaseBecomesOneChainPerConversation() {
        const QString path = linearDatabase();
        const std::optional<QList<QVariantList>> before =
            rawSql(path, {"SELECT " + kOriginalColumns + " FROM messages ORDER BY id"});
        QVERIFY(before && before->size() == 9);
        {
            SqlStore store(path);
            QCOMPARE(store.integrityCheck(), QStringLiteral("ok"));
            QCOMPARE(store.conversations().size(), 3);
            // What the app shows: every message in its order, the unknown role left out and the
            // message after it following the one before it.
            QTest::ignoreMessage(QtWarningMsg, QRegularExpression("holds 1 message\\(s\\) whose role"));
            const QList<MessageRecord> tree = store.messages("long");
            QCOMPARE(idsOf(tree), (QStringList{"l0", "l1", "l2", "l3", "l5", "l6"}));
            QCOMPARE(idsOf(chosenPath(tree)), idsOf(tree));
            QCOMPARE(contentsOf(tree), (QStringList{"First ✨", "Second", "Third", "Fourth", "Sixth", ""}));
            QCOMPARE(tree.at(4).parentId, QStringLiteral("l3"));
            QCOMPARE(tree.at(3).state, MessageState::Stopped);
            QCOMPARE(tree.at(5).state, MessageState::Failed);
            QCOMPARE(tree.at(1).model, QStringLiteral("m"));
            QCOMPARE(tree.at(0).createdAt, QDateTime::fromMSecsSinceEpoch(1100));
            QCOMPARE(idsOf(chosenPath(store.messages("short"))), (QStringList{"s0", "s1"}));
            QVERIFY(store.messages("empty").isEmpty());
            QCOMPARE(store.storedMessages("long").size(), 7);
        }
        // Every stored row as it was, now linked to the one before it in its conversation.
        QCOMPARE(rawSql(path, {"SELECT " + kOriginalColumns + " FROM messages ORDER BY id"})
                     .value_or(QList<QVariantList>{}),
                 *before);
        const std::optional<QList<QVariantList>> links =
            rawSql(path, {"SELECT id, parent_id, active FROM messages ORDER BY conversation_id, position"});
        QVERIFY(links);
        const QList<QVariantList> expected{{"l0", QVariant(), 1}, {"l1", "l0", 1},       {"l2", "l1", 1},
                                           {"l3", "l2", 1},       {"l4", "l3", 1},       {"l5", "l4", 1},
                                           {"l6", "l5", 1},       {"s0", QVariant(), 1}, {"s1", "s0", 1}};
        QCOMPARE(links->size(), expected.size());
        for (qsizetype i = 0; i < expected.size(); ++i) {
            QCOMPARE(links->at(i).at(0).toString(), expected.at(i).at(0).toString());
            QCOMPARE(links->at(i).at(1).isNull(), expected.at(i).at(1).isNull());
            QCOMPARE(links->at(i).at(1).toString(), expected.at(i).at(1).toString());
            QCOMPARE(links->at(i).at(2).toInt(), expected.at(i).at(2).toInt());
        }
        // Opened again: nothing left to migrate; a new message follows the chosen path.
        SqlStore again(path);
        QCOMPARE(idsOf(again.messages("short")), (QStringList{"s0", "s1"}));
        MessageRecord next = message("short", "s1", Role::User, "And you?", 2);
        again.saveMessage(next);
        QCOMPARE(idsOf(chosenPath(again.messages("short"))), (QStringList{"s0", "s1", next.id}));
    }

    // A migration that fails half-way leaves the file as it was: the one transaction is rolled back.
    void aFailedMigrationChangesNothing() {
        const QString path = dir_ + "/refusing.sqlite";
        // The schema before branches, and a trigger that refuses every update.
        QVERIFY(rawSql(path, kLinearSchema + kLinearRows +
                                 QStringList{"CREATE TRIGGER refuse BEFORE UPDATE ON messages"
                                             " BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END"}));
        const std::optional<QList<QVariantList>> before =
            rawSql(path, {"SELECT * FROM messages ORDER BY id"});
        QVERIFY(before && before->size() == 9);
        try {
            SqlStore store(path);
            QFAIL("the migration went through a trigger that refuses it");
        } catch (const StoreError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(path), e.what());
        }
        const std::optional<QList<QVariantList>> columns =
            rawSql(path, {"SELECT name FROM pragma_table_info('messages') ORDER BY cid"});
        QVERIFY(columns);
        QStringList names;
        for (const QVariantList& row : *columns)
            names << row.at(0).toString();
        QCOMPARE(names.join(", "),
                 QStringLiteral("id, conversation_id, position, role, content, state, created_at, model"));
        QCOMPARE(rawSql(path, {"SELECT * FROM messages ORDER BY id"}).value_or(QList<QVariantList>{}),
                 *before);
        // Without the trigger it goes through.
        QVERIFY(rawSql(path, {"DROP TRIGGER refuse"}));
        SqlStore store(path);
        QCOMPARE(idsOf(store.messages("short")), (QStringList{"s0", "s1"}));
    }

    // The tree and each parent's chosen child, as the store keeps them across a reopening.
    void theStoreKeepsBranchesAndTheChoice() {
        const QString path = dir_ + "/tree.sqlite";
        const ConversationBundle bundle = branchedConversation();
        {
            SqlStore store(path);
            store.saveConversation(bundle.conversation);
            for (const MessageRecord& m : bundle.messages) {
                MessageRecord saved = m;
                saved.active = true; // as the app writes a new version: chosen when written
                store.saveMessage(saved);
            }
            // The last written of each set of siblings is the chosen one: q2 -> c.
            QCOMPARE(contentsOf(chosenPath(store.messages(bundle.conversation.id))),
                     (QStringList{"Question, edited", "Answer C"}));
            store.chooseMessage(bundle.messages.at(0).id); // back to the first question
            QCOMPARE(contentsOf(chosenPath(store.messages(bundle.conversation.id))),
                     (QStringList{"Question", "Answer B", "Follow-up on B"}));
            store.chooseMessage(bundle.messages.at(1).id); // answer A
        }
        SqlStore reopened(path);
        const QList<MessageRecord> tree = reopened.messages(bundle.conversation.id);
        QCOMPARE(tree.size(), 7);
        QCOMPARE(contentsOf(chosenPath(tree)), (QStringList{"Question", "Answer A", "Follow-up on A"}));
        QCOMPARE(reopened.integrityCheck(), QStringLiteral("ok"));
    }

    // A tree edited by hand into a loop (each message the other's parent), or pointing at a parent
    // that is not there: every row is still read, nothing loops forever, and the orphan is a root.
    void aHandEditedTreeNeitherHangsNorLosesRows() {
        const QString path = dir_ + "/edited.sqlite";
        {
            SqlStore store(path);
            store.saveConversation(
                {"c", "Edited", QDateTime::fromMSecsSinceEpoch(1), QDateTime::fromMSecsSinceEpoch(2)});
        }
        QVERIFY(rawSql(
            path,
            {"INSERT INTO messages VALUES('x', 'c', 0, 'user', 'X', 'complete', 1, '', 'y', 1, '')",
             "INSERT INTO messages VALUES('y', 'c', 1, 'assistant', 'Y', 'complete', 2, '', 'x', 1, '')",
             "INSERT INTO messages VALUES('z', 'c', 2, 'user', 'Z', 'complete', 3, '', 'gone', 1, '')"}));
        SqlStore store(path);
        const QList<MessageRecord> tree = store.messages("c");
        QCOMPARE(idsOf(tree), (QStringList{"x", "y", "z"}));
        QCOMPARE(idsOf(chosenPath(tree)), QStringList{"z"}); // the loop has no root to start from
        MessageListModel list("c");
        list.setMessages(tree);
        QCOMPARE(list.count(), 1);
        QCOMPARE(list.tree().size(), 3);
        QCOMPARE(list.switchVersion("z", 1), QString());
    }

    // Regenerating and editing through the controller, on a real model: each makes a sibling
    // version; switching shows each version with the branch below it; a restart keeps them all and
    // the choice.
    void regenerateAndEditMakeBranchesThatSurviveARestart() {
        QString conversation;
        QStringList firstBranch, regenerated, edited;
        {
            HearthBackend b(paths());
            QVERIFY(startChat(b));
            QVERIFY(loadModel(b));
            b.settings()->setMaxReplyTokens(6);
            ChatController* chat = b.chat();
            MessageListModel* list = nullptr;
            QVERIFY(chat->send("Once upon a time"));
            QVERIFY(finishReply(chat));
            QVERIFY(chat->send("And then?"));
            QVERIFY(finishReply(chat));
            conversation = chat->currentConversationId();
            list = chat->messages();
            firstBranch = idsOf(list->messages());
            QCOMPARE(firstBranch.size(), 4);
            QCOMPARE(versionsOf(chat, 1), 1);

            // The first reply regenerated: a second version; what followed the first goes out of view.
            QVERIFY(chat->regenerate(firstBranch.at(1)));
            QCOMPARE(list->count(), 2);
            QVERIFY(!chat->switchVersion(list->messages().at(1).id, -1)); // not while the reply is written
            QVERIFY(finishReply(chat));
            regenerated = idsOf(list->messages());
            QCOMPARE(regenerated.at(0), firstBranch.at(0));
            QVERIFY(regenerated.at(1) != firstBranch.at(1));
            QCOMPARE(versionOf(chat, 1), 2);
            QCOMPARE(versionsOf(chat, 1), 2);
            QCOMPARE(versionsOf(chat, 0), 1);

            // Back to the first version: it and the rest of its branch.
            QVERIFY(chat->switchVersion(regenerated.at(1), -1));
            QCOMPARE(idsOf(list->messages()), firstBranch);
            QCOMPARE(versionOf(chat, 1), 1);
            QVERIFY(!chat->switchVersion(firstBranch.at(1), -1)); // no version before the first
            QVERIFY(chat->switchVersion(firstBranch.at(1), 1));
            QCOMPARE(idsOf(list->messages()), regenerated);

            // The first question edited: a sibling of it, with its own reply.
            QVERIFY(chat->editAndResend(firstBranch.at(0), "Once upon a time there was a dog"));
            QVERIFY(finishReply(chat));
            edited = idsOf(list->messages());
            QCOMPARE(edited.size(), 2);
            QVERIFY(!firstBranch.contains(edited.at(0)) && !regenerated.contains(edited.at(1)));
            QCOMPARE(list->messages().at(0).content, QStringLiteral("Once upon a time there was a dog"));
            QCOMPARE(versionOf(chat, 0), 2);
            QCOMPARE(versionsOf(chat, 0), 2);
            // The original question below it keeps the version last chosen there: the regenerated reply.
            QVERIFY(chat->switchVersion(edited.at(0), -1));
            QCOMPARE(idsOf(list->messages()), regenerated);
            QCOMPARE(list->messages().at(0).content, QStringLiteral("Once upon a time"));
            QVERIFY(chat->switchVersion(regenerated.at(1), -1));
            QCOMPARE(idsOf(list->messages()), firstBranch);
            QCOMPARE(list->tree().size(), 7);
        }
        {
            HearthBackend again(paths());
            QVERIFY(startChat(again));
            again.chat()->selectConversation(conversation);
            QVERIFY(waitForMessages(again.chat(), 4));
            QCOMPARE(idsOf(again.chat()->messages()->messages()), firstBranch);
            QCOMPARE(versionOf(again.chat(), 0), 1);
            QCOMPARE(versionsOf(again.chat(), 0), 2);
            QCOMPARE(versionOf(again.chat(), 1), 1);
            QCOMPARE(versionsOf(again.chat(), 1), 2);
            QCOMPARE(again.chat()->messages()->tree().size(), 7);
            // Chosen now, and found chosen at the next start.
            QVERIFY(again.chat()->switchVersion(firstBranch.at(0), 1));
            QCOMPARE(idsOf(again.chat()->messages()->messages()), edited);
        }
        HearthBackend third(paths());
        QVERIFY(startChat(third));
        third.chat()->selectConversation(conversation);
        QVERIFY(waitForMessages(third.chat(), 2));
        QCOMPARE(idsOf(third.chat()->messages()->messages()), edited);
    }

    // What a switch costs: nothing in the engine when it happens; the next reply on the branch
    // switched to reuses the cache's common prefix with it (the turns above the branch point)
    // and computes only the rest. The figures are printed.
    void aSwitchReusesTheCachedCommonPrefix() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        b.settings()->setMaxReplyTokens(12);
        // Plain turns: ChatML's markers would take most of stories260K's 128 positions, and a
        // context shift (a cut of the oldest turns) leaves little to reuse whatever the branch.
        b.settings()->setChatTemplate("{% for m in messages %}{{ m.content }}\n{% endfor %}");
        ChatController* chat = b.chat();
        QList<GenerationResult> results;
        connect(b.worker(), &InferenceWorker::generationFinished, this,
                [&](quint64, const GenerationResult& r) { results.append(r); });
        QVERIFY(chat->send("Once upon a time"));
        QVERIFY(finishReply(chat));
        QVERIFY(chat->send("A ball"));
        QVERIFY(finishReply(chat));
        const QStringList branchA = idsOf(chat->messages()->messages());
        QVERIFY(chat->regenerate(branchA.at(1))); // branch B: the first question, another reply
        QVERIFY(finishReply(chat));
        QTRY_VERIFY(results.size() == 3);
        const hearth::engine::TurnStats regenerated = results.at(2).stats;

        QElapsedTimer timer;
        timer.start();
        QVERIFY(chat->switchVersion(chat->messages()->messages().at(1).id, -1)); // back to branch A
        const qint64 switchNs = timer.nsecsElapsed();
        QCOMPARE(idsOf(chat->messages()->messages()), branchA);
        QVERIFY(chat->send("And then?"));
        QVERIFY(finishReply(chat));
        QTRY_VERIFY(results.size() == 4);
        const hearth::engine::TurnStats next = results.at(3).stats;
        for (const GenerationResult& r : results)
            qInfo("turn: %d prompt, %d reused, %d computed", r.stats.prompt_tokens, r.stats.reused_tokens,
                  r.stats.computed_tokens);
        // The cache held branch B (the first question and its other reply); branch A's prompt
        // shares the first question with it, rendered alike, and that much is not computed again.
        QVERIFY2(next.reused_tokens >= regenerated.prompt_tokens - 1,
                 qPrintable(QStringLiteral("reused %1 of %2; the shared question is %3 tokens")
                                .arg(next.reused_tokens)
                                .arg(next.prompt_tokens)
                                .arg(regenerated.prompt_tokens)));
        QVERIFY(next.reused_tokens < next.prompt_tokens);
        QCOMPARE(next.shifted_out_tokens, 0); // the whole conversation in view: a plain reuse
        // More than that: the regeneration kept branch A's cache as a branch state, which came
        // back for this turn, so only the new question (and what follows it) was computed.
        QVERIFY2(results.at(3).resume.branch, results.at(3).resume.reason.c_str());
        QVERIFY2(next.computed_tokens < next.prompt_tokens - regenerated.prompt_tokens,
                 qPrintable(
                     QStringLiteral("computed %1 of %2").arg(next.computed_tokens).arg(next.prompt_tokens)));
        qInfo("switch: %.3f ms in the GUI thread; next reply: %d prompt tokens, %d reused, %d computed in "
              "%.2f ms (%.0f tok/s prefill)",
              double(switchNs) / 1e6, next.prompt_tokens, next.reused_tokens, next.computed_tokens,
              next.prefill_seconds * 1000.0, next.prefill_tokens_per_second());
    }

    void hearthJsonCarriesTheTreeThereAndBack() {
        const ConversationBundle original = branchedConversation();
        const QString file = dir_ + "/tree.json";
        {
            SqlStore source(dir_ + "/source.sqlite");
            source.inTransaction(
                [&] { source.insertConversation(original.conversation, original.messages); });
            const QList<MessageRecord> stored = source.messages(original.conversation.id);
            QCOMPARE(shapeOf(stored), shapeOf(original.messages));
            writeFile(file, conversationsToJson({ConversationBundle{original.conversation, stored}}));
        }
        const QJsonObject exported = QJsonDocument::fromJson(readFile(file))
                                         .object()
                                         .value("conversations")
                                         .toArray()
                                         .at(0)
                                         .toObject();
        QCOMPARE(exported.value("messages").toArray().size(), 7);
        const QList<MessageRecord> shown = chosenPath(original.messages);
        QCOMPARE(exported.value("currentLeaf").toString(), shown.constLast().id);

        SqlStore target(dir_ + "/target.sqlite");
        const ImportSummary summary = importConversations(target, file);
        QCOMPARE(summary.messages, 7);
        const QList<ConversationRecord> imported = target.conversations();
        QCOMPARE(imported.size(), 1);
        const QList<MessageRecord> tree = target.messages(imported.at(0).id);
        QCOMPARE(shapeOf(tree), shapeOf(original.messages));
        QCOMPARE(contentsOf(chosenPath(tree)), contentsOf(shown));
        QVERIFY(!idsOf(tree).contains(original.messages.at(0).id)); // under new ids
        // Exported again from there: the same tree.
        writeFile(dir_ + "/again.json", conversationsToJson({ConversationBundle{imported.at(0), tree}}));
        SqlStore third(dir_ + "/third.sqlite");
        importConversations(third, dir_ + "/again.json");
        QCOMPARE(shapeOf(third.messages(third.conversations().at(0).id)), shapeOf(original.messages));

        // Markdown follows the chosen path only.
        const QString markdown =
            conversationsToMarkdown({ConversationBundle{original.conversation, original.messages}});
        QVERIFY(markdown.contains("Answer B") && markdown.contains("Follow-up on B"));
        QVERIFY(!markdown.contains("Answer A") && !markdown.contains("Answer C"));
    }

    // ChatGPT's mapping, with an edited question and a regenerated answer: every version kept,
    // the path to current_node chosen; hidden and system nodes left out, their children kept.
    void chatGptImportKeepsItsBranches() {
        const auto node = [](const QString& id, const QJsonValue& parent, const QString& role,
                             const QString& text, double time) {
            QJsonObject n{{"id", id}, {"parent", parent}, {"children", QJsonArray{}}};
            if (!role.isEmpty())
                n.insert("message", QJsonObject{{"author", QJsonObject{{"role", role}}},
                                                {"create_time", time},
                                                {"content", QJsonObject{{"content_type", "text"},
                                                                        {"parts", QJsonArray{text}}}}});
            return n;
        };
        // root -> sys -> q1 -> a1 (regenerated) / a1b -> q2 ; sys -> q1e (edited q1) -> a2
        const QJsonObject mapping{{"root", node("root", QJsonValue::Null, "", "", 0)},
                                  {"sys", node("sys", "root", "system", "You are ChatGPT.", 1)},
                                  {"q1", node("q1", "sys", "user", "First question", 2)},
                                  {"a1", node("a1", "q1", "assistant", "First answer", 3)},
                                  {"a1b", node("a1b", "q1", "assistant", "Second answer", 4)},
                                  {"q2", node("q2", "a1b", "user", "Another question", 5)},
                                  {"q1e", node("q1e", "sys", "user", "First question, edited", 6)},
                                  {"a2", node("a2", "q1e", "assistant", "Answer to the edit", 7)}};
        const QJsonArray file{QJsonObject{{"title", "Branched"},
                                          {"create_time", 1714564800.0},
                                          {"update_time", 1714564900.0},
                                          {"mapping", mapping},
                                          {"current_node", "q2"}}};
        writeFile(dir_ + "/conversations.json", QJsonDocument(file).toJson());
        SqlStore store(dir_ + "/db.sqlite");
        const ImportSummary summary = importConversations(store, dir_ + "/conversations.json");
        QCOMPARE(summary.format, QStringLiteral("ChatGPT"));
        QCOMPARE(summary.messages, 6);
        const QList<MessageRecord> tree = store.messages(store.conversations().at(0).id);
        QCOMPARE(shapeOf(tree),
                 (QStringList{"Another question <- Second answer *",
                              "Answer to the edit <- First question, edited *",
                              "First answer <- First question", "First question <- (root) *",
                              "First question, edited <- (root)", "Second answer <- First question *"}));
        QCOMPARE(contentsOf(chosenPath(tree)),
                 (QStringList{"First question", "Second answer", "Another question"}));
        // Siblings in the order they were written: the regenerated answer is the second version.
        MessageListModel list(store.conversations().at(0).id);
        list.setMessages(tree);
        QCOMPARE(list.index(1).data(MessageListModel::VersionRole).toInt(), 2);
        QCOMPARE(list.index(1).data(MessageListModel::VersionCountRole).toInt(), 2);
        QCOMPARE(list.index(0).data(MessageListModel::VersionRole).toInt(), 1);
    }
};

QTEST_MAIN(TestConversationBranches)
#include "test_conversation_branches.moc"
