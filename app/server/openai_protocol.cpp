#include "app/server/openai_protocol.h"
#include "app/server/openai_content.h"
#include "app/server/openai_tools.h"
#include "engine/grammar/gbnf_parser.h"
#include "engine/grammar/json_schema_grammar.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <cmath>

namespace hearth::server {

namespace {
constexpr int kMaxStopStrings = 4; // as OpenAI
constexpr int kMaxTokensLimit = 1 << 20;

QJsonValue orNull(const QString& text) {
    return text.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(text);
}

QByteArray compact(const QJsonObject& object) {
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

ApiError invalid(const QString& param, const QString& message, const QString& code = QString()) {
    return ApiError{400, message, QStringLiteral("invalid_request_error"), param, code};
}

ApiError wrongType(const QString& param, const QString& expected) {
    return invalid(param, QStringLiteral("Invalid type for '%1': expected %2.").arg(param, expected),
                   QStringLiteral("invalid_type"));
}

std::optional<ApiError> readMessages(const QJsonObject& body, QList<ApiMessage>& messages) {
    const QJsonValue value = body.value("messages");
    if (value.isUndefined())
        return invalid("messages", "Missing required parameter: 'messages'.", "missing_required_parameter");
    if (!value.isArray()) return wrongType("messages", "an array");
    const QJsonArray array = value.toArray();
    if (array.isEmpty())
        return invalid("messages", "'messages' must contain at least one message.", "empty_array");
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString param = QStringLiteral("messages[%1]").arg(i);
        if (!array[i].isObject()) return wrongType(param, "an object");
        const QJsonObject message = array[i].toObject();
        const QString roleText = message.value("role").toString();
        const std::optional<chat::Role> role = roleText == QLatin1String("developer")
                                                   ? chat::Role::System // OpenAI's newer name
                                                   : chat::role_from_name(roleText.toStdString());
        if (!role)
            return invalid(
                param + ".role",
                QStringLiteral("Invalid value for '%1.role': expected 'system', 'developer', 'user', "
                               "'assistant' or 'tool'.")
                    .arg(param),
                "invalid_value");
        MessageContent content;
        if (auto error = readMessageContent(message.value("content"), *role, i, content)) return *error;
        QByteArray fields;
        if (*role == chat::Role::Tool) {
            // A tool's result answers one call of an earlier assistant message, by its id.
            const QJsonValue callId = message.value("tool_call_id");
            if (callId.isUndefined())
                return invalid(param + ".tool_call_id",
                               QStringLiteral("Missing required parameter: '%1.tool_call_id'.").arg(param),
                               "missing_required_parameter");
            if (!callId.isString()) return wrongType(param + ".tool_call_id", "a string");
            fields = QJsonDocument(QJsonObject{{"tool_call_id", callId}}).toJson(QJsonDocument::Compact);
        } else if (*role == chat::Role::Assistant) {
            if (auto error =
                    readAssistantToolCalls(message.value("tool_calls"), param + ".tool_calls", fields))
                return *error;
        }
        messages.append({*role, content.text, fields, std::move(content.images)});
    }
    return std::nullopt;
}

std::optional<ApiError> readNumber(const QJsonObject& body, const QString& name, double low, double high,
                                   double& out) {
    const QJsonValue value = body.value(name);
    if (value.isUndefined() || value.isNull()) return std::nullopt;
    if (!value.isDouble()) return wrongType(name, "a number");
    const double number = value.toDouble();
    if (!(number >= low && number <= high))
        return invalid(name,
                       QStringLiteral("Invalid value for '%1': expected a number from %2 to %3.")
                           .arg(name)
                           .arg(low)
                           .arg(high),
                       "invalid_value");
    out = number;
    return std::nullopt;
}

bool isInteger(const QJsonValue& value) {
    return value.isDouble() && std::isfinite(value.toDouble()) &&
           std::floor(value.toDouble()) == value.toDouble();
}

std::optional<ApiError> readMaxTokens(const QJsonObject& body, int& out) {
    for (const char* name : {"max_completion_tokens", "max_tokens"}) {
        const QJsonValue value = body.value(QLatin1String(name));
        if (value.isUndefined() || value.isNull()) continue;
        if (!isInteger(value)) return wrongType(name, "an integer");
        const double n = value.toDouble();
        if (n < 1 || n > kMaxTokensLimit)
            return invalid(name,
                           QStringLiteral("Invalid value for '%1': expected an integer from 1 to %2.")
                               .arg(QLatin1String(name))
                               .arg(kMaxTokensLimit),
                           "invalid_value");
        out = static_cast<int>(n);
        return std::nullopt;
    }
    return std::nullopt;
}

std::optional<ApiError> readStop(const QJsonObject& body, QStringList& out) {
    const QJsonValue value = body.value("stop");
    if (value.isUndefined() || value.isNull()) return std::nullopt;
    if (value.isString()) {
        if (!value.toString().isEmpty()) out.append(value.toString());
        return std::nullopt;
    }
    if (!value.isArray()) return wrongType("stop", "a string or an array of strings");
    const QJsonArray array = value.toArray();
    if (array.size() > kMaxStopStrings)
        return invalid("stop", QStringLiteral("'stop' takes at most %1 strings.").arg(kMaxStopStrings),
                       "invalid_value");
    for (const QJsonValue& item : array) {
        if (!item.isString()) return wrongType("stop", "a string or an array of strings");
        if (!item.toString().isEmpty()) out.append(item.toString());
    }
    return std::nullopt;
}

std::optional<ApiError> readPrompt(const QJsonObject& body, QString& out) {
    const QJsonValue value = body.value("prompt");
    if (value.isUndefined())
        return invalid("prompt", "Missing required parameter: 'prompt'.", "missing_required_parameter");
    if (value.isString()) {
        out = value.toString();
        return std::nullopt;
    }
    // One prompt in an array is the same request; several would need several choices.
    if (value.isArray() && value.toArray().size() == 1 && value.toArray().first().isString()) {
        out = value.toArray().first().toString();
        return std::nullopt;
    }
    if (value.isArray())
        return invalid("prompt", "Only one prompt per request is supported.", "unsupported_value");
    return wrongType("prompt", "a string");
}
} // namespace

QString errorTypeFor(int status) {
    switch (status) {
    case 401:
        return QStringLiteral("authentication_error");
    case 404:
        return QStringLiteral("not_found_error");
    case 413:
        return QStringLiteral("request_too_large");
    case 503:
        return QStringLiteral("service_unavailable");
    default:
        return status >= 500 ? QStringLiteral("server_error") : QStringLiteral("invalid_request_error");
    }
}

QByteArray errorBody(const ApiError& error) {
    const QJsonObject inner{{"message", error.message},
                            {"type", error.type.isEmpty() ? errorTypeFor(error.status) : error.type},
                            {"param", orNull(error.param)},
                            {"code", orNull(error.code)}};
    return compact(QJsonObject{{"error", inner}});
}

namespace {

// response_format: "text" (free), "json_object" (any JSON object) or "json_schema" (its
// "json_schema"."schema", in the subset json_schema_grammar.h converts; its properties in the
// order the body lists them, so the schema is read from the body again, in order).
std::optional<ApiError> readResponseFormat(const QJsonObject& object, const QByteArray& body,
                                           std::shared_ptr<const engine::Grammar>& grammar) {
    const QJsonValue value = object.value("response_format");
    if (value.isUndefined() || value.isNull()) return std::nullopt;
    if (!value.isObject()) return wrongType("response_format", "an object");
    const QString type = value.toObject().value("type").toString();
    if (type == QLatin1String("text")) return std::nullopt;
    if (type == QLatin1String("json_object")) {
    } else if (type == QLatin1String("json_schema")) {
        const QJsonValue spec = value.toObject().value("json_schema");
        if (!spec.isObject()) return wrongType("response_format.json_schema", "an object");
        if (!spec.toObject().value("schema").isObject())
            return wrongType("response_format.json_schema.schema", "an object (a JSON Schema)");
    } else {
        return invalid(
            "response_format.type",
            "Invalid value for 'response_format.type': expected 'text', 'json_object' or 'json_schema'.",
            "invalid_value");
    }
    try {
        const std::string schema_text =
            type == QLatin1String("json_object")
                ? std::string(R"({"type": "object"})")
                : nlohmann::ordered_json::parse(body.constData(), body.constData() + body.size())
                      .at("response_format")
                      .at("json_schema")
                      .at("schema")
                      .dump();
        grammar = std::make_shared<const engine::Grammar>(engine::parse_gbnf(
            engine::json_schema_to_gbnf(schema_text, "response_format.json_schema.schema")));
    } catch (const std::exception& e) {
        return invalid(
            type == QLatin1String("json_schema") ? "response_format.json_schema.schema" : "response_format",
            QStringLiteral("Invalid schema: %1").arg(QString::fromStdString(e.what())), "invalid_value");
    }
    return std::nullopt;
}

} // namespace

std::variant<ParsedRequest, ApiError> parseRequest(Endpoint endpoint, const QByteArray& body) {
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return invalid(QString(),
                       QStringLiteral("We could not parse the JSON body of your request (%1 at byte %2).")
                           .arg(parseError.errorString())
                           .arg(parseError.offset));
    if (!document.isObject()) return invalid(QString(), "The request body must be a JSON object.");
    const QJsonObject object = document.object();

    ParsedRequest parsed;
    CompletionRequest& request = parsed.completion;
    const QJsonValue model = object.value("model");
    if (model.isUndefined())
        return invalid("model", "Missing required parameter: 'model'.", "missing_required_parameter");
    if (!model.isString()) return wrongType("model", "a string");
    parsed.model = model.toString();

    if (endpoint == Endpoint::ChatCompletions) {
        if (auto error = readMessages(object, request.messages)) return *error;
    } else {
        QString prompt;
        if (auto error = readPrompt(object, prompt)) return *error;
        request.messages.append({chat::Role::User, prompt, {}});
        request.rawPrompt = true;
        request.maxTokens = 16; // OpenAI's default for completions
    }
    if (auto error = readNumber(object, "temperature", 0.0, 2.0, request.temperature)) return *error;
    if (auto error = readNumber(object, "top_p", 0.0, 1.0, request.topP)) return *error;
    const auto given = [&object](const char* key) {
        const QJsonValue value = object.value(QLatin1String(key));
        return !value.isUndefined() && !value.isNull();
    };
    parsed.setsTemperature = given("temperature");
    parsed.setsTopP = given("top_p");
    if (auto error = readMaxTokens(object, request.maxTokens)) return *error;
    if (auto error = readStop(object, request.stop)) return *error;
    if (auto error = readResponseFormat(object, body, request.grammar)) return *error;
    if (endpoint == Endpoint::ChatCompletions)
        if (auto error = readTools(object, body, request)) return *error;

    if (const QJsonValue n = object.value("n"); !n.isUndefined() && !n.isNull()) {
        if (!isInteger(n)) return wrongType("n", "an integer");
        if (n.toDouble() != 1) return invalid("n", "Only n = 1 is supported.", "unsupported_value");
    }
    if (const QJsonValue seed = object.value("seed"); !seed.isUndefined() && !seed.isNull()) {
        if (!isInteger(seed) || std::fabs(seed.toDouble()) > 9.2e18) return wrongType("seed", "an integer");
        parsed.seed = static_cast<quint64>(static_cast<qint64>(seed.toDouble()));
    }
    if (const QJsonValue stream = object.value("stream"); !stream.isUndefined() && !stream.isNull()) {
        if (!stream.isBool()) return wrongType("stream", "a boolean");
        parsed.stream = stream.toBool();
    }
    if (const QJsonValue options = object.value("stream_options");
        !options.isUndefined() && !options.isNull()) {
        if (!options.isObject()) return wrongType("stream_options", "an object");
        if (!parsed.stream)
            return invalid("stream_options", "'stream_options' is only allowed when 'stream' is true.",
                           "invalid_value");
        const QJsonValue include = options.toObject().value("include_usage");
        if (!include.isUndefined() && !include.isBool())
            return wrongType("stream_options.include_usage", "a boolean");
        parsed.includeUsage = include.toBool();
    }
    return parsed;
}

QString finishReasonJson(const QString& finishReason) {
    if (finishReason == QLatin1String("tool_calls")) return finishReason;
    return finishReason == QLatin1String("length") ? QStringLiteral("length") : QStringLiteral("stop");
}

QJsonObject usageJson(const CompletionResult& result) {
    const engine::TurnStats& stats = result.stats;
    return QJsonObject{{"prompt_tokens", stats.prompt_tokens},
                       {"completion_tokens", stats.generated_tokens},
                       {"total_tokens", stats.prompt_tokens + stats.generated_tokens},
                       {"prompt_tokens_details", QJsonObject{{"cached_tokens", stats.reused_tokens}}}};
}

QByteArray chatCompletionJson(const CompletionIdentity& who, const QString& text,
                              const CompletionResult& result) {
    QJsonObject message{{"role", "assistant"}, {"content", text}};
    if (!result.toolCalls.isEmpty()) {
        if (text.trimmed().isEmpty()) message.insert("content", QJsonValue::Null);
        message.insert("tool_calls", toolCallsJson(result.toolCalls));
    }
    const QJsonObject choice{{"index", 0},
                             {"message", message},
                             {"logprobs", QJsonValue::Null},
                             {"finish_reason", finishReasonJson(result.finishReason)}};
    return compact(QJsonObject{{"id", who.id},
                               {"object", "chat.completion"},
                               {"created", who.created},
                               {"model", who.model},
                               {"choices", QJsonArray{choice}},
                               {"usage", usageJson(result)}});
}

QByteArray textCompletionJson(const CompletionIdentity& who, const QString& text,
                              const CompletionResult& result) {
    const QJsonObject choice{{"index", 0},
                             {"text", text},
                             {"logprobs", QJsonValue::Null},
                             {"finish_reason", finishReasonJson(result.finishReason)}};
    return compact(QJsonObject{{"id", who.id},
                               {"object", "text_completion"},
                               {"created", who.created},
                               {"model", who.model},
                               {"choices", QJsonArray{choice}},
                               {"usage", usageJson(result)}});
}

QByteArray chatChunkJson(const CompletionIdentity& who, const QString& role, const QString& content,
                         const QString& finishReason) {
    QJsonObject delta;
    if (!role.isEmpty()) delta.insert("role", role);
    if (!role.isEmpty() || !content.isEmpty()) delta.insert("content", content);
    const QJsonObject choice{{"index", 0},
                             {"delta", delta},
                             {"logprobs", QJsonValue::Null},
                             {"finish_reason", finishReason.isEmpty()
                                                   ? QJsonValue(QJsonValue::Null)
                                                   : QJsonValue(finishReasonJson(finishReason))}};
    return compact(QJsonObject{{"id", who.id},
                               {"object", "chat.completion.chunk"},
                               {"created", who.created},
                               {"model", who.model},
                               {"choices", QJsonArray{choice}}});
}

QByteArray chatToolCallChunkJson(const CompletionIdentity& who, const QJsonArray& toolCalls) {
    const QJsonObject choice{{"index", 0},
                             {"delta", QJsonObject{{"tool_calls", toolCalls}}},
                             {"logprobs", QJsonValue::Null},
                             {"finish_reason", QJsonValue::Null}};
    return compact(QJsonObject{{"id", who.id},
                               {"object", "chat.completion.chunk"},
                               {"created", who.created},
                               {"model", who.model},
                               {"choices", QJsonArray{choice}}});
}

QByteArray textChunkJson(const CompletionIdentity& who, const QString& text, const QString& finishReason) {
    const QJsonObject choice{{"index", 0},
                             {"text", text},
                             {"logprobs", QJsonValue::Null},
                             {"finish_reason", finishReason.isEmpty()
                                                   ? QJsonValue(QJsonValue::Null)
                                                   : QJsonValue(finishReasonJson(finishReason))}};
    return compact(QJsonObject{{"id", who.id},
                               {"object", "text_completion"},
                               {"created", who.created},
                               {"model", who.model},
                               {"choices", QJsonArray{choice}}});
}

QByteArray usageChunkJson(const CompletionIdentity& who, Endpoint endpoint, const CompletionResult& result) {
    return compact(QJsonObject{
        {"id", who.id},
        {"object", endpoint == Endpoint::ChatCompletions ? "chat.completion.chunk" : "text_completion"},
        {"created", who.created},
        {"model", who.model},
        {"choices", QJsonArray{}},
        {"usage", usageJson(result)}});
}

QByteArray modelJson(const QString& model, qint64 created) {
    return compact(
        QJsonObject{{"id", model}, {"object", "model"}, {"created", created}, {"owned_by", "hearth"}});
}

QByteArray modelListJson(const QString& model, qint64 created) {
    QJsonArray data;
    if (!model.isEmpty())
        data.append(
            QJsonObject{{"id", model}, {"object", "model"}, {"created", created}, {"owned_by", "hearth"}});
    return compact(QJsonObject{{"object", "list"}, {"data", data}});
}

} // namespace hearth::server
