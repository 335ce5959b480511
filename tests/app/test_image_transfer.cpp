// Images in the exports and the import: Hearth's JSON carries each message's images (name and
// SHA-256 on the message, each picture's bytes once, in base64, in the file's "images") and an
// import restores them, bytes and order, each picture stored once; a file without images stays
// version 1; a bad image entry (not an object, bad base64, bytes that are not their SHA-256, a
// SHA-256 the file has no picture for) is refused with its place, and nothing of the file is kept;
// Markdown names each image; the PDF draws the pictures that decode and names the others.
#include "app/storage/conversation_export_json.h"
#include "app/storage/conversation_export_markdown.h"
#include "app/storage/conversation_export_pdf.h"
#include "app/storage/conversation_import.h"
#include "app/storage/sql_store.h"
#include "tests/app/message_image_records.h"
#include "tests/app/raw_sql.h"
#include "tests/support/test_support.h"
#include <QBuffer>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTest>

using namespace hearth::app;
using hearth::chat::Role;
using hearth::test::message;
using hearth::test::picture;

namespace {

QByteArray encodedImage(int width, int height, QColor colour, const char* format) {
    QImage image(width, height, QImage::Format_RGB32);
    image.fill(colour);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, format);
    return bytes;
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

QList<ConversationBundle> readAll(const SqlStore& store) {
    QList<ConversationBundle> bundles;
    for (const ConversationRecord& c : store.conversations())
        bundles.append({c, store.messages(c.id)});
    return bundles;
}

QString importError(SqlStore& store, const QString& path) {
    try {
        importConversations(store, path);
    } catch (const TransferError& e) {
        return e.message();
    }
    return {};
}

// A file's messages and pictures, as tests build them by hand.
QJsonObject fileMessage(const QString& id, const QJsonValue& parent, const QJsonArray& images) {
    return {{"id", id},          {"parentId", parent},  {"role", "user"},
            {"content", "Look"}, {"state", "complete"}, {"images", images}};
}

QJsonObject fileConversation(const QString& title, const QJsonArray& messages) {
    return {{"title", title}, {"messages", messages}};
}

QJsonObject fileImage(const QString& name, const QString& sha256) {
    return {{"name", name}, {"sha256", sha256}};
}

QByteArray hearthFile(const QJsonArray& conversations, const QJsonValue& pictures) {
    return QJsonDocument(QJsonObject{{"format", kHearthFormatName},
                                     {"version", kHearthFormatVersion},
                                     {"images", pictures},
                                     {"conversations", conversations}})
        .toJson();
}

// A picture a PDF draws, and where: its width in pixels, the width it is drawn at and its left
// edge, in the units of the page's content (Qt's writer: the printer's pixels), and the width of
// the page's printable area in them. Read from the content streams as Qt's PDF writer writes them
// ("a 0 0 d x y cm", then "w 0 0 -h 0 h cm /ImN Do"; the clip "0 0 m W 0 l").
struct DrawnPicture {
    double pixels = 0;
    double drawnWidth = 0;
    double left = 0;
    double pageWidth = 0;
};

QList<DrawnPicture> drawnPictures(const QByteArray& pdf) {
    static const QRegularExpression draw(QStringLiteral(
        "([\\d.]+) 0 0 [-\\d.]+ ([-\\d.]+) [-\\d.]+ cm\\n(\\d+) 0 0 -?\\d+ 0 -?\\d+ cm /Im\\d+\\s+Do"));
    static const QRegularExpression clip(QStringLiteral("0 0 m\\n([\\d.]+) 0 l"));
    QList<DrawnPicture> pictures;
    for (qsizetype at = pdf.indexOf("stream\n"); at >= 0; at = pdf.indexOf("stream\n", at + 1)) {
        const qsizetype start = at + 7;
        const qsizetype end = pdf.indexOf("endstream", start);
        if (end < 0) break;
        if (pdf.mid(at - 3, 3) == "end") continue; // "endstream" closes one
        const QByteArray dictionary = pdf.mid(pdf.lastIndexOf("<<", at), at - pdf.lastIndexOf("<<", at));
        if (!dictionary.contains("/FlateDecode") || dictionary.contains("/Image")) continue; // not content
        // qUncompress wants zlib data after its expected size (a hint: it grows as it needs).
        const QByteArray content =
            qUncompress(QByteArray("\x00\x10\x00\x00", 4) + pdf.mid(start, end - start));
        const QString text = QString::fromLatin1(content);
        const QRegularExpressionMatch page = clip.match(text);
        for (auto it = draw.globalMatch(text); it.hasNext();) {
            const QRegularExpressionMatch m = it.next();
            pictures.append({m.captured(3).toDouble(), m.captured(1).toDouble() * m.captured(3).toDouble(),
                             m.captured(2).toDouble(), page.hasMatch() ? page.captured(1).toDouble() : 0});
        }
    }
    return pictures;
}

} // namespace

class TestImageTransfer : public QObject {
    Q_OBJECT

    QString dir_;
    const QByteArray png_ = encodedImage(64, 48, Qt::red, "PNG");
    const QByteArray jpeg_ = encodedImage(48, 64, Qt::blue, "JPEG");
    const QByteArray wide_ = encodedImage(3000, 200, Qt::darkGreen, "PNG");

    // A conversation whose question shows two pictures and whose edited question shows one of them
    // again (a sibling: two messages, one picture), and a second conversation without images.
    QList<ConversationBundle> conversationsWithImages() const {
        ConversationBundle pictures;
        pictures.conversation = {newRecordId(), "Pictures", QDateTime::fromMSecsSinceEpoch(1714564800000),
                                 QDateTime::fromMSecsSinceEpoch(1714564900000)};
        const QString id = pictures.conversation.id;
        const MessageRecord question = message(id, 0, Role::User, "Which is red?",
                                               {picture("b.jpg", jpeg_), picture("a.png", png_)}, {});
        MessageRecord answer = message(id, 1, Role::Assistant, "The second.", {}, question.id);
        answer.model = "tiny-gemma3";
        MessageRecord edited =
            message(id, 2, Role::User, "Is it red?", {picture("same, renamed.png", png_)}, {});
        MessageRecord old = question;
        old.active = false;
        pictures.messages = {old, answer, edited};
        ConversationBundle text;
        text.conversation = {newRecordId(), "Text", QDateTime::fromMSecsSinceEpoch(1714564800000),
                             QDateTime::fromMSecsSinceEpoch(1714564800000)};
        text.messages = {message(text.conversation.id, 0, Role::User, "No pictures here", {}, {})};
        return {pictures, text};
    }

private slots:
    void init() { dir_ = QString::fromStdString(hearth::test::make_temp_dir("hearth-image-transfer")); }

    void jsonCarriesImagesThereAndBack() {
        const QList<ConversationBundle> original = conversationsWithImages();
        const QString file = dir_ + "/export.json";
        {
            SqlStore source(dir_ + "/source.sqlite");
            source.inTransaction([&] {
                for (const ConversationBundle& b : original)
                    source.insertConversation(b.conversation, b.messages);
            });
            writeFile(file, conversationsToJson(readAll(source)));
        }
        const QJsonObject root = QJsonDocument::fromJson(readFile(file)).object();
        QCOMPARE(root.value("version").toInt(), 2);
        // Each picture once, its bytes in base64 under its SHA-256.
        const QJsonObject table = root.value("images").toObject();
        QCOMPARE(table.size(), 2);
        QCOMPARE(QByteArray::fromBase64(table.value(imageSha256(png_)).toString().toLatin1()), png_);
        QCOMPARE(QByteArray::fromBase64(table.value(imageSha256(jpeg_)).toString().toLatin1()), jpeg_);
        const QJsonArray conversations = root.value("conversations").toArray();
        QJsonObject exported;
        for (const QJsonValue& c : conversations)
            if (c.toObject().value("title") == "Pictures") exported = c.toObject();
        const QJsonArray listed =
            exported.value("messages").toArray().at(0).toObject().value("images").toArray();
        QCOMPARE(listed.size(), 2);
        QCOMPARE(listed.at(0).toObject(), fileImage("b.jpg", imageSha256(jpeg_)));
        QCOMPARE(listed.at(1).toObject(), fileImage("a.png", imageSha256(png_)));
        QVERIFY(!exported.value("messages").toArray().at(1).toObject().contains("images"));

        const QString database = dir_ + "/target.sqlite";
        {
            SqlStore target(database);
            const ImportSummary summary = importConversations(target, file);
            QCOMPARE(summary.conversations, 2);
            QCOMPARE(summary.messages, 4);
        }
        SqlStore reopened(database); // what was imported is on disk
        for (const ConversationBundle& b : readAll(reopened)) {
            const auto want =
                std::find_if(original.begin(), original.end(), [&](const ConversationBundle& o) {
                    return o.conversation.title == b.conversation.title;
                });
            QVERIFY(want != original.end());
            QCOMPARE(b.messages.size(), want->messages.size());
            for (qsizetype i = 0; i < b.messages.size(); ++i) {
                const MessageRecord& got = b.messages.at(i);
                const auto source =
                    std::find_if(want->messages.begin(), want->messages.end(),
                                 [&](const MessageRecord& m) { return m.content == got.content; });
                QVERIFY(source != want->messages.end());
                QCOMPARE(got.images.size(), source->images.size());
                for (qsizetype j = 0; j < got.images.size(); ++j) {
                    QCOMPARE(got.images.at(j).name, source->images.at(j).name);
                    QCOMPARE(got.images.at(j).sha256, source->images.at(j).sha256);
                    QVERIFY(got.images.at(j).bytes == source->images.at(j).bytes);
                }
            }
        }
        QCOMPARE(hearth::test::rowCount(database, "images"), 2); // the PNG shown twice is stored once
        QCOMPARE(hearth::test::rowCount(database, "message_images"),
                 3); // two on the question, one on its edit
    }

    void aFileWithoutImagesIsTheFirstVersion() {
        const QList<ConversationBundle> text = conversationsWithImages().mid(1);
        const QJsonObject root = QJsonDocument::fromJson(conversationsToJson(text)).object();
        QCOMPARE(root.value("version").toInt(), kHearthFormatTextOnlyVersion);
        QVERIFY(!root.contains("images"));
        // And a version 1 file still imports.
        writeFile(dir_ + "/v1.json", QJsonDocument(root).toJson());
        SqlStore store(dir_ + "/db.sqlite");
        QCOMPARE(importConversations(store, dir_ + "/v1.json").messages, 1);
    }

    void badImageEntriesAreRefusedWithTheirPlace_data() {
        QTest::addColumn<QByteArray>("contents");
        QTest::addColumn<QStringList>("expected"); // parts of the message, besides the file's path
        const QString png = imageSha256(png_);
        const QJsonObject pictures{{png, QString::fromLatin1(png_.toBase64())}};
        const QJsonArray good{fileImage("a.png", png)};
        const auto withImages = [&](const QJsonValue& images, const QJsonObject& table) {
            QJsonObject second = fileMessage("m2", "m1", {});
            second.insert("images", images);
            return hearthFile(
                {fileConversation("Pictures", {fileMessage("m1", QJsonValue::Null, good), second})}, table);
        };
        QTest::newRow("image not an object")
            << withImages(QJsonArray{fileImage("a.png", png), "a.png"}, pictures)
            << QStringList{"conversation 1 (\"Pictures\"), message 2, image 2", "not an object"};
        QTest::newRow("images not an array")
            << withImages("a.png", pictures)
            << QStringList{"conversation 1 (\"Pictures\"), message 2", "\"images\""};
        QTest::newRow("no name") << withImages(QJsonArray{QJsonObject{{"sha256", png}}}, pictures)
                                 << QStringList{"message 2, image 1", "\"name\""};
        QTest::newRow("no such picture")
            << withImages(QJsonArray{fileImage("c.png", imageSha256(jpeg_))}, pictures)
            << QStringList{"message 2, image 1", imageSha256(jpeg_)};
        QTest::newRow("bad base64") << withImages(good, QJsonObject{{png, "iVBOR***not base64"}})
                                    << QStringList{"\"images\", the entry \"" + png + "\"",
                                                   "not valid base64"};
        QTest::newRow("bytes not their hash")
            << withImages(good, QJsonObject{{png, QString::fromLatin1(jpeg_.toBase64())}})
            << QStringList{"\"images\", the entry \"" + png + "\"",
                           "the SHA-256 of its bytes is " + imageSha256(jpeg_)};
        QTest::newRow("bytes not a string") << withImages(good, QJsonObject{{png, 42}})
                                            << QStringList{"the entry \"" + png + "\"", "not a string"};
        QTest::newRow("no bytes") << withImages(good, QJsonObject{{imageSha256({}), ""}})
                                  << QStringList{"the entry \"" + imageSha256({}) + "\"", "no bytes"};
        QTest::newRow("table not an object")
            << hearthFile({}, QJsonArray{}) << QStringList{"\"images\" is not an object"};
    }

    void badImageEntriesAreRefusedWithTheirPlace() {
        QFETCH(QByteArray, contents);
        QFETCH(QStringList, expected);
        const QString file = dir_ + "/bad.json";
        writeFile(file, contents);
        const QString database = dir_ + "/db.sqlite";
        SqlStore store(database);
        const QList<ConversationBundle> before = conversationsWithImages();
        store.inTransaction(
            [&] { store.insertConversation(before.at(0).conversation, before.at(0).messages); });
        const QString error = importError(store, file);
        QVERIFY2(error.startsWith(file + ": "), qPrintable(error));
        for (const QString& part : expected)
            QVERIFY2(error.contains(part), qPrintable(error + " lacks " + part));
        QCOMPARE(store.conversations().size(), 1);
        QCOMPARE(hearth::test::rowCount(database, "messages"), 3);
        QCOMPARE(hearth::test::rowCount(database, "images"), 2);
        QCOMPARE(hearth::test::rowCount(database, "message_images"), 3);
    }

    // The first two conversations, with their pictures, are inserted before the third is read: its
    // bad image rolls all of them back.
    void aBadImageInTheThirdConversationKeepsNothing() {
        const QString png = imageSha256(png_);
        const QString jpeg = imageSha256(jpeg_);
        const QJsonObject pictures{{png, QString::fromLatin1(png_.toBase64())},
                                   {jpeg, QString::fromLatin1(jpeg_.toBase64())}};
        const QByteArray contents = hearthFile(
            {fileConversation("One", {fileMessage("a", QJsonValue::Null, {fileImage("a.png", png)})}),
             fileConversation("Two", {fileMessage("b", QJsonValue::Null, {fileImage("b.jpg", jpeg)})}),
             fileConversation("Three",
                              {fileMessage("c", QJsonValue::Null, {fileImage("c.png", QString(64, 'f'))})})},
            pictures);
        const QString file = dir_ + "/third.json";
        writeFile(file, contents);
        const QString database = dir_ + "/db.sqlite";
        SqlStore store(database);
        const QString error = importError(store, file);
        QVERIFY2(error.contains("conversation 3 (\"Three\"), message 1, image 1"), qPrintable(error));
        QCOMPARE(hearth::test::rowCount(database, "conversations"), 0);
        QCOMPARE(hearth::test::rowCount(database, "messages"), 0);
        QCOMPARE(hearth::test::rowCount(database, "images"), 0);
        QCOMPARE(hearth::test::rowCount(database, "message_images"), 0);
        // Without the bad one it goes through, pictures and all.
        writeFile(
            file,
            hearthFile({QJsonDocument::fromJson(contents).object().value("conversations").toArray().at(0),
                        QJsonDocument::fromJson(contents).object().value("conversations").toArray().at(1)},
                       pictures));
        QCOMPARE(importConversations(store, file).conversations, 2);
        QCOMPARE(hearth::test::rowCount(database, "images"), 2);
    }

    void markdownNamesEachImageBeforeItsText() {
        QList<ConversationBundle> bundles = conversationsWithImages();
        MessageRecord imageOnly =
            message(bundles[0].conversation.id, 3, Role::User, "", {picture("only [a] picture.png", png_)},
                    bundles[0].messages.at(2).id);
        bundles[0].messages.append(imageOnly);
        const QString markdown = conversationsToMarkdown(bundles.mid(0, 1));
        const QString png = imageSha256(png_);
        // The branch shown: the edited question and the message after it, not the first question.
        QVERIFY2(markdown.contains("![same, renamed.png](sha256:" + png + ")\n\nIs it red?"),
                 qPrintable(markdown));
        QVERIFY2(markdown.contains("![only \\[a\\] picture.png](sha256:" + png + ")\n\n"),
                 qPrintable(markdown));
        QVERIFY(!markdown.contains("b.jpg"));
        QVERIFY(!markdown.contains("(empty)")); // a message of one picture is not empty
    }

    void pdfDrawsThePicturesThatDecode() {
        ConversationBundle bundle;
        bundle.conversation = {newRecordId(), "Pictures", QDateTime::currentDateTime(),
                               QDateTime::currentDateTime()};
        const QString id = bundle.conversation.id;
        const MessageRecord first = message(id, 0, Role::User, "A wide one and a small one",
                                            {picture("wide.png", wide_), picture("small.jpg", jpeg_)}, {});
        bundle.messages = {first};
        writeConversationsPdf({bundle}, dir_ + "/pictures.pdf");
        const QByteArray pdf = readFile(dir_ + "/pictures.pdf");
        QVERIFY(pdf.startsWith("%PDF-"));
        QCOMPARE(pdf.count("/Subtype /Image"), qsizetype(2));
        // The wide one scaled down to the page's width, the small one at its own size.
        const QList<DrawnPicture> drawn = drawnPictures(pdf);
        QCOMPARE(drawn.size(), 2);
        const DrawnPicture& wide = drawn.at(0);
        const DrawnPicture& small = drawn.at(1);
        QCOMPARE(wide.pixels, 3000.0);
        QCOMPARE(small.pixels, 48.0);
        QVERIFY(wide.pageWidth > 0);
        QVERIFY2(wide.left + wide.drawnWidth <= wide.pageWidth,
                 qPrintable(QStringLiteral("drawn %1 wide from %2 on a page %3 wide")
                                .arg(wide.drawnWidth)
                                .arg(wide.left)
                                .arg(wide.pageWidth)));
        QVERIFY2(wide.drawnWidth >= 0.95 * (wide.pageWidth - 2 * wide.left),
                 "the wide picture fills the width");
        const double wideScale = wide.drawnWidth / wide.pixels;
        const double smallScale = small.drawnWidth / small.pixels;
        QVERIFY2(wideScale < 0.5 * smallScale, "the wide picture is scaled down");

        // A picture that does not decode is written as its name: no image in the PDF.
        bundle.messages = {
            message(id, 0, Role::User, "Broken", {picture("broken.png", "not a picture")}, {})};
        writeConversationsPdf({bundle}, dir_ + "/broken.pdf");
        const QByteArray broken = readFile(dir_ + "/broken.pdf");
        QVERIFY(broken.startsWith("%PDF-"));
        QCOMPARE(broken.count("/Subtype /Image"), qsizetype(0));
    }
};

QTEST_MAIN(TestImageTransfer)
#include "test_image_transfer.moc"
