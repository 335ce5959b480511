#pragma once
// Images in API requests, for the server tests: tiny-gemma3 and its image projector (the test
// data's vision model), the test images, and request bodies with OpenAI's image_url content parts
// holding base64 data URLs.
#include "tests/server/api_fixture.h"
#include <QFile>
#include <QJsonArray>
#include <QStringList>

namespace hearth::test {

inline QString gemmaModelId() {
    return QStringLiteral("tiny-gemma3");
}
inline QString gemmaModelPath() {
    return QString::fromStdString(testdata("models/tiny-gemma3.gguf"));
}
inline QString gemmaProjectorPath() {
    return QString::fromStdString(testdata("vision/mmproj-tiny-gemma3-f32.gguf"));
}

// A file of ../shared/testdata/vision/images ("grad-56x56.png", "rings-30x42.png", "shapes-96x64.png").
inline QByteArray testImage(const char* name) {
    QFile file(QString::fromStdString(testdata(std::string("vision/images/") + name)));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

inline QString dataUrl(const QByteArray& bytes, const QString& mediaType = QStringLiteral("image/png")) {
    return QStringLiteral("data:%1;base64,%2").arg(mediaType, QString::fromLatin1(bytes.toBase64()));
}

inline QJsonObject imagePart(const QString& url) {
    return QJsonObject{{"type", "image_url"}, {"image_url", QJsonObject{{"url", url}, {"detail", "low"}}}};
}

inline QJsonObject textPart(const QString& text) {
    return QJsonObject{{"type", "text"}, {"text", text}};
}

// One user message: its text, then its images, as OpenAI's clients send them.
inline QJsonArray askAbout(const QString& text, const QStringList& imageUrls) {
    QJsonArray parts{textPart(text)};
    for (const QString& url : imageUrls)
        parts.append(imagePart(url));
    return QJsonArray{QJsonObject{{"role", "user"}, {"content", parts}}};
}

// A greedy chat request of 8 tokens to tiny-gemma3; `extra` fields are added (or replace these).
inline QByteArray gemmaBody(const QJsonArray& messages, const QJsonObject& extra = {}) {
    QJsonObject body{
        {"model", gemmaModelId()}, {"messages", messages}, {"temperature", 0}, {"max_tokens", 8}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        body.insert(it.key(), it.value());
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

} // namespace hearth::test
