#pragma once
// The API server over the real engine (stories260K on its own thread, as in hearth-cli
// serve), listening on a free loopback port, and helpers to write request bodies.
#include "app/server/api_server.h"
#include "app/server/engine_thread_backend.h"
#include "engine/runtime/runtime_config.h"
#include "tests/server/http_test_client.h"
#include "tests/support/test_support.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <memory>

namespace hearth::test {

inline QString storiesModelId() {
    return QStringLiteral("stories260K");
}

inline std::unique_ptr<server::EngineThreadBackend> makeStoriesBackend() {
    engine::RuntimeConfig config;
    config.threads = 1;
    config.context_length = 512;
    return std::make_unique<server::EngineThreadBackend>(testdata("models/stories260K.gguf"), config);
}

inline QJsonArray messages(std::initializer_list<std::pair<const char*, QString>> turns) {
    QJsonArray array;
    for (const auto& [role, content] : turns)
        array.append(QJsonObject{{"role", role}, {"content", content}});
    return array;
}

// A chat request body; `extra` fields are added (or replace the defaults).
inline QByteArray chatBody(const QJsonArray& messages, const QJsonObject& extra = {}) {
    QJsonObject body{
        {"model", storiesModelId()}, {"messages", messages}, {"temperature", 0}, {"max_tokens", 24}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        body.insert(it.key(), it.value());
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

inline QByteArray storyRequest(const QJsonObject& extra = {}) {
    return chatBody(messages({{"user", QStringLiteral("Once upon a time")}}), extra);
}

// The assistant's text of a chat.completion, or the concatenated deltas of a stream.
inline QString replyText(const HttpReply& reply) {
    if (!reply.chunked && reply.header("content-type").startsWith("application/json"))
        return reply.json()["choices"].toArray().first()["message"]["content"].toString();
    QString text;
    for (const QByteArray& event : reply.events()) {
        if (event == "[DONE]") continue;
        const QJsonArray choices = QJsonDocument::fromJson(event).object()["choices"].toArray();
        if (!choices.isEmpty()) text += choices.first()["delta"]["content"].toString();
    }
    return text;
}

} // namespace hearth::test
