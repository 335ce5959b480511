#include "app/server/openai_content.h"
#include "app/server/image_data_url.h"
#include "app/server/openai_protocol.h"
#include "engine/vision/chat_image_file.h"
#include <QJsonArray>
#include <QJsonObject>

namespace hearth::server {

namespace {
ApiError invalid(const QString& param, const QString& message, const QString& code) {
    return ApiError{400, message, QStringLiteral("invalid_request_error"), param, code};
}

ApiError wrongType(const QString& param, const QString& expected) {
    return invalid(param, QStringLiteral("Invalid type for '%1': expected %2.").arg(param, expected),
                   QStringLiteral("invalid_type"));
}

// An image_url part's image, named for the engine's messages.
std::optional<ApiError> readImagePart(const QJsonObject& part, const QString& param, qsizetype messageIndex,
                                      std::vector<chat::ChatImage>& images) {
    const QJsonValue imageUrl = part.value("image_url");
    if (!imageUrl.isObject()) return wrongType(param + ".image_url", "an object with a 'url'");
    const QJsonValue url = imageUrl.toObject().value("url");
    if (!url.isString()) return wrongType(param + ".image_url.url", "a string (a data URL)");
    auto image = imageFromDataUrl(url.toString());
    if (const auto* error = std::get_if<DataUrlError>(&image))
        return invalid(param + ".image_url.url", error->message, error->code);
    const std::string name =
        "image " + std::to_string(images.size() + 1) + " of message " + std::to_string(messageIndex + 1);
    images.push_back(vision::chat_image_from_bytes(std::move(std::get<std::vector<uint8_t>>(image)), name));
    return std::nullopt;
}
} // namespace

std::optional<ApiError> readMessageContent(const QJsonValue& value, chat::Role role, qsizetype messageIndex,
                                           MessageContent& content) {
    const QString param = QStringLiteral("messages[%1].content").arg(messageIndex);
    if (value.isString()) {
        content.text = value.toString();
        return std::nullopt;
    }
    if (value.isNull() || value.isUndefined()) return std::nullopt;
    if (!value.isArray()) return wrongType(param, "a string or an array of content parts");
    const QJsonArray parts = value.toArray();
    for (qsizetype i = 0; i < parts.size(); ++i) {
        const QString partParam = QStringLiteral("%1[%2]").arg(param).arg(i);
        if (!parts[i].isObject()) return wrongType(partParam, "an object");
        const QJsonObject part = parts[i].toObject();
        const QString type = part.value("type").toString();
        if (type == QLatin1String("text")) {
            if (!part.value("text").isString()) return wrongType(partParam + ".text", "a string");
            content.text += part.value("text").toString();
        } else if (type == QLatin1String("image_url")) {
            if (role != chat::Role::User)
                return invalid(partParam + ".type",
                               QStringLiteral("Image parts are only allowed in user messages, not in '%1' "
                                              "messages.")
                                   .arg(QLatin1String(chat::role_name(role))),
                               QStringLiteral("invalid_value"));
            if (auto error = readImagePart(part, partParam, messageIndex, content.images)) return error;
        } else {
            return invalid(
                partParam + ".type",
                QStringLiteral("Invalid value for '%1.type': expected 'text' or 'image_url'.").arg(partParam),
                QStringLiteral("invalid_value"));
        }
    }
    return std::nullopt;
}

} // namespace hearth::server
