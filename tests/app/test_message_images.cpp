// The images messages show, in the conversation database: saved with their message and read back
// with it, in order, after a restart (the store reopened, directly and through the async store);
// each picture stored once however many messages show it; a message saved again (as a streaming
// reply is) keeps exactly its links; deleting a message or a conversation deletes its links and
// every picture nothing shows any more; a picture whose SHA-256 is not that of its bytes is
// refused with nothing of its message written; a database of the schema before images gains the
// tables and keeps every row; a damaged database's copy carries the intact pictures.
#include "app/storage/conversation_store.h"
#include "app/storage/damaged_database.h"
#include "app/storage/message_image_store.h"
#include "app/storage/sql_store.h"
#include "tests/app/message_image_records.h"
#include "tests/app/raw_sql.h"
#include "tests/support/test_support.h"
#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTest>
#include <qcoro/qcorotask.h>

using namespace hearth::app;
using hearth::chat::Role;
using hearth::test::message;
using hearth::test::picture;
using hearth::test::rawSql;
using hearth::test::rowCount;

namespace {

// A PNG of `width` x `height` in one colour with a diagonal line: different colours, different bytes.
QByteArray pngBytes(int width, int height, QColor colour) {
    QImage image(width, height, QImage::Format_RGB32);
    image.fill(colour);
    {
        QPainter painter(&image);
        painter.setPen(Qt::black);
        painter.drawLine(0, 0, width - 1, height - 1);
    }
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes;
}

ConversationRecord conversation(const QString& title) {
    const QDateTime now = QDateTime::fromMSecsSinceEpoch(1714564800000);
    return {newRecordId(), title, now, now};
}

// Each image as "name sha256 size": what a comparison failure shows readably.
QStringList describe(const QList<MessageImage>& images) {
    QStringList lines;
    for (const MessageImage& image : images)
        lines << QStringLiteral("%1 %2 %3").arg(image.name, image.sha256).arg(image.bytes.size());
    return lines;
}

void compareImages(const QList<MessageImage>& actual, const QList<MessageImage>& expected) {
    QCOMPARE(describe(actual), describe(expected));
    for (qsizetype i = 0; i < expected.size(); ++i)
        QVERIFY2(actual.at(i).bytes == expected.at(i).bytes, qPrintable(expected.at(i).name));
}

// The schema as the release before images wrote it (SqlStore::createSchema and
// PresetStore::createTables then), with a row in each table.
const QStringList kSchemaBeforeImages{
    "PRAGMA journal_mode=WAL",
    "CREATE TABLE conversations( id TEXT PRIMARY KEY, title TEXT NOT NULL,"
    " created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)",
    "CREATE TABLE messages( id TEXT PRIMARY KEY,"
    " conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,"
    " position INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL,"
    " state TEXT NOT NULL, created_at INTEGER NOT NULL,"
    " model TEXT NOT NULL DEFAULT '', parent_id TEXT, active INTEGER NOT NULL DEFAULT 1,"
    " tool_data TEXT NOT NULL DEFAULT '')",
    "CREATE INDEX messages_by_conversation ON messages(conversation_id, position)",
    "CREATE INDEX messages_by_parent ON messages(conversation_id, parent_id)",
    "CREATE TABLE model_presets( path TEXT PRIMARY KEY, file_size INTEGER NOT NULL,"
    " system_prompt TEXT, temperature REAL, top_k INTEGER, top_p REAL, min_p REAL,"
    " repeat_penalty REAL, max_reply_tokens INTEGER, context_length INTEGER, chat_template TEXT)",
    "CREATE TABLE prompt_presets( id TEXT PRIMARY KEY, name TEXT NOT NULL, prompt TEXT NOT NULL,"
    " built_in INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE conversation_presets("
    " conversation_id TEXT PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,"
    " preset_id TEXT NOT NULL REFERENCES prompt_presets(id) ON DELETE CASCADE)",
    "CREATE TABLE preset_meta(key TEXT PRIMARY KEY, value TEXT)",
    "INSERT INTO conversations VALUES('c', 'Before images ✨', 1000, 3000)",
    "INSERT INTO conversations VALUES('d', 'Another', 4000, 4000)",
    "INSERT INTO messages VALUES('m0', 'c', 0, 'user', 'Hi', 'complete', 1000, '', NULL, 1, '')",
    "INSERT INTO messages VALUES('m1', 'c', 1, 'assistant', 'Hello', 'complete', 2000, 'm', 'm0', 0, '')",
    "INSERT INTO messages VALUES('m2', 'c', 2, 'assistant', 'Hey', 'stopped', 3000, 'm', 'm0', 1,"
    " '{\"calls\":[]}')",
    "INSERT INTO messages VALUES('m3', 'c', 3, 'critic', 'Kept as it is', 'complete', 3100, '', 'm2', 1, '')",
    "INSERT INTO messages VALUES('d0', 'd', 0, 'user', 'Alone', 'complete', 4000, '', NULL, 1, '')",
    "INSERT INTO model_presets(path, file_size, temperature) VALUES('/m.gguf', 42, 0.5)",
    "INSERT INTO prompt_presets VALUES('p', 'Pirate', 'Talk like a pirate', 0)",
    "INSERT INTO conversation_presets VALUES('c', 'p')",
    "INSERT INTO preset_meta VALUES('built_ins_written', '1')"};
const QStringList kTablesBeforeImages{"conversations",        "messages",   "model_presets", "prompt_presets",
                                      "conversation_presets", "preset_meta"};

// Every row of every table the schema before images had, in rowid order.
QList<QVariantList> everyRow(const QString& path) {
    QList<QVariantList> rows;
    for (const QString& table : kTablesBeforeImages) {
        const auto tableRows = rawSql(path, {"SELECT * FROM " + table + " ORDER BY rowid"});
        if (!tableRows) return {};
        rows.append(QVariantList{table});
        rows.append(*tableRows);
    }
    return rows;
}

} // namespace

class TestMessageImages : public QObject {
    Q_OBJECT

    QString dir_;
    const QByteArray red_ = pngBytes(40, 30, Qt::red);
    const QByteArray green_ = pngBytes(30, 40, Qt::green);
    const QByteArray blue_ = pngBytes(17, 9, Qt::blue);

private slots:
    void init() { dir_ = QString::fromStdString(hearth::test::make_temp_dir("hearth-images")); }

    void imagesComeBackWithTheirMessageInOrderAfterARestart() {
        const QString path = dir_ + "/conversations.sqlite";
        const ConversationRecord c = conversation("Pictures");
        // The same picture twice in one message: one stored picture, two links.
        const QList<MessageImage> images{picture("green.png", green_), picture("red.png", red_),
                                         picture("pasted image", green_)};
        const MessageRecord question = message(c.id, 0, Role::User, "What differs?", images);
        const MessageRecord reply = message(c.id, 1, Role::Assistant, "The colour.", {}, question.id);
        {
            SqlStore store(path);
            store.saveConversation(c);
            store.saveMessage(question);
            store.saveMessage(reply);
        }
        SqlStore reopened(path);
        const QList<MessageRecord> messages = reopened.messages(c.id);
        QCOMPARE(messages.size(), 2);
        compareImages(messages.at(0).images, images);
        QVERIFY(messages.at(1).images.isEmpty());
        QCOMPARE(rowCount(path, "images"), 2);
        QCOMPARE(rowCount(path, "message_images"), 3);
        QCOMPARE(reopened.integrityCheck(), QStringLiteral("ok"));
    }

    void theAsyncStoreSavesAndLoadsImages() {
        const QString path = dir_ + "/data/conversations.sqlite";
        const ConversationRecord c = conversation("Async");
        const QList<MessageImage> images{picture("blue.png", blue_), picture("red.png", red_)};
        const MessageRecord question = message(c.id, 0, Role::User, "Two pictures", images);
        {
            ConversationStore store(path);
            QSignalSpy failed(&store, &ConversationStore::failed);
            store.saveConversation(c);
            store.saveMessage(question);
            const QList<MessageRecord> read = QCoro::waitFor(store.loadMessages(c.id));
            QCOMPARE(read.size(), 1);
            compareImages(read.at(0).images, images);
            QCOMPARE(failed.count(), 0);
        }
        ConversationStore again(path);
        const QList<MessageRecord> read = QCoro::waitFor(again.loadMessages(c.id));
        QCOMPARE(read.size(), 1);
        compareImages(read.at(0).images, images);
        // What an export reads carries them too.
        const QList<ConversationBundle> bundles = QCoro::waitFor(again.loadBundles({}));
        QCOMPARE(bundles.size(), 1);
        compareImages(bundles.at(0).messages.at(0).images, images);
    }

    void eachPictureIsStoredOnce() {
        const QString path = dir_ + "/once.sqlite";
        const ConversationRecord first = conversation("First");
        const ConversationRecord second = conversation("Second");
        SqlStore store(path);
        store.saveConversation(first);
        store.saveConversation(second);
        // One picture under three names, in three messages of two conversations.
        const MessageRecord a = message(first.id, 0, Role::User, "a", {picture("one.png", red_)});
        const MessageRecord b = message(first.id, 1, Role::User, "b", {picture("again.png", red_)}, a.id);
        const MessageRecord c = message(second.id, 0, Role::User, "c", {picture("other.png", red_)});
        for (const MessageRecord& m : {a, b, c})
            store.saveMessage(m);
        QCOMPARE(rowCount(path, "images"), 1);
        QCOMPARE(rowCount(path, "message_images"), 3);
        const QList<MessageRecord> read = store.messages(first.id);
        QCOMPARE(read.at(1).images.at(0).name, QStringLiteral("again.png"));
        // Read once and shared by the messages that show it, not a copy each.
        QCOMPARE(read.at(0).images.at(0).bytes, red_);
        QCOMPARE(read.at(0).images.at(0).bytes.constData(), read.at(1).images.at(0).bytes.constData());
        QCOMPARE(store.messages(second.id).at(0).images.at(0).bytes, red_);
    }

    void savingAMessageAgainKeepsItsLinks() {
        const QString path = dir_ + "/again.sqlite";
        const ConversationRecord c = conversation("Again");
        SqlStore store(path);
        store.saveConversation(c);
        MessageRecord m =
            message(c.id, 0, Role::User, "Look", {picture("red.png", red_), picture("b", blue_)});
        store.saveMessage(m);
        // Saved again and again, as the chat saves a message while it changes.
        for (int i = 0; i < 3; ++i) {
            m.content += QStringLiteral(" again");
            store.saveMessage(m);
        }
        // An update without images (or other ones) leaves the stored ones: they are written once.
        MessageRecord withoutImages = m;
        withoutImages.images.clear();
        store.saveMessage(withoutImages);
        MessageRecord otherImages = m;
        otherImages.images = {picture("green.png", green_)};
        store.saveMessage(otherImages);
        QCOMPARE(rowCount(path, "message_images"), 2);
        QCOMPARE(rowCount(path, "images"), 2);
        const QList<MessageRecord> read = store.messages(c.id);
        QCOMPARE(read.size(), 1);
        QCOMPARE(read.at(0).content, QStringLiteral("Look again again again"));
        compareImages(read.at(0).images, m.images);
    }

    void deletingRemovesLinksAndPicturesNothingShows() {
        const QString path = dir_ + "/delete.sqlite";
        const ConversationRecord first = conversation("First");
        const ConversationRecord second = conversation("Second");
        SqlStore store(path);
        store.saveConversation(first);
        store.saveConversation(second);
        const MessageRecord shared =
            message(first.id, 0, Role::User, "two", {picture("red.png", red_), picture("green.png", green_)});
        const MessageRecord blue =
            message(first.id, 1, Role::User, "blue", {picture("blue.png", blue_)}, shared.id);
        const MessageRecord alsoRed = message(second.id, 0, Role::User, "red", {picture("red.png", red_)});
        for (const MessageRecord& m : {shared, blue, alsoRed})
            store.saveMessage(m);
        QCOMPARE(rowCount(path, "images"), 3);

        store.deleteMessage(shared.id); // green goes; red stays, the other conversation shows it
        QCOMPARE(rowCount(path, "message_images"), 2);
        const auto left = rawSql(path, {"SELECT sha256 FROM images ORDER BY sha256"});
        QVERIFY(left);
        QStringList hashes;
        for (const QVariantList& row : *left)
            hashes << row.at(0).toString();
        QStringList expected{imageSha256(red_), imageSha256(blue_)};
        expected.sort();
        QCOMPARE(hashes, expected);

        store.deleteConversation(first.id); // its messages' links by cascade: blue goes
        QCOMPARE(rowCount(path, "message_images"), 1);
        QCOMPARE(rowCount(path, "images"), 1);
        store.deleteConversation(second.id);
        QCOMPARE(rowCount(path, "message_images"), 0);
        QCOMPARE(rowCount(path, "images"), 0);
        QCOMPARE(store.integrityCheck(), QStringLiteral("ok"));
    }

    void aPictureThatIsNotItsHashIsRefused_data() {
        QTest::addColumn<QString>("sha256");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("problem");
        QTest::newRow("another picture's hash") << imageSha256(green_) << red_ << "is not that of its bytes";
        QTest::newRow("not a hash") << "cat" << red_ << "is not that of its bytes";
        QTest::newRow("no bytes") << imageSha256(QByteArray()) << QByteArray() << "no bytes";
    }

    void aPictureThatIsNotItsHashIsRefused() {
        QFETCH(QString, sha256);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, problem);
        const QString path = dir_ + "/refused.sqlite";
        const ConversationRecord c = conversation("Refused");
        SqlStore store(path);
        store.saveConversation(c);
        const MessageRecord m = message(c.id, 0, Role::User, "bad",
                                        {picture("fine.png", blue_), MessageImage{sha256, "bad.png", bytes}});
        try {
            store.saveMessage(m);
            QFAIL("a picture whose hash is wrong was saved");
        } catch (const StoreError& e) {
            const QString error = QString::fromUtf8(e.what());
            QVERIFY2(error.startsWith(path) && error.contains("image 2 (\"bad.png\")") &&
                         error.contains(m.id) && error.contains(problem),
                     e.what());
            QVERIFY(!e.retryable()); // it never succeeds: not kept for later
        }
        // Nothing of the message: not its row, not its first (good) picture.
        QVERIFY(store.messages(c.id).isEmpty());
        QCOMPARE(rowCount(path, "images"), 0);
        QCOMPARE(rowCount(path, "message_images"), 0);
        // An empty sha256 is computed.
        MessageRecord unnamed = message(c.id, 0, Role::User, "unnamed", {MessageImage{{}, "x.png", green_}});
        store.saveMessage(unnamed);
        QCOMPARE(store.messages(c.id).at(0).images.at(0).sha256, imageSha256(green_));
    }

    // Through the async store, a refused picture is reported and its write dropped, not kept to
    // be retried: it can never succeed.
    void aRefusedPictureIsReportedAndNotKept() {
        const QString path = dir_ + "/data/conversations.sqlite";
        const ConversationRecord c = conversation("Reported");
        ConversationStore store(path);
        QSignalSpy failed(&store, &ConversationStore::failed);
        store.saveConversation(c);
        store.saveMessage(
            message(c.id, 0, Role::User, "bad", {MessageImage{imageSha256(red_), "x.png", blue_}}));
        store.saveMessage(message(c.id, 1, Role::User, "good", {picture("red.png", red_)}));
        const QList<MessageRecord> read = QCoro::waitFor(store.loadMessages(c.id));
        QVERIFY(failed.count() > 0 || failed.wait(5000)); // queued to this thread
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed.at(0).at(0).toString().contains("\"x.png\""),
                 qPrintable(failed.at(0).at(0).toString()));
        QCOMPARE(store.pendingWrites(), 0);
        QCOMPARE(read.size(), 1);
        QCOMPARE(read.at(0).content, QStringLiteral("good"));
    }

    void theSchemaBeforeImagesGainsTheTablesAndKeepsEveryRow() {
        const QString path = dir_ + "/before-images.sqlite";
        QVERIFY(rawSql(path, kSchemaBeforeImages));
        const QList<QVariantList> before = everyRow(path);
        QVERIFY(before.size() > kTablesBeforeImages.size());
        // Read as it is (a damaged file's copy opens it read-only, tables or not).
        {
            SqlStore readOnly(path, SqlStore::Access::ReadOnly);
            QCOMPARE(readOnly.messages("d").size(), 1);
            QVERIFY(MessageImageStore(readOnly).imagesOfConversation("c").isEmpty());
        }
        QCOMPARE(rowCount(path, "sqlite_master WHERE name IN ('images', 'message_images')"), 0); // not yet
        {
            SqlStore store(path);
            QCOMPARE(store.integrityCheck(), QStringLiteral("ok"));
            QTest::ignoreMessage(QtWarningMsg, QRegularExpression("holds 1 message\\(s\\) whose role"));
            const QList<MessageRecord> tree = store.messages("c");
            QCOMPARE(tree.size(), 3);
            for (const MessageRecord& m : tree)
                QVERIFY(m.images.isEmpty());
        }
        QCOMPARE(everyRow(path), before);
        QCOMPARE(rowCount(path, "images"), 0);
        QCOMPARE(rowCount(path, "message_images"), 0);
        // The migrated file takes images, and they come back after another restart.
        const MessageRecord next =
            message("d", 1, Role::User, "And now a picture", {picture("red.png", red_)}, "d0");
        {
            SqlStore store(path);
            store.saveMessage(next);
        }
        SqlStore again(path);
        const QList<MessageRecord> d = again.messages("d");
        QCOMPARE(d.size(), 2);
        compareImages(d.at(1).images, next.images);
        // Deleting an old message without images is as it was.
        again.deleteMessage("m1");
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("holds 1 message\\(s\\) whose role"));
        QCOMPARE(again.messages("c").size(), 2);
        QCOMPARE(rowCount(path, "images"), 1);
    }

    void aDamagedDatabaseIsCopiedWithItsIntactPictures() {
        const QString path = dir_ + "/damaged.sqlite";
        const ConversationRecord c = conversation("Damaged");
        const QList<MessageImage> images{picture("red.png", red_), picture("green.png", green_),
                                         picture("blue.png", blue_)};
        const MessageRecord m = message(c.id, 0, Role::User, "Three pictures", images);
        {
            SqlStore store(path);
            store.saveConversation(c);
            store.saveMessage(m);
        }
        // Green's bytes changed behind the app's back (its hash no longer names them), then the
        // conversations' index overwritten: the file fails the quick check, its rows still read.
        QVERIFY(
            rawSql(path, {"UPDATE images SET bytes = x'00' WHERE sha256 = '" + imageSha256(green_) + "'"}));
        const auto root = rawSql(
            path, {"SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_conversations_1'"});
        QVERIFY(root && root->size() == 1);
        const qint64 page = root->constFirst().constFirst().toLongLong();
        QVERIFY(page > 1);
        QVERIFY(!QFile::exists(path + "-wal"));
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
        const QList<MessageRecord> copied = fresh->messages(c.id);
        QCOMPARE(copied.size(), 1);
        compareImages(copied.at(0).images, {images.at(0), images.at(2)});
        QCOMPARE(fresh->integrityCheck(), QStringLiteral("ok"));
    }
};

QTEST_MAIN(TestMessageImages)
#include "test_message_images.moc"
