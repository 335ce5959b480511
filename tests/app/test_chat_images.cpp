// Images in the chat over a real backend (worker thread, SQLite store) and a model that reads
// images: a message sent with images keeps them in its record (saved, and read back after a
// restart) and in the message list's role; every turn of the worker's request carries its
// message's images (the engine's ids are their SHA-256); an edit keeps them; the window's image
// provider serves them by SHA-256 no larger than asked (WebP too, through the engine's decoder);
// a deleted conversation's images leave the provider.
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/chat/image_attachments.h"
#include "app/chat/image_library.h"
#include "app/chat/image_preview.h"
#include "app/chat/message_list_model.h"
#include "app/gui/message_image_provider.h"
#include "app/gui/translations.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "tests/app/backend_fixture.h"
#include "tests/app/vision_model.h"
#include "tests/support/test_support.h"
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

using namespace hearth::app;
using hearth::test::finishReply;
using hearth::test::loadVisionModel;
using hearth::test::startChat;
using hearth::test::waitForMessages;

class TestChatImages : public QObject {
    Q_OBJECT

    QString dir_;
    AppPaths paths() const { return {dir_ + "/data", dir_ + "/settings.ini"}; }
    QString file(const QString& name) const { return dir_ + "/" + name; }
    QUrl url(const QString& name) const { return QUrl::fromLocalFile(file(name)); }
    QList<GenerationRequest> requests_;

    static QByteArray bytesOf(const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }
    static QString sha256Of(const QByteArray& bytes) {
        return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
    }
    // The backend started, the vision model loaded, replies kept short, and every request the
    // chat sends to the worker recorded.
    bool open(HearthBackend& b) {
        if (!startChat(b) || !loadVisionModel(b, dir_)) return false;
        b.settings()->setMaxReplyTokens(3);
        connect(b.chat(), &ChatController::generateRequested, this,
                [this](const GenerationRequest& request) { requests_.append(request); });
        return true;
    }
    static bool attach(HearthBackend& b, const QList<QUrl>& urls) {
        ImageAttachments* attachments = b.chat()->attachments();
        const int before = attachments->count();
        return attachments->attachFiles(urls) &&
               QTest::qWaitFor([&] { return !attachments->reading(); }, 10000) &&
               attachments->count() == before + urls.size();
    }
    // The images of a request's turn as {id, name, bytes}.
    static void compareTurnImages(const ChatTurnData& turn, const QList<MessageImage>& expected) {
        QCOMPARE(turn.images.size(), size_t(expected.size()));
        for (qsizetype i = 0; i < expected.size(); ++i) {
            const hearth::chat::ChatImage& image = turn.images.at(size_t(i));
            QCOMPARE(QString::fromStdString(image.id), expected.at(i).sha256);
            QCOMPARE(QString::fromStdString(image.name), expected.at(i).name);
            QVERIFY(image.bytes);
            QCOMPARE(QByteArray(reinterpret_cast<const char*>(image.bytes->data()),
                                qsizetype(image.bytes->size())),
                     expected.at(i).bytes);
        }
    }

private slots:
    void initTestCase() { QVERIFY(installTranslations(*QCoreApplication::instance())); }

    void init() {
        dir_ = QString::fromStdString(hearth::test::make_temp_dir("hearth-chat-images"));
        requests_.clear();
        QImage red(40, 30, QImage::Format_RGB32);
        red.fill(Qt::red);
        QVERIFY(red.save(file("red.png"), "PNG"));
        QImage green(24, 48, QImage::Format_RGB32);
        green.fill(Qt::green);
        QVERIFY(green.save(file("green.jpg"), "JPEG"));
    }

    void sentImagesReachTheRecordTheListAndTheRequest() {
        HearthBackend b(paths());
        QVERIFY(open(b));
        QVERIFY(attach(b, {url("red.png"), url("green.jpg")}));
        QVERIFY(b.chat()->send(QStringLiteral("What colours are these?")));
        QCOMPARE(b.chat()->attachments()->count(), 0); // taken by the message
        const MessageRecord user = b.chat()->messages()->messages().constFirst();
        QCOMPARE(user.images.size(), 2);
        QCOMPARE(user.images.at(0).name, QStringLiteral("red.png"));
        QCOMPARE(user.images.at(0).bytes, bytesOf(file("red.png")));
        QCOMPARE(user.images.at(0).sha256, sha256Of(bytesOf(file("red.png"))));
        QCOMPARE(user.images.at(1).name, QStringLiteral("green.jpg"));
        const QVariantList shown = b.chat()->messages()->index(0).data(MessageListModel::ImagesRole).toList();
        QCOMPARE(shown.size(), 2);
        QCOMPARE(shown.at(1).toMap().value("sha256").toString(), user.images.at(1).sha256);
        QCOMPARE(shown.at(1).toMap().value("name").toString(), QStringLiteral("green.jpg"));
        QVERIFY(b.chat()->messages()->index(1).data(MessageListModel::ImagesRole).toList().isEmpty());

        QCOMPARE(requests_.size(), 1);
        const ChatTurnData& turn = requests_.constFirst().turns.constLast();
        QCOMPARE(turn.role, hearth::chat::Role::User);
        QCOMPARE(turn.content, QStringLiteral("What colours are these?"));
        compareTurnImages(turn, user.images);
        QVERIFY(finishReply(b.chat()));
        // The reply's line says the model read both (the English plural comes with the translation).
        const QString stats = b.chat()->messages()->index(1).data(MessageListModel::StatsRole).toString();
        QVERIFY2(stats.contains(QRegularExpression("2 image(s|\\(s\\)) read in \\d+ ms")), qPrintable(stats));

        // The next turn sends the whole conversation: the first message's images with it.
        QVERIFY(b.chat()->send(QStringLiteral("And the second one?")));
        QCOMPARE(requests_.size(), 2);
        const QList<ChatTurnData>& turns = requests_.at(1).turns;
        int withImages = 0;
        for (const ChatTurnData& t : turns) {
            if (t.images.empty()) continue;
            ++withImages;
            QCOMPARE(t.content, QStringLiteral("What colours are these?"));
            compareTurnImages(t, user.images);
        }
        QCOMPARE(withImages, 1);
        QVERIFY(turns.constLast().images.empty());
        QVERIFY(finishReply(b.chat()));
        // Read once: the next turn finds them in the conversation's cache.
        const QString again = b.chat()->messages()->index(3).data(MessageListModel::StatsRole).toString();
        QVERIFY2(!again.isEmpty() && !again.contains(QStringLiteral("image")), qPrintable(again));
    }

    // The model reads the pictures: the same words with another picture (greedy sampling) get
    // another reply, and both replies complete.
    void repliesFollowTheImage() {
        HearthBackend b(paths());
        QVERIFY(open(b));
        b.settings()->setTemperature(0);
        b.settings()->setMaxReplyTokens(8);
        QStringList replies;
        for (const QString& picture : {QStringLiteral("grad-56x56.png"), QStringLiteral("rings-30x42.png")}) {
            QVERIFY(QFile::copy(
                QString::fromStdString(hearth::test::testdata("vision/images/" + picture.toStdString())),
                file(picture)));
            b.chat()->newConversation();
            QVERIFY(attach(b, {url(picture)}));
            QVERIFY(b.chat()->send(QStringLiteral("What is in the picture?")));
            QVERIFY(finishReply(b.chat()));
            QVERIFY2(b.chat()->errorMessage().isEmpty(), qPrintable(b.chat()->errorMessage()));
            const MessageRecord reply = b.chat()->messages()->messages().constLast();
            QCOMPARE(reply.state, MessageState::Complete);
            QVERIFY(!reply.content.isEmpty());
            replies.append(reply.content);
        }
        QVERIFY2(replies.at(0) != replies.at(1), qPrintable(replies.join(QStringLiteral(" | "))));
    }

    // Images with no text are a message; the conversation is named after the first.
    void imagesAloneAreAMessage() {
        HearthBackend b(paths());
        QVERIFY(open(b));
        QVERIFY(!b.chat()->send(QString())); // nothing to send
        QVERIFY(attach(b, {url("green.jpg")}));
        QVERIFY(b.chat()->send(QStringLiteral("  ")));
        QCOMPARE(b.chat()->currentTitle(), QStringLiteral("green.jpg"));
        const MessageRecord user = b.chat()->messages()->messages().constFirst();
        QVERIFY(user.content.isEmpty());
        QCOMPARE(user.images.size(), 1);
        compareTurnImages(requests_.constLast().turns.constLast(), user.images);
        QVERIFY(finishReply(b.chat()));
    }

    // An edit is a new version of the message, with the original's images.
    void anEditKeepsTheImages() {
        HearthBackend b(paths());
        QVERIFY(open(b));
        QVERIFY(attach(b, {url("red.png")}));
        QVERIFY(b.chat()->send(QStringLiteral("Describe it.")));
        QVERIFY(finishReply(b.chat()));
        const MessageRecord original = b.chat()->messages()->messages().constFirst();
        QVERIFY(b.chat()->editAndResend(original.id, QStringLiteral("Describe it briefly.")));
        const MessageRecord edited = b.chat()->messages()->messages().constFirst();
        QVERIFY(edited.id != original.id);
        QCOMPARE(edited.content, QStringLiteral("Describe it briefly."));
        QCOMPARE(edited.images.size(), 1);
        QCOMPARE(edited.images.constFirst().sha256, original.images.constFirst().sha256);
        compareTurnImages(requests_.constLast().turns.constLast(), original.images);
        QVERIFY(finishReply(b.chat()));
        // Emptied of its text, the message is still its image.
        QVERIFY(b.chat()->editAndResend(edited.id, QString()));
        QCOMPARE(b.chat()->messages()->messages().constFirst().images.size(), 1);
        QVERIFY(finishReply(b.chat()));
    }

    // A conversation that shows images goes on only with a model that reads them: another model
    // refuses a new message, a regenerated reply and an edit at once, saying why, and the
    // conversation stays as it was.
    void aTextModelRefusesAConversationWithImages() {
        HearthBackend b(paths());
        QVERIFY(open(b));
        QVERIFY(attach(b, {url("red.png")}));
        QVERIFY(b.chat()->send(QStringLiteral("Red?")));
        QVERIFY(finishReply(b.chat()));
        QVERIFY(hearth::test::loadModel(b));
        QVERIFY(!b.models()->imageInput());
        const int requests = int(requests_.size());
        QVERIFY(!b.chat()->send(QStringLiteral("And now?")));
        QVERIFY2(b.chat()->errorMessage().contains(
                     QStringLiteral("This conversation shows images, and %1 reads none")
                         .arg(b.models()->modelName())),
                 qPrintable(b.chat()->errorMessage()));
        b.chat()->clearError();
        QVERIFY(!b.chat()->regenerate());
        QVERIFY(!b.chat()->errorMessage().isEmpty());
        QVERIFY(!b.chat()->editAndResend(b.chat()->messages()->messages().constFirst().id,
                                         QStringLiteral("Blue?")));
        QCOMPARE(b.chat()->messages()->count(), 2);
        QCOMPARE(int(requests_.size()), requests);
        // A conversation without images goes on as before.
        b.chat()->newConversation();
        QVERIFY(b.chat()->send(QStringLiteral("Hello")));
        QVERIFY(finishReply(b.chat()));
    }

    // After a restart the conversation is read back with its images, shows them, and sends them
    // with the next turn.
    void aConversationReadBackSendsItsImages() {
        QString conversationId;
        QList<MessageImage> sent;
        {
            HearthBackend b(paths());
            QVERIFY(open(b));
            QVERIFY(attach(b, {url("red.png"), url("green.jpg")}));
            QVERIFY(b.chat()->send(QStringLiteral("Which is warmer?")));
            QVERIFY(finishReply(b.chat()));
            conversationId = b.chat()->currentConversationId();
            sent = b.chat()->messages()->messages().constFirst().images;
        }
        requests_.clear();
        HearthBackend b(paths());
        QVERIFY(open(b));
        b.chat()->selectConversation(conversationId);
        QVERIFY(waitForMessages(b.chat(), 2));
        const MessageRecord user = b.chat()->messages()->messages().constFirst();
        QCOMPARE(user.images.size(), 2);
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(user.images.at(i).sha256, sent.at(i).sha256);
            QCOMPARE(user.images.at(i).name, sent.at(i).name);
            QCOMPARE(user.images.at(i).bytes, sent.at(i).bytes);
            QVERIFY(b.chat()->imageLibrary()->bytes(sent.at(i).sha256)); // the thumbnails can show them
        }
        QVERIFY(b.chat()->send(QStringLiteral("Are you sure?")));
        QCOMPARE(requests_.size(), 1);
        const QList<ChatTurnData>& turns = requests_.constFirst().turns;
        const auto first = std::find_if(turns.cbegin(), turns.cend(), [](const ChatTurnData& t) {
            return t.role == hearth::chat::Role::User;
        });
        QVERIFY(first != turns.cend());
        compareTurnImages(*first, sent);
        QVERIFY(finishReply(b.chat()));
    }

    // The provider behind image://hearth-images/<sha256>: the images of the messages and of the
    // composer, decoded no larger than the Image asks, with their own size reported.
    void theProviderServesTheChatsImages() {
        HearthBackend b(paths());
        QVERIFY(open(b));
        QVERIFY(attach(b, {url("red.png")}));
        const QString sha256 = b.chat()->attachments()->images().constFirst().sha256;
        MessageImageProvider provider(b.chat()->imageLibrary());
        QSize fullSize;
        const QImage thumbnail = provider.requestImage(sha256, &fullSize, QSize(20, 20));
        QCOMPARE(fullSize, QSize(40, 30));
        QCOMPARE(thumbnail.size(), QSize(20, 15)); // fitted, aspect kept
        QCOMPARE(thumbnail.pixelColor(10, 7), QColor(Qt::red));
        QCOMPARE(provider.requestImage(sha256, &fullSize, QSize(400, 400)).size(),
                 QSize(40, 30)); // not enlarged
        QCOMPARE(provider.requestImage(sha256, &fullSize, QSize()).size(), QSize(40, 30));
        QVERIFY(provider.requestImage(QString(64, QLatin1Char('0')), &fullSize, QSize(20, 20)).isNull());

        // Sent, it belongs to the conversation; deleted with it, it is gone.
        QVERIFY(b.chat()->send(QStringLiteral("Red?")));
        QVERIFY(!provider.requestImage(sha256, &fullSize, QSize(20, 20)).isNull());
        QVERIFY(finishReply(b.chat()));
        b.chat()->deleteConversation(b.chat()->currentConversationId());
        QVERIFY(provider.requestImage(sha256, &fullSize, QSize(20, 20)).isNull());
    }

    // WebP without Qt's plugin for it: the engine's decoder draws it.
    void previewsReadWebP() {
        const QByteArray webp = bytesOf(QStringLiteral(HEARTH_IMAGE_SEEDS "/lossless-9x7.webp"));
        QVERIFY(!webp.isEmpty());
        QSize fullSize;
        const QImage image = previewImage(webp, QSize(), &fullSize);
        QCOMPARE(fullSize, QSize(9, 7));
        QCOMPARE(image.size(), QSize(9, 7));
        QCOMPARE(image.pixelColor(4, 3), QColor(200, 40, 90));
        QCOMPARE(previewImage(webp, QSize(3, 3)).size(), QSize(3, 2));
        QVERIFY(previewImage(QByteArray("not an image"), QSize(3, 3)).isNull());
    }
};

QTEST_MAIN(TestChatImages)
#include "test_chat_images.moc"
