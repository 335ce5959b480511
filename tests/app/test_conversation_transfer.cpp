// Export and import of conversations: Hearth's JSON back into a database gives the same
// conversations (titles, times, roles, contents, states, models); a branched file keeps every
// branch and shows its current one; the Markdown and PDF exports hold what they should; ChatGPT's
// conversations.json (tests/app/data) imports with its branches; bad files (malformed, too
// big, unknown version, empty, neither format) are refused with the file and the place named;
// a file bad in its third conversation leaves the database as it was; the app's
// ConversationFiles exports to a fresh name and imports through the store's thread.
#include "app/chat/conversation_files.h"
#include "app/chat/tool_calls.h"
#include "app/storage/conversation_export_json.h"
#include "app/storage/conversation_export_markdown.h"
#include "app/storage/conversation_export_pdf.h"
#include "app/storage/conversation_import.h"
#include "app/storage/conversation_store.h"
#include "app/storage/sql_store.h"
#include "tests/support/test_support.h"
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTest>
#include <memory>

using namespace hearth::app;
using hearth::chat::Role;

namespace {
QString tempDir() {
    return QString::fromStdString(hearth::test::make_temp_dir("hearth-transfer"));
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(bytes), bytes.size());
}

QByteArray readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

MessageRecord message(const QString& conversation, int position, Role role, const QString& content,
                      const QDateTime& time, const QString& model = {},
                      MessageState state = MessageState::Complete) {
    MessageRecord m;
    m.id = newRecordId();
    m.conversationId = conversation;
    m.position = position;
    m.role = role;
    m.content = content;
    m.state = state;
    m.createdAt = time;
    m.model = model;
    return m;
}

// Each message the child of the one before it: a conversation without branches.
QList<MessageRecord> chained(QList<MessageRecord> messages) {
    for (qsizetype i = 1; i < messages.size(); ++i)
        messages[i].parentId = messages.at(i - 1).id;
    return messages;
}

// Two conversations as the app writes them.
QList<ConversationBundle> sampleConversations() {
    const QDateTime start = QDateTime::fromMSecsSinceEpoch(1714564800123);
    ConversationBundle first;
    first.conversation = {newRecordId(), QStringLiteral("Sorting in C++ — ünïcödé"), start,
                          start.addSecs(90)};
    const QString id = first.conversation.id;
    first.messages = chained({
        message(id, 0, Role::User, QStringLiteral("How do I sort a vector?"), start),
        message(id, 1, Role::Assistant,
                QStringLiteral("Use `std::sort`:\n\n```cpp\nstd::sort(v.begin(), v.end());\n```\n\nDone."),
                start.addMSecs(1500), QStringLiteral("Qwen2.5-0.5B-Instruct-Q4_K_M")),
        message(id, 2, Role::User, QStringLiteral("And descending?"), start.addSecs(60)),
        message(id, 3, Role::Assistant, QStringLiteral("Pass `std::greater<>()` as the"), start.addSecs(90),
                QStringLiteral("Qwen2.5-0.5B-Instruct-Q4_K_M"), MessageState::Stopped),
    });
    ConversationBundle second;
    second.conversation = {newRecordId(), QStringLiteral("Haiku"), start.addDays(1),
                           start.addDays(1).addSecs(5)};
    second.messages = chained({
        message(second.conversation.id, 0, Role::User, QStringLiteral("A haiku, please"), start.addDays(1)),
        message(second.conversation.id, 1, Role::Assistant, QStringLiteral("Cold hearth, warm embers"),
                start.addDays(1).addSecs(5), QStringLiteral("stories260K"), MessageState::Complete),
    });
    return {first, second};
}

void fill(SqlStore& store, const QList<ConversationBundle>& bundles) {
    store.inTransaction([&] {
        for (const ConversationBundle& b : bundles)
            store.insertConversation(b.conversation, b.messages);
    });
}

QList<ConversationBundle> readAll(const SqlStore& store) {
    QList<ConversationBundle> bundles;
    for (const ConversationRecord& c : store.conversations())
        bundles.append({c, store.messages(c.id)});
    return bundles;
}

// The error importConversations gives for `path`, or "" when it imports.
QString importError(SqlStore& store, const QString& path, qint64 maxBytes = kMaxImportBytes) {
    try {
        importConversations(store, path, maxBytes);
    } catch (const TransferError& e) {
        return e.message();
    }
    return {};
}

QJsonObject hearthMessage(const QString& id, const QJsonValue& parent, const QString& role,
                          const QString& content) {
    return {{"id", id},           {"parentId", parent},  {"role", role},
            {"content", content}, {"state", "complete"}, {"createdAt", "2024-05-01T12:00:00.000Z"},
            {"model", ""}};
}

QJsonObject hearthConversation(const QString& title, const QJsonArray& messages, const QJsonValue& leaf) {
    return {{"id", title},
            {"title", title},
            {"createdAt", "2024-05-01T12:00:00.000Z"},
            {"updatedAt", "2024-05-01T12:05:00.000Z"},
            {"currentLeaf", leaf},
            {"messages", messages}};
}

QByteArray hearthFile(const QJsonArray& conversations, int version = kHearthFormatVersion) {
    return QJsonDocument(QJsonObject{{"format", kHearthFormatName},
                                     {"version", version},
                                     {"conversations", conversations}})
        .toJson();
}

int count(const QString& databasePath, const QString& table) {
    int n = -1;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("count"));
        db.setDatabaseName(databasePath);
        if (db.open()) {
            QSqlQuery query(db);
            if (query.exec(QStringLiteral("SELECT COUNT(*) FROM ") + table) && query.next())
                n = query.value(0).toInt();
        }
    }
    QSqlDatabase::removeDatabase(QStringLiteral("count"));
    return n;
}
} // namespace

class TestConversationTransfer : public QObject {
    Q_OBJECT

private slots:
    void jsonRoundTripKeepsEverything() {
        const QString dir = tempDir();
        const QList<ConversationBundle> original = sampleConversations();
        const QString file = dir + "/export.json";
        {
            SqlStore source(dir + "/source.sqlite");
            fill(source, original);
            writeFile(file, conversationsToJson(readAll(source), QJsonObject{{"temperature", 0.7}}));
        }
        const QJsonObject root = QJsonDocument::fromJson(readFile(file)).object();
        QCOMPARE(root.value("format").toString(), QString(kHearthFormatName));
        // No message shows an image: the first version, which every Hearth reads.
        QCOMPARE(root.value("version").toInt(), kHearthFormatTextOnlyVersion);
        QCOMPARE(root.value("settings").toObject().value("temperature").toDouble(), 0.7);
        // A chain: each message's parent is the one before it, the leaf the last.
        const QJsonObject exported = root.value("conversations").toArray().at(0).toObject();
        const QJsonArray messages = exported.value("messages").toArray();
        QVERIFY(messages.at(0).toObject().value("parentId").isNull());
        for (qsizetype i = 1; i < messages.size(); ++i)
            QCOMPARE(messages.at(i).toObject().value("parentId").toString(),
                     messages.at(i - 1).toObject().value("id").toString());
        QCOMPARE(exported.value("currentLeaf").toString(), messages.last().toObject().value("id").toString());

        SqlStore target(dir + "/target.sqlite");
        const ImportSummary summary = importConversations(target, file);
        QCOMPARE(summary.format, QStringLiteral("Hearth"));
        QCOMPARE(summary.conversations, 2);
        QCOMPARE(summary.messages, 6);
        const QList<ConversationBundle> imported = readAll(target);
        QCOMPARE(imported.size(), original.size());
        for (const ConversationBundle& want : original) {
            const auto found =
                std::find_if(imported.begin(), imported.end(), [&](const ConversationBundle& b) {
                    return b.conversation.title == want.conversation.title;
                });
            QVERIFY2(found != imported.end(), qPrintable(want.conversation.title));
            QVERIFY(found->conversation.id != want.conversation.id); // new ids: never clashes
            QCOMPARE(found->conversation.createdAt, want.conversation.createdAt);
            QCOMPARE(found->conversation.updatedAt, want.conversation.updatedAt);
            QCOMPARE(found->messages.size(), want.messages.size());
            for (qsizetype i = 0; i < want.messages.size(); ++i) {
                const MessageRecord& got = found->messages.at(i);
                const MessageRecord& m = want.messages.at(i);
                QCOMPARE(got.role, m.role);
                QCOMPARE(got.content, m.content);
                QCOMPARE(got.state, m.state);
                QCOMPARE(got.createdAt, m.createdAt);
                QCOMPARE(got.model, m.model);
                QCOMPARE(got.position, int(i));
                QCOMPARE(got.conversationId, found->conversation.id);
            }
        }
        // Imported twice: two copies, the first untouched.
        QCOMPARE(importConversations(target, file).conversations, 2);
        QCOMPARE(target.conversations().size(), 4);
    }

    // A reply's function calls and the tool message answering one go out in "tool" and come back
    // as the chat keeps them: the calls with their server, tool, arguments and status.
    void toolCallsCrossTheJsonRoundTrip() {
        const QString dir = tempDir();
        const QDateTime start = QDateTime::fromMSecsSinceEpoch(1714564800123);
        ConversationBundle bundle;
        bundle.conversation = {newRecordId(), QStringLiteral("Files"), start, start.addSecs(9)};
        const QString id = bundle.conversation.id;
        const ToolCallRecord call{QStringLiteral("call-1"),
                                  QStringLiteral("files__list_directory"),
                                  QStringLiteral("files"),
                                  QStringLiteral("list_directory"),
                                  QStringLiteral(R"({"path":"/tmp/notes"})"),
                                  ToolCallStatus::Done};
        ToolResultRecord result{QStringLiteral("call-1"), QStringLiteral("files__list_directory"),
                                QStringLiteral("files"), QStringLiteral("list_directory")};
        result.truncated = true;
        bundle.messages = chained({
            message(id, 0, Role::User, QStringLiteral("What is in my notes?"), start),
            message(id, 1, Role::Assistant, QString(), start.addSecs(2), QStringLiteral("stories260K")),
            message(id, 2, Role::Tool, QStringLiteral("[FILE] a.txt"), start.addSecs(3)),
            message(id, 3, Role::Assistant, QStringLiteral("One file, a.txt."), start.addSecs(9),
                    QStringLiteral("stories260K")),
        });
        bundle.messages[1].toolData = toolCallsToJson({call});
        bundle.messages[2].toolData = toolResultToJson(result);
        const QString file = dir + "/tools.json";
        {
            SqlStore source(dir + "/source.sqlite");
            fill(source, {bundle});
            writeFile(file, conversationsToJson(readAll(source)));
        }
        const QJsonArray messages = QJsonDocument::fromJson(readFile(file))
                                        .object()
                                        .value("conversations")
                                        .toArray()
                                        .at(0)
                                        .toObject()
                                        .value("messages")
                                        .toArray();
        QCOMPARE(messages.size(), 4);
        QVERIFY(!messages.at(0).toObject().contains("tool"));
        const QJsonObject exportedCall =
            messages.at(1).toObject().value("tool").toObject().value("calls").toArray().at(0).toObject();
        QCOMPARE(exportedCall.value("tool").toString(), QStringLiteral("list_directory"));
        QCOMPARE(exportedCall.value("status").toString(), QStringLiteral("done"));
        QVERIFY(messages.at(2).toObject().value("tool").toObject().contains("result"));

        SqlStore target(dir + "/target.sqlite");
        QCOMPARE(importConversations(target, file).messages, 4);
        const QList<MessageRecord> imported = target.messages(target.conversations().at(0).id);
        QCOMPARE(imported.size(), 4);
        QVERIFY(imported.at(0).toolData.isEmpty());
        QCOMPARE(toolCallsFromJson(imported.at(1).toolData), QList<ToolCallRecord>{call});
        const ToolResultRecord back = toolResultFromJson(imported.at(2).toolData);
        QCOMPARE(back.callId, result.callId);
        QCOMPARE(back.server, result.server);
        QCOMPARE(back.tool, result.tool);
        QVERIFY(back.truncated);
        QVERIFY(imported.at(3).toolData.isEmpty());
    }

    void jsonImportKeepsEveryBranchAndShowsTheCurrentOne() {
        const QString dir = tempDir();
        // root -> answer A (left behind) and root -> answer B -> follow-up (current).
        const QJsonArray messages{hearthMessage("q", QJsonValue::Null, "user", "Question"),
                                  hearthMessage("a", "q", "assistant", "Answer A"),
                                  hearthMessage("b", "q", "assistant", "Answer B"),
                                  hearthMessage("f", "b", "user", "Follow-up")};
        writeFile(dir + "/tree.json", hearthFile({hearthConversation("Tree", messages, "f")}));
        SqlStore store(dir + "/db.sqlite");
        const ImportSummary summary = importConversations(store, dir + "/tree.json");
        QCOMPARE(summary.messages, 4);
        const QList<ConversationBundle> imported = readAll(store);
        QCOMPARE(imported.size(), 1);
        QStringList contents;
        for (const MessageRecord& m : chosenPath(imported.at(0).messages))
            contents << m.content;
        QCOMPARE(contents, (QStringList{"Question", "Answer B", "Follow-up"}));
        // Answer A is kept, a sibling of B: the same parent, not chosen.
        const QList<MessageRecord>& tree = imported.at(0).messages;
        const auto answerA = std::find_if(tree.begin(), tree.end(), [](const MessageRecord& m) {
            return m.content == QLatin1String("Answer A");
        });
        QVERIFY(answerA != tree.end());
        QVERIFY(!answerA->active);
        QCOMPARE(answerA->parentId, tree.at(0).id);
        QCOMPARE(imported.at(0).conversation.createdAt,
                 QDateTime::fromString("2024-05-01T12:00:00.000Z", Qt::ISODateWithMs));
    }

    void markdownHoldsTitlesAuthorsAndCode() {
        QList<ConversationBundle> bundles = sampleConversations();
        bundles[1].messages[1].content = QStringLiteral("Stopped in code:\n```python\nprint(1)");
        const QString markdown = conversationsToMarkdown(bundles);
        QVERIFY(markdown.startsWith(QStringLiteral("# Sorting in C++ — ünïcödé\n")));
        QVERIFY(markdown.contains(QStringLiteral("\n# Haiku\n")));
        QCOMPARE(markdown.count(QStringLiteral("\n---\n")), 1); // between the two conversations
        QCOMPARE(markdown.count(QStringLiteral("## You")), 3);
        QCOMPARE(markdown.count(QStringLiteral("## Assistant (Qwen2.5-0.5B-Instruct-Q4_K_M)")), 2);
        QVERIFY(markdown.contains(QStringLiteral("```cpp\nstd::sort(v.begin(), v.end());\n```")));
        QVERIFY(markdown.contains(QStringLiteral("(stopped before the end)")));
        // The open fence of a stopped reply is closed: the text after it is no code.
        QVERIFY(markdown.contains(QStringLiteral("print(1)\n```")));
        QCOMPARE(markdown.count(QStringLiteral("```")) % 2, 0);
    }

    void pdfIsADocumentWithPages() {
        const QString dir = tempDir();
        const QList<ConversationBundle> bundles = sampleConversations();
        writeConversationsPdf(bundles.mid(1), dir + "/short.pdf");
        const QByteArray shortPdf = readFile(dir + "/short.pdf");
        QVERIFY(shortPdf.startsWith("%PDF-"));
        QVERIFY(shortPdf.trimmed().endsWith("%%EOF"));
        QCOMPARE(shortPdf.count("/Type /Page\n") + shortPdf.count("/Type /Page\r") +
                     shortPdf.count("/Type /Page "),
                 qsizetype(1));
        // The title goes into the document's information, in UTF-16.
        QByteArray title = "\xfe\xff";
        for (const QChar c : QStringLiteral("Haiku"))
            title += char(c.unicode() >> 8), title += char(c.unicode() & 0xff);
        QVERIFY(shortPdf.contains("Haiku") || shortPdf.contains(title));

        ConversationBundle longer = bundles.at(0);
        for (int i = 0; i < 120; ++i)
            longer.messages.append(message(longer.conversation.id, int(longer.messages.size()), Role::User,
                                           QStringLiteral("Line %1 of a long conversation").arg(i),
                                           QDateTime()));
        longer.messages = chained(longer.messages);
        writeConversationsPdf({longer}, dir + "/long.pdf");
        const QByteArray longPdf = readFile(dir + "/long.pdf");
        QVERIFY(longPdf.startsWith("%PDF-"));
        QVERIFY2(longPdf.count("/Type /Page\n") + longPdf.count("/Type /Page ") > 2,
                 "a long conversation has pages");
        // A folder that cannot be written: an error naming the file.
        try {
            writeConversationsPdf(bundles, dir + "/missing/folder/x.pdf");
            QFAIL("wrote into a missing folder");
        } catch (const TransferError& e) {
            QVERIFY2(e.message().contains(dir + "/missing/folder/x.pdf"), qPrintable(e.message()));
        }
    }

    void chatGptImportKeepsItsBranches() {
        const QString dir = tempDir();
        SqlStore store(dir + "/db.sqlite");
        const ImportSummary summary =
            importConversations(store, QStringLiteral(HEARTH_TEST_DATA_DIR "/chatgpt_conversations.json"));
        QCOMPARE(summary.format, QStringLiteral("ChatGPT"));
        QCOMPARE(summary.conversations, 2);
        QCOMPARE(summary.skippedConversations, 1); // a system prompt alone
        QList<ConversationBundle> imported = readAll(store);
        QCOMPARE(imported.size(), 2);
        if (imported.at(0).conversation.title != "Rust lifetimes") imported.swapItemsAt(0, 1);
        // The regenerated answer is a sibling of the chosen one, not chosen.
        const QList<MessageRecord> rustTree = imported.at(0).messages;
        QCOMPARE(rustTree.size(), 5);
        QCOMPARE(rustTree.at(1).content, QStringLiteral("A first answer, regenerated away."));
        QCOMPARE(rustTree.at(1).parentId, rustTree.at(0).id);
        QVERIFY(!rustTree.at(1).active);
        for (ConversationBundle& b : imported) // from here on, the branches shown
            b.messages = chosenPath(b.messages);
        const ConversationBundle& rust = imported.at(0);
        QCOMPARE(rust.conversation.title, QStringLiteral("Rust lifetimes"));
        QCOMPARE(rust.conversation.createdAt, QDateTime::fromMSecsSinceEpoch(1714564800125));
        QCOMPARE(rust.conversation.updatedAt, QDateTime::fromMSecsSinceEpoch(1714565400500));
        // System, tool and empty nodes are left out; the branch is a1, not a1b.
        QCOMPARE(rust.messages.size(), 4);
        QCOMPARE(rust.messages.at(0).role, Role::User);
        QCOMPARE(rust.messages.at(0).content, QStringLiteral("What is a lifetime?"));
        QCOMPARE(rust.messages.at(0).createdAt, QDateTime::fromMSecsSinceEpoch(1714564801000));
        QCOMPARE(rust.messages.at(1).role, Role::Assistant);
        QCOMPARE(rust.messages.at(1).content, QStringLiteral("A lifetime names how long a borrow lives."));
        QCOMPARE(rust.messages.at(1).model, QStringLiteral("gpt-4o"));
        QCOMPARE(rust.messages.at(1).createdAt, QDateTime::fromMSecsSinceEpoch(1714564805250));
        // Multi-part: the text parts joined, the image left out.
        QCOMPARE(rust.messages.at(2).content, QStringLiteral("Look at this diagram.\n\nIs it right?"));
        QCOMPARE(rust.messages.at(3).content,
                 QStringLiteral("Yes, with one fix:\n\n```rust\nfn f<'a>(x: &'a str) -> &'a str { x }\n```"));
        QCOMPARE(rust.messages.at(3).model, QStringLiteral("gpt-4o-mini"));
        for (const MessageRecord& m : rust.messages)
            QVERIFY(m.state == MessageState::Complete);

        const ConversationBundle& hello = imported.at(1);
        QCOMPARE(hello.messages.size(), 2);
        QCOMPARE(hello.messages.at(1).content, QStringLiteral("```\nprint('hi')\n```"));
        // No time of its own: the one before it.
        QCOMPARE(hello.messages.at(1).createdAt, hello.messages.at(0).createdAt);
    }

    void badFilesAreRefusedWithTheirPlace_data() {
        QTest::addColumn<QByteArray>("contents");
        QTest::addColumn<QStringList>("expected"); // parts of the message, besides the file's path
        QTest::newRow("malformed") << QByteArray(
                                          "{\n  \"format\": \"hearth-conversations\",\n  \"version\" 1\n}")
                                   << QStringList{"line 3, column 14",
                                                  "not valid JSON"}; // Qt's offset: past the "1"
        QTest::newRow("truncated") << QByteArray("[{\"title\": \"x\", \"mapping\": {")
                                   << QStringList{"line 1, column", "not valid JSON"};
        QTest::newRow("unknown version")
            << hearthFile({}, 3) << QStringList{"version 3", "reads versions 1 to 2"};
        QTest::newRow("other format") << QByteArray(R"({"format": "jan-thread", "version": 1})")
                                      << QStringList{"\"jan-thread\"", "not Hearth's"};
        QTest::newRow("neither") << QByteArray(R"({"threads": []})")
                                 << QStringList{"neither", "conversations.json"};
        QTest::newRow("empty array") << QByteArray("[]") << QStringList{"no conversation to import"};
        QTest::newRow("no conversations") << hearthFile({}) << QStringList{"no conversation to import"};
        QTest::newRow("empty file") << QByteArray("  \n") << QStringList{"empty"};
        QTest::newRow("unknown role")
            << hearthFile(
                   {hearthConversation("Roles", {hearthMessage("m", QJsonValue::Null, "wizard", "x")}, "m")})
            << QStringList{"conversation 1 (\"Roles\"), message 1", "\"wizard\""};
        QTest::newRow("cycle") << hearthFile({hearthConversation("Cycle",
                                                                 {hearthMessage("a", "b", "user", "x"),
                                                                  hearthMessage("b", "a", "assistant", "y")},
                                                                 "b")})
                               << QStringList{"conversation 1 (\"Cycle\")", "cycle"};
        QTest::newRow("missing parent")
            << hearthFile({hearthConversation("Orphan", {hearthMessage("a", "zz", "user", "x")}, "a")})
            << QStringList{"conversation 1 (\"Orphan\")", "\"zz\""};
        QJsonObject toolAsText = hearthMessage("r", QJsonValue::Null, "assistant", "x");
        toolAsText.insert("tool", "calls");
        QTest::newRow("tool not an object")
            << hearthFile({hearthConversation("Tools", {toolAsText}, "r")})
            << QStringList{"conversation 1 (\"Tools\"), message 1", "\"tool\""};
        QTest::newRow("chatgpt without current node")
            << QByteArray(R"([{"title": "T", "mapping": {"n": {"message": null, "parent": null}}}])")
            << QStringList{"conversation 1 (\"T\")", "current_node"};
    }

    void badFilesAreRefusedWithTheirPlace() {
        QFETCH(QByteArray, contents);
        QFETCH(QStringList, expected);
        const QString dir = tempDir();
        const QString file = dir + "/bad.json";
        writeFile(file, contents);
        SqlStore store(dir + "/db.sqlite");
        fill(store, sampleConversations().mid(0, 1));
        const QString error = importError(store, file);
        QVERIFY2(error.startsWith(file), qPrintable(error));
        for (const QString& part : expected)
            QVERIFY2(error.contains(part), qPrintable(error + " lacks " + part));
        QCOMPARE(store.conversations().size(), 1);
        QCOMPARE(count(dir + "/db.sqlite", "messages"), 4);
    }

    void tooBigIsRefusedBeforeItIsRead() {
        const QString dir = tempDir();
        const QString file = dir + "/huge.json";
        constexpr qint64 limit = 1'000'000;
        writeFile(file, "[" + QByteArray(limit, ' ') + "]");
        SqlStore store(dir + "/db.sqlite");
        const QString error = importError(store, file, limit);
        QVERIFY2(error.startsWith(file), qPrintable(error));
        QVERIFY2(error.contains("too big") && error.contains("at most 1 MB"), qPrintable(error));
        QCOMPARE(importError(store, dir + "/absent.json"), dir + "/absent.json: no such file");
        QCOMPARE(kMaxImportBytes, qint64(256'000'000));
    }

    void aBadThirdConversationLeavesTheDatabaseAsItWas_data() {
        QTest::addColumn<QByteArray>("contents");
        QTest::addColumn<QString>("expected");
        const QJsonArray good{hearthMessage("u", QJsonValue::Null, "user", "Hi"),
                              hearthMessage("a", "u", "assistant", "Hello")};
        QJsonArray bad = good;
        bad.append(QJsonObject{{"id", "x"}, {"parentId", "a"}, {"role", "user"}}); // no content
        QTest::newRow("hearth") << hearthFile({hearthConversation("One", good, "a"),
                                               hearthConversation("Two", good, "a"),
                                               hearthConversation("Three", bad, "x")})
                                << QStringLiteral("conversation 3 (\"Three\"), message 3: \"content\"");
        QJsonArray chatgpt =
            QJsonDocument::fromJson(readFile(HEARTH_TEST_DATA_DIR "/chatgpt_conversations.json")).array();
        QJsonObject third = chatgpt.at(2).toObject();
        third.insert("current_node", "nowhere");
        chatgpt.replace(2, third);
        QTest::newRow("chatgpt") << QJsonDocument(chatgpt).toJson()
                                 << QStringLiteral(
                                        "conversation 3 (\"Only a system prompt\"): \"current_node\"");
    }

    void aBadThirdConversationLeavesTheDatabaseAsItWas() {
        QFETCH(QByteArray, contents);
        QFETCH(QString, expected);
        const QString dir = tempDir();
        const QString database = dir + "/db.sqlite";
        SqlStore store(database);
        fill(store, sampleConversations());
        const QByteArray before = conversationsToJson(readAll(store));
        writeFile(dir + "/third.json", contents);
        const QString error = importError(store, dir + "/third.json");
        QVERIFY2(error.contains(expected), qPrintable(error));
        // The first two were inserted before the third was read: all rolled back.
        QCOMPARE(count(database, "conversations"), 2);
        QCOMPARE(count(database, "messages"), 6);
        QByteArray after = conversationsToJson(readAll(store));
        const auto withoutExportTime = [](QByteArray json) {
            QJsonObject root = QJsonDocument::fromJson(json).object();
            root.remove("exportedAt");
            return QJsonDocument(root).toJson();
        };
        QCOMPARE(withoutExportTime(after), withoutExportTime(before));
        // The database takes writes after the rollback.
        QCOMPARE(
            importConversations(store, QStringLiteral(HEARTH_TEST_DATA_DIR "/chatgpt_conversations.json"))
                .conversations,
            2);
        QCOMPARE(count(database, "conversations"), 4);
    }

    void anOlderDatabaseGainsTheModelColumn() {
        const QString dir = tempDir();
        const QString path = dir + "/old.sqlite";
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("old"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery query(db);
            QVERIFY(query.exec("CREATE TABLE conversations(id TEXT PRIMARY KEY, title TEXT NOT NULL,"
                               " created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)"));
            QVERIFY(query.exec("CREATE TABLE messages(id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL"
                               " REFERENCES conversations(id) ON DELETE CASCADE, position INTEGER NOT NULL,"
                               " role TEXT NOT NULL, content TEXT NOT NULL, state TEXT NOT NULL,"
                               " created_at INTEGER NOT NULL)"));
            QVERIFY(query.exec("INSERT INTO conversations VALUES('c', 'Old', 1, 2)"));
            QVERIFY(
                query.exec("INSERT INTO messages VALUES('m', 'c', 0, 'assistant', 'Kept', 'complete', 2)"));
        }
        QSqlDatabase::removeDatabase(QStringLiteral("old"));
        {
            SqlStore readOnly(path,
                              SqlStore::Access::ReadOnly); // as a damaged file is read: no column, no change
            QCOMPARE(readOnly.storedMessages("c").size(), 1);
            // A chain's parent and choice too, and no function calls.
            QCOMPARE(readOnly.storedMessages("c").at(0).size(), 11);
            QCOMPARE(readOnly.messages("c").at(0).toolData, QString());
            QCOMPARE(readOnly.messages("c").at(0).model, QString());
        }
        SqlStore store(path);
        QCOMPARE(store.messages("c").size(), 1);
        QCOMPARE(store.messages("c").at(0).content, QStringLiteral("Kept"));
        QCOMPARE(store.messages("c").at(0).model, QString());
        store.saveMessage(
            message("c", 1, Role::Assistant, "New", QDateTime::currentDateTime(), "some-model"));
        QCOMPARE(store.messages("c").at(1).model, QStringLiteral("some-model"));
    }

    void exportNamesAreUniqueAndSafe() {
        const QString dir = tempDir();
        QCOMPARE(ConversationFiles::uniquePath(dir, "a/b: c?", "md"), dir + "/a b c.md");
        writeFile(dir + "/Chat.md", "x");
        QCOMPARE(ConversationFiles::uniquePath(dir, "Chat", "md"), dir + "/Chat (2).md");
        writeFile(dir + "/Chat (2).md", "x");
        QCOMPARE(ConversationFiles::uniquePath(dir, "Chat", "md"), dir + "/Chat (3).md");
        QCOMPARE(ConversationFiles::uniquePath(dir, "..", "pdf"), dir + "/Conversation.pdf");
    }

    void theAppExportsAndImportsThroughTheStore() {
        const QString dir = tempDir();
        auto store = std::make_unique<ConversationStore>(dir + "/db.sqlite");
        const QList<ConversationBundle> original = sampleConversations();
        for (const ConversationBundle& b : original) {
            store->saveConversation(b.conversation);
            for (const MessageRecord& m : b.messages)
                store->saveMessage(m);
        }
        ConversationFiles files(nullptr, store.get());
        files.setExportFolder(dir + "/exports");
        QSignalSpy finished(&files, &ConversationFiles::finished);
        QSignalSpy imported(&files, &ConversationFiles::imported);
        int expected = 0;

        files.exportConversation(original.at(1).conversation.id, "markdown");
        ++expected; // it may finish before the call returns: counted, not waited for
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), expected, 10000);
        QVERIFY2(!files.failed(), qPrintable(files.status()));
        QCOMPARE(files.lastFile(), dir + "/exports/Haiku.md");
        QVERIFY(files.status().contains(dir + "/exports/Haiku.md"));
        QVERIFY(readFile(files.lastFile()).startsWith("# Haiku\n"));

        QStringList written;
        for (const QString format : {"json", "pdf", "json"}) {
            files.exportAll(format);
            ++expected;
            QTRY_COMPARE_WITH_TIMEOUT(finished.size(), expected, 10000);
            QVERIFY2(!files.failed(), qPrintable(files.status()));
            written.append(files.lastFile());
        }
        QVERIFY(readFile(written.at(1)).startsWith("%PDF-"));
        // The same export again goes to a new name: nothing is written over.
        QVERIFY(written.at(2) != written.at(0));
        QVERIFY(written.at(2).endsWith(" (2).json") || !written.at(2).startsWith(written.at(0).chopped(5)));
        QCOMPARE(readFile(written.at(0)).size() > 0 && readFile(written.at(2)).size() > 0, true);

        files.importFile(QUrl::fromLocalFile(files.lastFile()));
        ++expected;
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), expected, 10000);
        QVERIFY2(!files.failed(), qPrintable(files.status()));
        QCOMPARE(imported.size(), 1);
        QCOMPARE(imported.at(0).at(0).toInt(), 2);
        QVERIFY2(files.status().startsWith("Imported 2 conversation"), qPrintable(files.status()));

        writeFile(dir + "/bad.json", "[");
        files.importFile(QUrl::fromLocalFile(dir + "/bad.json"));
        ++expected;
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), expected, 10000);
        QVERIFY(files.failed());
        QVERIFY2(files.status().contains(dir + "/bad.json: line 1, column 2"), qPrintable(files.status()));
        QCOMPARE(imported.size(), 1);

        files.exportAll("docx");
        QVERIFY(files.failed());
        store.reset();
        QCOMPARE(count(dir + "/db.sqlite", "conversations"), 4);
    }
};

QTEST_MAIN(TestConversationTransfer)
#include "test_conversation_transfer.moc"
