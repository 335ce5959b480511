#pragma once
// A message's "content" in OpenAI's shapes: a string, null, or an array of parts. Text parts
// ({"type": "text", "text": …}) are joined in order; image parts ({"type": "image_url",
// "image_url": {"url": "data:image/png;base64,…", "detail": …}}) are taken on user messages only,
// as data URLs only (image_data_url.h), and "detail" is ignored (the model's projector fixes the
// resolution). Each image is named "image K of message N" (both counted from 1), the name the
// engine gives a damaged one in its error.
#include "engine/chat/chat_image.h"
#include "engine/chat/chat_role.h"
#include <QJsonValue>
#include <QString>
#include <optional>
#include <vector>

namespace hearth::server {

struct ApiError;

struct MessageContent {
    QString text;
    std::vector<chat::ChatImage> images; // in the order of their parts
};

// Reads messages[messageIndex].content of a message with `role` into `content`; an ApiError (status
// 400, naming the part) says what is wrong.
std::optional<ApiError> readMessageContent(const QJsonValue& value, chat::Role role, qsizetype messageIndex,
                                           MessageContent& content);

} // namespace hearth::server
