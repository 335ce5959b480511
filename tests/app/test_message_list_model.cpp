// The chat's message list: streaming growth, states, truncation for regenerate/edit, Markdown blocks.
#include "app/chat/markdown_block_model.h"
#include "app/chat/markdown_blocks.h"
#include "app/chat/message_list_model.h"
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>

using namespace hearth::app;

class TestMessageListModel : public QObject {
    Q_OBJECT

    static MessageRecord message(const QString& id, hearth::chat::Role role, const QString& content,
                                 int position) {
        MessageRecord m;
        m.id = id;
        m.conversationId = "conv";
        m.role = role;
        m.content = content;
        m.position = position;
        m.createdAt = QDateTime::currentDateTime();
        return m;
    }

    // Each message the child of the one before it: a conversation without branches.
    static QList<MessageRecord> chained(QList<MessageRecord> messages) {
        for (qsizetype i = 1; i < messages.size(); ++i)
            messages[i].parentId = messages.at(i - 1).id;
        return messages;
    }

private slots:
    void streamingReplyGrowsInPlace() {
        MessageListModel model("conv");
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.append(message("u1", hearth::chat::Role::User, "Hi", 0));
        MessageRecord reply = message("a1", hearth::chat::Role::Assistant, "", 1);
        reply.state = MessageState::Streaming;
        model.append(reply);
        QCOMPARE(model.count(), 2);
        QCOMPARE(model.index(1).data(MessageListModel::StreamingRole).toBool(), true);

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QVERIFY(model.appendText("a1", "Hello"));
        QVERIFY(model.appendText("a1", ", world"));
        QCOMPARE(changed.count(), 2);
        const auto roles = changed.last().at(2).value<QList<int>>();
        QVERIFY(roles.contains(MessageListModel::ContentRole));
        QVERIFY(roles.contains(MessageListModel::ContentRole));
        QCOMPARE(model.index(1).data(MessageListModel::ContentRole).toString(),
                 QStringLiteral("Hello, world"));
        QVERIFY(!model.appendText("missing", "x"));

        QVERIFY(model.setState("a1", MessageState::Stopped));
        QCOMPARE(model.index(1).data(MessageListModel::StateRole).toString(), QStringLiteral("stopped"));
        QCOMPARE(model.index(1).data(MessageListModel::StreamingRole).toBool(), false);
        QVERIFY(model.setStats("a1", "2 tokens"));
        QCOMPARE(model.index(1).data(MessageListModel::StatsRole).toString(), QStringLiteral("2 tokens"));
    }

    // The window's delegate reads the settled content, which the pieces of a streaming reply do
    // not change (only the first says there is content): it is set once, as streaming ends, and
    // before the end is signalled, so that what acts on the end reads the whole reply.
    void theSettledContentChangesOnceAReplyEnds() {
        MessageListModel model("conv");
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        MessageRecord reply = message("a1", hearth::chat::Role::Assistant, "", 0);
        reply.state = MessageState::Streaming;
        model.append(reply);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        const auto rolesAt = [&](qsizetype i) { return changed.at(i).at(2).value<QList<int>>(); };
        QVERIFY(model.appendText("a1", "Hello"));
        QVERIFY(model.appendText("a1", ", world"));
        QCOMPARE(changed.count(), 2);
        QVERIFY(rolesAt(0).contains(MessageListModel::HasContentRole));
        QVERIFY(!rolesAt(1).contains(MessageListModel::HasContentRole));
        for (qsizetype i = 0; i < 2; ++i)
            QVERIFY(!rolesAt(i).contains(MessageListModel::SettledContentRole));
        QCOMPARE(model.index(0).data(MessageListModel::SettledContentRole).toString(), QString());
        QCOMPARE(model.index(0).data(MessageListModel::HasContentRole).toBool(), true);

        QVERIFY(model.setState("a1", MessageState::Complete));
        QCOMPARE(changed.count(), 4);
        QCOMPARE(rolesAt(2), QList<int>{MessageListModel::SettledContentRole});
        QVERIFY(rolesAt(3).contains(MessageListModel::StreamingRole));
        QCOMPARE(model.index(0).data(MessageListModel::SettledContentRole).toString(),
                 QStringLiteral("Hello, world"));
        // A finished message's text changes its settled content at once (an edit, a tool's result).
        QVERIFY(model.appendText("a1", "!"));
        QVERIFY(rolesAt(4).contains(MessageListModel::SettledContentRole));
        QCOMPARE(model.index(0).data(MessageListModel::SettledContentRole).toString(),
                 QStringLiteral("Hello, world!"));
    }

    // While a reply streams, its last prose block grows: the block's text changes at each piece,
    // its settled text (what the window's delegate holds) stays empty until the block is final,
    // because another block follows it or the reply ends.
    void theGrowingBlockSettlesOnce() {
        MarkdownBlockModel blocks;
        QAbstractItemModelTester tester(&blocks, QAbstractItemModelTester::FailureReportingMode::QtTest);
        blocks.setStreaming(true);
        QSignalSpy changed(&blocks, &QAbstractItemModel::dataChanged);
        const auto settled = [&](int row) {
            return blocks.index(row).data(MarkdownBlockModel::SettledTextRole).toString();
        };
        const auto text = [&](int row) {
            return blocks.index(row).data(MarkdownBlockModel::BlockTextRole).toString();
        };
        blocks.extendMarkdown(QStringLiteral("Once"));
        blocks.extendMarkdown(QStringLiteral("Once upon"));
        QCOMPARE(blocks.count(), 1);
        QCOMPARE(text(0), QStringLiteral("Once upon"));
        QCOMPARE(settled(0), QString());
        QVERIFY(blocks.isGrowing(0));
        QCOMPARE(changed.count(), 1);
        QVERIFY(!changed.at(0).at(2).value<QList<int>>().contains(MarkdownBlockModel::SettledTextRole));
        QVERIFY(changed.at(0).at(2).value<QList<int>>().contains(MarkdownBlockModel::BlockTextRole));

        // The next paragraph starts: the first is final, its text as it was.
        changed.clear();
        blocks.extendMarkdown(QStringLiteral("Once upon\n\nA time"));
        QCOMPARE(blocks.count(), 2);
        QCOMPARE(settled(0), QStringLiteral("Once upon"));
        QCOMPARE(settled(1), QString());
        QVERIFY(std::any_of(changed.cbegin(), changed.cend(), [](const QList<QVariant>& args) {
            return args.at(0).value<QModelIndex>().row() == 0 &&
                   args.at(2).value<QList<int>>().contains(MarkdownBlockModel::SettledTextRole);
        }));

        // A code block streams as it comes: only prose is held back.
        blocks.extendMarkdown(QStringLiteral("Once upon\n\nA time\n\n```cpp\nint x"));
        QCOMPARE(blocks.count(), 3);
        QCOMPARE(settled(1), QStringLiteral("A time"));
        QCOMPARE(settled(2), QStringLiteral("int x"));

        // The reply ends: the last prose block is final.
        blocks.extendMarkdown(QStringLiteral("Once upon\n\nA time\n\n```cpp\nint x;\n```\n\nThe end"));
        QCOMPARE(settled(3), QString());
        changed.clear();
        blocks.setStreaming(false);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).value<QModelIndex>().row(), 3);
        QCOMPARE(settled(3), QStringLiteral("The end"));
        QVERIFY(!blocks.isGrowing(3));
    }

    void removeFromTruncates() {
        MessageListModel model("conv");
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setMessages(chained({message("u1", hearth::chat::Role::User, "a", 0),
                                   message("a1", hearth::chat::Role::Assistant, "b", 1),
                                   message("u2", hearth::chat::Role::User, "c", 2),
                                   message("a2", hearth::chat::Role::Assistant, "d", 3)}));
        const QList<MessageRecord> removed = model.removeFrom(2);
        QCOMPARE(removed.size(), 2);
        QCOMPARE(removed[0].id, QStringLiteral("u2"));
        QCOMPARE(model.count(), 2);
        QVERIFY(model.removeFrom(5).isEmpty());
        QVERIFY(model.setContent("u1", "edited"));
        QCOMPARE(model.find("u1")->content, QStringLiteral("edited"));
    }

    void contextShiftMarksTheMessagesOutOfView() {
        MessageListModel model("conv");
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setMessages(chained({message("u1", hearth::chat::Role::User, "a", 0),
                                   message("a1", hearth::chat::Role::Assistant, "b", 1),
                                   message("u2", hearth::chat::Role::User, "c", 2),
                                   message("a2", hearth::chat::Role::Assistant, "d", 3)}));
        const auto flags = [&](int role) {
            QList<bool> out;
            for (int row = 0; row < model.count(); ++row)
                out << model.index(row).data(role).toBool();
            return out;
        };
        QCOMPARE(model.firstInViewRow(), 0);
        QCOMPARE(flags(MessageListModel::OutOfViewRole), QList<bool>({false, false, false, false}));
        QCOMPARE(flags(MessageListModel::ContextBoundaryRole), QList<bool>({false, false, false, false}));

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setFirstInView("u2");
        QCOMPARE(changed.count(), 1);
        QVERIFY(
            changed.constFirst().at(2).value<QList<int>>().contains(MessageListModel::ContextBoundaryRole));
        QCOMPARE(model.firstInViewRow(), 2);
        QCOMPARE(flags(MessageListModel::OutOfViewRole), QList<bool>({true, true, false, false}));
        QCOMPARE(flags(MessageListModel::ContextBoundaryRole), QList<bool>({false, false, true, false}));

        model.setFirstInView("u2"); // unchanged: no signal
        QCOMPARE(changed.count(), 1);
        model.removeFrom(2); // the boundary's message is gone (edit and resend)
        QCOMPARE(model.firstInViewRow(), 0);
        model.setFirstInView(QString());
        QCOMPARE(flags(MessageListModel::OutOfViewRole), QList<bool>({false, false}));
    }

    void repliesStreamIntoAStableBlockModel() {
        MessageListModel model("conv");
        model.append(message("u1", hearth::chat::Role::User, "Hi", 0));
        MessageRecord reply = message("a1", hearth::chat::Role::Assistant, "", 1);
        reply.state = MessageState::Streaming;
        model.append(reply);
        QVERIFY(model.index(0).data(MessageListModel::BlocksRole).value<QObject*>() == nullptr); // user
        auto* blocks = qobject_cast<MarkdownBlockModel*>(
            model.index(1).data(MessageListModel::BlocksRole).value<QObject*>());
        QVERIFY(blocks);
        QAbstractItemModelTester tester(blocks, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy changed(blocks, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(blocks, &QAbstractItemModel::rowsInserted);
        model.appendText("a1", "First paragraph.");
        model.appendText("a1", " Still first.\n\nSecond");
        QCOMPARE(blocks->count(), 2);
        QCOMPARE(blocks->finishedCount(), 1);
        changed.clear();
        inserted.clear();
        // Growing the last block signals that block alone; the first is never touched again.
        model.appendText("a1", " paragraph grows");
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.constFirst().at(0).value<QModelIndex>().row(), 1);
        QCOMPARE(blocks->index(1).data(MarkdownBlockModel::BlockTextRole).toString(),
                 QStringLiteral("Second paragraph grows"));
        model.appendText("a1", "\n```cpp\nint x;");
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(blocks->index(2).data(MarkdownBlockModel::KindRole).toString(), QStringLiteral("code"));
        QCOMPARE(blocks->index(2).data(MarkdownBlockModel::ClosedRole).toBool(), false);
        changed.clear();
        model.appendText("a1", "\n```\nDone.");
        for (const auto& args : changed)
            QVERIFY(args.at(0).value<QModelIndex>().row() >= 2);
        QCOMPARE(blocks->index(2).data(MarkdownBlockModel::ClosedRole).toBool(), true);
        QCOMPARE(blocks->blocks(), splitMarkdownBlocks(model.find("a1")->content));
        // The reply's text is held once, in the record: the block model keeps no reference to
        // it (one made each appended piece copy the whole reply).
        QVERIFY(model.find("a1")->content.isDetached());
        // Replacing the text (not a continuation) still ends with the right blocks.
        model.setContent("a1", "Other");
        QCOMPARE(blocks->count(), 1);
        QCOMPARE(blocks->index(0).data(MarkdownBlockModel::BlockTextRole).toString(),
                 QStringLiteral("Other"));
    }

    // Versions: a regenerated reply is a sibling; switching replaces the rows from the branch point
    // down, the row switched in place (its delegate stays, with the focus on its buttons) and the
    // rows below removed and inserted, never a reset.
    void switchingVersionsShowsEachBranch() {
        using hearth::chat::Role;
        MessageListModel model("conv");
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setMessages(
            chained({message("u1", Role::User, "q", 0), message("a1", Role::Assistant, "A", 1),
                     message("u2", Role::User, "more", 2), message("a2", Role::Assistant, "B", 3)}));
        QCOMPARE(model.index(1).data(MessageListModel::VersionCountRole).toInt(), 1);
        model.removeFrom(1); // as regenerate does: out of view, kept in the tree
        MessageRecord again = message("a1b", Role::Assistant, "A again", 4);
        again.parentId = "u1";
        model.append(again);
        QCOMPARE(model.count(), 2);
        QCOMPARE(model.index(1).data(MessageListModel::VersionRole).toInt(), 2);
        QCOMPARE(model.index(1).data(MessageListModel::VersionCountRole).toInt(), 2);
        QCOMPARE(model.tree().size(), 5);

        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QCOMPARE(model.switchVersion("a1b", -1), QStringLiteral("a1"));
        QStringList ids;
        for (const MessageRecord& m : model.messages())
            ids << m.id;
        QCOMPARE(ids, (QStringList{"u1", "a1", "u2", "a2"}));
        QCOMPARE(model.index(1).data(MessageListModel::IdRole).toString(), QStringLiteral("a1"));
        QCOMPARE(model.index(1).data(MessageListModel::VersionRole).toInt(), 1);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).value<QModelIndex>().row(), 1);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(model.switchVersion("a1", -1), QString()); // none before the first
        QCOMPARE(model.switchVersion("nope", 1), QString());
        QCOMPARE(model.switchVersion("a1", 1), QStringLiteral("a1b"));
        QCOMPARE(model.count(), 2);
        QCOMPARE(model.index(1).data(MessageListModel::ContentRole).toString(), QStringLiteral("A again"));
        // The choices as the tree holds them: a1b chosen, a1 not.
        for (const MessageRecord& m : model.tree())
            QCOMPARE(m.active, m.id != QLatin1String("a1"));
    }

    void rolesAreNamedForQml() {
        MessageListModel model("conv");
        const auto names = model.roleNames().values();
        for (const char* name : {"messageId", "author", "content", "messageState", "streaming", "stats",
                                 "blocks", "outOfView", "contextBoundary", "version", "versionCount"})
            QVERIFY2(names.contains(name), name);
        // The author as MessageDelegate.qml compares it: the role's name.
        model.setMessages(chained({message("u1", hearth::chat::Role::User, "a", 0),
                                   message("a1", hearth::chat::Role::Assistant, "b", 1)}));
        QCOMPARE(model.index(0).data(MessageListModel::AuthorRole).toString(), QStringLiteral("user"));
        QCOMPARE(model.index(1).data(MessageListModel::AuthorRole).toString(), QStringLiteral("assistant"));
    }

    void longProseIsCutAtSentencesAndStaysCut() {
        QString text;
        for (int i = 0; i < 60; ++i)
            text += QStringLiteral("Sentence number %1 is here. ").arg(i);
        const QList<MarkdownBlock> blocks = splitMarkdownBlocks(text);
        QVERIFY(blocks.size() >= 2);
        QString joined;
        for (const MarkdownBlock& b : blocks) {
            QVERIFY(b.text.size() <= 1000);
            QVERIFY2(b.text.endsWith(QLatin1Char('.')), qPrintable(b.text.right(20)));
            joined += b.text + QLatin1Char(' ');
        }
        QCOMPARE(joined.simplified(), text.simplified()); // nothing lost
        // Growing the text keeps the earlier cuts where they were.
        const QList<MarkdownBlock> grown = splitMarkdownBlocks(text + QStringLiteral("And more words"));
        QCOMPARE(grown.first().text, blocks.first().text);
    }

    void markdownBlocks_data() {
        QTest::addColumn<QString>("markdown");
        QTest::addColumn<QStringList>("kinds");
        QTest::addColumn<QString>("firstCode");
        QTest::addColumn<QString>("language");
        QTest::addColumn<bool>("closed");
        QTest::newRow("prose only") << "Hello **there**" << QStringList{"text"} << ""
                                    << "" << true;
        QTest::newRow("code between prose")
            << "Look:\n```cpp\nint x = 1;\n```\nDone." << QStringList{"text", "code", "text"} << "int x = 1;"
            << "cpp" << true;
        QTest::newRow("unclosed while streaming")
            << "Here:\n```python\nprint(1)\nprint(2)" << QStringList{"text", "code"} << "print(1)\nprint(2)"
            << "python" << false;
        QTest::newRow("tilde fence, no language") << "~~~\nraw\n~~~" << QStringList{"code"} << "raw"
                                                  << "" << true;
        QTest::newRow("longer closing fence")
            << "````\na\n```\nb\n`````" << QStringList{"code"} << "a\n```\nb"
            << "" << true;
        QTest::newRow("empty") << "" << QStringList{} << ""
                               << "" << true;
        QTest::newRow("paragraphs") << "One\ntwo\n\n\nThree" << QStringList{"text", "text"} << ""
                                    << "" << true;
        QTest::newRow("blank lines inside code stay") << "```\na\n\nb\n```" << QStringList{"code"} << "a\n\nb"
                                                      << "" << true;
    }
    void markdownBlocks() {
        QFETCH(QString, markdown);
        QFETCH(QStringList, kinds);
        QFETCH(QString, firstCode);
        QFETCH(QString, language);
        QFETCH(bool, closed);
        const QList<MarkdownBlock> blocks = splitMarkdownBlocks(markdown);
        QStringList got;
        const MarkdownBlock* code = nullptr;
        for (const MarkdownBlock& b : blocks) {
            got << (b.kind == MarkdownBlock::Kind::Code ? "code" : "text");
            if (!code && b.kind == MarkdownBlock::Kind::Code) code = &b;
        }
        QCOMPARE(got, kinds);
        if (code) {
            QCOMPARE(code->text, firstCode);
            QCOMPARE(code->language, language);
            QCOMPARE(code->closed, closed);
        }
        // Streamed in pieces, the incremental model ends with the same blocks.
        MarkdownBlockModel streamed;
        for (qsizetype at = 0; at < markdown.size(); at += 3)
            streamed.extendMarkdown(markdown.left(at + 3));
        QCOMPARE(streamed.blocks(), blocks);
    }
};

QTEST_MAIN(TestMessageListModel)
#include "test_message_list_model.moc"
