// Images in chat completions over real HTTP on loopback: OpenAI's image_url content parts with
// base64 data URLs. tiny-gemma3 with its projector reads them: at temperature 0 the reply follows
// the image (the same image twice gives the same reply, streamed or not; another image another
// reply), and PNG, JPEG and WebP files are taken. Refused with 400 and OpenAI's error naming the
// part: a remote URL (the server never fetches one), bad base64, a data URL that is not an image,
// an image in a message that is not the user's, an unknown part type, a damaged image (the server
// serves the next request), and images for a model without a projector (stories260K).
#include "tests/server/api_images_fixture.h"
#include <QFile>
#include <QJsonArray>
#include <QTest>

using namespace hearth::server;
using namespace hearth::test;

namespace {
QByteArray fileBytes(const std::string& path) {
    QFile file(QString::fromStdString(path));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Small JPEG and WebP files of the image decoders' fuzz seeds.
QByteArray seedImage(const char* name) {
    return fileBytes(std::string(HEARTH_SOURCE_DIR) + "/tests/fuzz/seeds/image_decode/" + name);
}

// The error of a 400 in OpenAI's shape: {"error": {"message", "type", "param", "code"}}.
QJsonObject badRequestError(const HttpReply& reply) {
    if (reply.status != 400 || reply.header("content-type") != "application/json") return {};
    const QJsonObject error = reply.json()["error"].toObject();
    if (error["type"].toString() != QLatin1String("invalid_request_error")) return {};
    return error;
}
} // namespace

class TestApiImages : public QObject {
    Q_OBJECT
    std::unique_ptr<EngineThreadBackend> gemmaBackend_; // reads images
    std::unique_ptr<ApiServer> gemmaServer_;
    std::unique_ptr<EngineThreadBackend> storiesBackend_; // reads none
    std::unique_ptr<ApiServer> storiesServer_;

    HttpReply postGemma(const QByteArray& body) {
        return httpRequest(gemmaServer_->port(), "POST", "/v1/chat/completions", body).value_or(HttpReply{});
    }
    QString replyTo(const QString& imageUrl) {
        const HttpReply reply =
            postGemma(gemmaBody(askAbout(QStringLiteral("Describe this image."), {imageUrl})));
        if (reply.status != 200) qWarning("%d %s", reply.status, reply.body.constData());
        return reply.status == 200 ? replyText(reply) : QStringLiteral("(status %1)").arg(reply.status);
    }

private slots:
    void initTestCase() {
        hearth::engine::RuntimeConfig config;
        config.threads = 1;
        config.context_length = 256;
        gemmaBackend_ = std::make_unique<EngineThreadBackend>(gemmaModelPath().toStdString(), config);
        gemmaBackend_->loadImageProjector(gemmaProjectorPath().toStdString());
        gemmaServer_ = std::make_unique<ApiServer>(gemmaBackend_.get());
        QVERIFY(gemmaServer_->listen(QHostAddress::LocalHost, 0));
        storiesBackend_ = makeStoriesBackend();
        storiesServer_ = std::make_unique<ApiServer>(storiesBackend_.get());
        QVERIFY(storiesServer_->listen(QHostAddress::LocalHost, 0));
        QVERIFY(!testImage("grad-56x56.png").isEmpty());
        QVERIFY(!seedImage("gradient-12x8.jpg").isEmpty());
    }
    void cleanupTestCase() {
        gemmaServer_.reset();
        gemmaBackend_.reset();
        storiesServer_.reset();
        storiesBackend_.reset();
    }

    // The reply depends on the image, and only on it: greedy decoding is deterministic.
    void theReplyFollowsTheImage() {
        const QString grad = dataUrl(testImage("grad-56x56.png"));
        const QString rings = dataUrl(testImage("rings-30x42.png"));
        const QString first = replyTo(grad);
        QVERIFY2(!first.startsWith(QLatin1String("(status")), qPrintable(first));
        QCOMPARE(replyTo(grad), first); // the second time from the KV cache's prefix
        const QString other = replyTo(rings);
        QVERIFY2(!other.startsWith(QLatin1String("(status")), qPrintable(other));
        QVERIFY2(other != first, qPrintable(first));
        QCOMPARE(replyTo(grad), first); // after another image ran in between
    }

    // The image's positions count in the prompt; the usage says so.
    void anImageTakesPromptTokens() {
        const QString question = QStringLiteral("Describe this image.");
        const HttpReply plain = postGemma(gemmaBody(askAbout(question, {})));
        const HttpReply withImage =
            postGemma(gemmaBody(askAbout(question, {dataUrl(testImage("grad-56x56.png"))})));
        QCOMPARE(plain.status, 200);
        QCOMPARE(withImage.status, 200);
        QVERIFY(withImage.json()["usage"]["prompt_tokens"].toInt() >
                plain.json()["usage"]["prompt_tokens"].toInt());
    }

    // A follow-up resends the image: the KV cache's prefix, the image's positions with it, is
    // reused. The same words with another picture are not the same conversation.
    void aFollowUpReusesTheImage() {
        const QJsonArray question =
            askAbout(QStringLiteral("What colour is it?"), {dataUrl(testImage("grad-56x56.png"))});
        const HttpReply first = postGemma(gemmaBody(question));
        QCOMPARE(first.status, 200);
        const int firstPrompt = first.json()["usage"]["prompt_tokens"].toInt();
        QJsonArray followUp = question;
        followUp.append(QJsonObject{{"role", "assistant"}, {"content", replyText(first)}});
        followUp.append(QJsonObject{{"role", "user"}, {"content", "And its shape?"}});
        const HttpReply second = postGemma(gemmaBody(followUp));
        QCOMPARE(second.status, 200);
        const QJsonObject usage = second.json()["usage"].toObject();
        const int reused = usage["prompt_tokens_details"]["cached_tokens"].toInt();
        QVERIFY2(reused >= firstPrompt && reused < usage["prompt_tokens"].toInt(),
                 qPrintable(QStringLiteral("reused %1 of %2; the first prompt %3")
                                .arg(reused)
                                .arg(usage["prompt_tokens"].toInt())
                                .arg(firstPrompt)));

        const HttpReply otherImage = postGemma(gemmaBody(
            askAbout(QStringLiteral("What colour is it?"), {dataUrl(testImage("rings-30x42.png"))})));
        QCOMPARE(otherImage.status, 200);
        QVERIFY(otherImage.json()["usage"]["prompt_tokens_details"]["cached_tokens"].toInt() < firstPrompt);
    }

    void streamedReplyMatches() {
        const QByteArray body =
            gemmaBody(askAbout(QStringLiteral("What is in it?"), {dataUrl(testImage("shapes-96x64.png"))}));
        const HttpReply whole = postGemma(body);
        QCOMPARE(whole.status, 200);
        const HttpReply streamed = postGemma(
            gemmaBody(askAbout(QStringLiteral("What is in it?"), {dataUrl(testImage("shapes-96x64.png"))}),
                      {{"stream", true}}));
        QCOMPARE(streamed.status, 200);
        QVERIFY(streamed.chunked);
        QCOMPARE(replyText(streamed), replyText(whole));
    }

    void jpegWebpAndSeveralImagesAreRead_data() {
        QTest::addColumn<QStringList>("imageUrls");
        QTest::newRow("jpeg") << QStringList{dataUrl(seedImage("gradient-12x8.jpg"), "image/jpeg")};
        QTest::newRow("jpg, as clients write it")
            << QStringList{dataUrl(seedImage("gray-6x5.jpg"), "image/jpg")};
        QTest::newRow("webp") << QStringList{dataUrl(seedImage("lossless-9x7.webp"), "image/webp")};
        QTest::newRow("two images") << QStringList{dataUrl(testImage("rings-30x42.png")),
                                                   dataUrl(testImage("grad-56x56.png"))};
    }
    void jpegWebpAndSeveralImagesAreRead() {
        QFETCH(QStringList, imageUrls);
        const HttpReply reply = postGemma(gemmaBody(askAbout(QStringLiteral("Describe it."), imageUrls)));
        QVERIFY2(reply.status == 200, reply.body.constData());
    }

    // Refused while reading the request, before any model runs: the server names the part.
    void refusedParts_data() {
        QTest::addColumn<QJsonArray>("messages");
        QTest::addColumn<QString>("param");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("saying");
        const QString png = dataUrl(testImage("grad-56x56.png"));
        const QString pngBase64 = png.mid(png.indexOf(QLatin1Char(',')) + 1);
        QTest::newRow("remote https URL")
            << askAbout("Look.", {"https://example.com/cat.png"}) << "messages[0].content[1].image_url.url"
            << "invalid_image_url"
            << "never fetches";
        QTest::newRow("remote http URL")
            << askAbout("Look.", {"http://127.0.0.1:1/cat.png"}) << "messages[0].content[1].image_url.url"
            << "invalid_image_url"
            << "data URL";
        QTest::newRow("file URL") << askAbout("Look.", {"file:///etc/passwd"})
                                  << "messages[0].content[1].image_url.url"
                                  << "invalid_image_url"
                                  << "never fetches";
        QTest::newRow("bad base64") << askAbout("Look.", {"data:image/png;base64,iVBOR*w0K!GgoAAA"})
                                    << "messages[0].content[1].image_url.url"
                                    << "invalid_image_url"
                                    << "base64";
        QTest::newRow("truncated base64") << askAbout("Look.", {"data:image/png;base64,iVBORw0KG"})
                                          << "messages[0].content[1].image_url.url"
                                          << "invalid_image_url"
                                          << "base64";
        QTest::newRow("not base64") << askAbout("Look.", {"data:image/png," + pngBase64})
                                    << "messages[0].content[1].image_url.url"
                                    << "invalid_image_url"
                                    << "base64";
        QTest::newRow("empty image") << askAbout("Look.", {"data:image/png;base64,"})
                                     << "messages[0].content[1].image_url.url"
                                     << "invalid_image_url"
                                     << "no data";
        QTest::newRow("text, not an image") << askAbout("Look.", {"data:text/plain;base64,aGVsbG8="})
                                            << "messages[0].content[1].image_url.url"
                                            << "invalid_image_format"
                                            << "not an image";
        QTest::newRow("GIF") << askAbout("Look.", {"data:image/gif;base64," + pngBase64})
                             << "messages[0].content[1].image_url.url"
                             << "invalid_image_format"
                             << "PNG, JPEG or WebP";
        QTest::newRow("url not a string")
            << QJsonArray{QJsonObject{
                   {"role", "user"},
                   {"content",
                    QJsonArray{QJsonObject{{"type", "image_url"}, {"image_url", QJsonObject{{"url", 5}}}}}}}}
            << "messages[0].content[0].image_url.url"
            << "invalid_type"
            << "string";
        QTest::newRow("image_url not an object")
            << QJsonArray{QJsonObject{
                   {"role", "user"},
                   {"content", QJsonArray{QJsonObject{{"type", "image_url"}, {"image_url", png}}}}}}
            << "messages[0].content[0].image_url"
            << "invalid_type"
            << "object";
        QTest::newRow("image in an assistant message")
            << QJsonArray{QJsonObject{{"role", "user"}, {"content", "Draw a cat."}},
                          QJsonObject{{"role", "assistant"}, {"content", QJsonArray{imagePart(png)}}},
                          QJsonObject{{"role", "user"}, {"content", "Thanks."}}}
            << "messages[1].content[0].type"
            << "invalid_value"
            << "user messages";
        QTest::newRow("image in a system message")
            << QJsonArray{QJsonObject{{"role", "system"}, {"content", QJsonArray{imagePart(png)}}},
                          QJsonObject{{"role", "user"}, {"content", "Hi."}}}
            << "messages[0].content[0].type"
            << "invalid_value"
            << "user messages";
        QTest::newRow("audio part")
            << QJsonArray{QJsonObject{{"role", "user"},
                                      {"content", QJsonArray{QJsonObject{{"type", "input_audio"},
                                                                         {"input_audio", QJsonObject{}}}}}}}
            << "messages[0].content[0].type"
            << "invalid_value"
            << "image_url";
    }
    void refusedParts() {
        QFETCH(QJsonArray, messages);
        QFETCH(QString, param);
        QFETCH(QString, code);
        QFETCH(QString, saying);
        const HttpReply reply = postGemma(gemmaBody(messages));
        const QJsonObject error = badRequestError(reply);
        QVERIFY2(!error.isEmpty(), reply.body.constData());
        QCOMPARE(error["param"].toString(), param);
        QCOMPARE(error["code"].toString(), code);
        QVERIFY2(error["message"].toString().contains(saying), qPrintable(error["message"].toString()));
    }

    // The model finds the damage when it reads the image: still a 400 naming the image, and the
    // server goes on serving.
    void aDamagedImageIs400() {
        const QByteArray png = testImage("grad-56x56.png");
        for (const QByteArray& damaged :
             {png.left(png.size() / 2), QByteArray("\x89PNG\r\n\x1a\nnot really a PNG"),
              QByteArray("plain text")}) {
            const QJsonArray messages{
                QJsonObject{{"role", "user"}, {"content", "Hello."}},
                QJsonObject{{"role", "assistant"}, {"content", "Hi."}},
                QJsonObject{{"role", "user"},
                            {"content", QJsonArray{textPart("Look."), imagePart(dataUrl(png)),
                                                   imagePart(dataUrl(damaged))}}}};
            for (bool stream : {false, true}) {
                const HttpReply reply = postGemma(gemmaBody(messages, {{"stream", stream}}));
                const QJsonObject error = badRequestError(reply);
                QVERIFY2(!error.isEmpty(), reply.body.constData());
                QVERIFY2(error["message"].toString().startsWith(QLatin1String("image 2 of message 3: ")),
                         qPrintable(error["message"].toString()));
            }
            QCOMPARE(replyTo(dataUrl(png)), replyTo(dataUrl(png)));
            QVERIFY(!replyTo(dataUrl(png)).startsWith(QLatin1String("(status")));
        }
    }

    void imagesForAModelWithoutProjectorAre400() {
        const QJsonArray messages =
            askAbout(QStringLiteral("Once upon a time"), {dataUrl(testImage("grad-56x56.png"))});
        for (bool stream : {false, true}) {
            const QByteArray body = chatBody(messages, {{"stream", stream}});
            const HttpReply reply = httpRequest(storiesServer_->port(), "POST", "/v1/chat/completions", body)
                                        .value_or(HttpReply{});
            const QJsonObject error = badRequestError(reply);
            QVERIFY2(!error.isEmpty(), reply.body.constData());
            QVERIFY2(error["message"].toString().startsWith(QLatin1String("this model reads no images")),
                     qPrintable(error["message"].toString()));
        }
        // Text parts alone are plain text to it.
        const HttpReply text = httpRequest(storiesServer_->port(), "POST", "/v1/chat/completions",
                                           chatBody(askAbout(QStringLiteral("Once upon a time"), {})))
                                   .value_or(HttpReply{});
        QCOMPARE(text.status, 200);
        QVERIFY(!replyText(text).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestApiImages)
#include "test_api_images.moc"
