#include "app/server/openai_tools.h"
#include "app/server/openai_protocol.h"
#include "engine/grammar/json_schema_grammar.h"
#include <QJsonDocument>
#include <QRegularExpression>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hearth::server {

namespace {
using ordered_json = nlohmann::ordered_json;
constexpr qsizetype kMaxTools = 128; // as OpenAI

ApiError invalid(const QString& param, const QString& message,
                 const QString& code = QStringLiteral("invalid_value")) {
    return ApiError{400, message, QStringLiteral("invalid_request_error"), param, code};
}

ApiError missing(const QString& param) {
    return invalid(param, QStringLiteral("Missing required parameter: '%1'.").arg(param),
                   QStringLiteral("missing_required_parameter"));
}

ApiError wrongType(const QString& param, const QString& expected) {
    return invalid(param, QStringLiteral("Invalid type for '%1': expected %2.").arg(param, expected),
                   QStringLiteral("invalid_type"));
}

// As OpenAI: letters, digits, underscores and dashes, at most 64.
bool validFunctionName(const QString& name) {
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9_-]{1,64}$"));
    return pattern.match(name).hasMatch();
}

bool knownSchemaType(const QJsonValue& type) {
    static const QStringList known = {"object", "array", "string", "number", "integer", "boolean", "null"};
    if (type.isString()) return known.contains(type.toString());
    if (!type.isArray() || type.toArray().isEmpty()) return false;
    for (const QJsonValue& one : type.toArray())
        if (!one.isString() || !known.contains(one.toString())) return false;
    return true;
}

std::optional<ApiError> readTool(const QJsonValue& value, const QString& param) {
    if (!value.isObject()) return wrongType(param, "an object");
    const QJsonObject tool = value.toObject();
    if (tool.value("type").toString() != QLatin1String("function"))
        return invalid(param + ".type",
                       QStringLiteral("Invalid value for '%1.type': expected 'function'.").arg(param));
    const QJsonValue function = tool.value("function");
    if (function.isUndefined()) return missing(param + ".function");
    if (!function.isObject()) return wrongType(param + ".function", "an object");
    const QJsonValue name = function.toObject().value("name");
    if (name.isUndefined()) return missing(param + ".function.name");
    if (!name.isString()) return wrongType(param + ".function.name", "a string");
    if (!validFunctionName(name.toString()))
        return invalid(
            param + ".function.name",
            QStringLiteral("Invalid value for '%1.function.name': a function name is 1 to 64 letters, "
                           "digits, underscores or dashes.")
                .arg(param));
    const QJsonValue parameters = function.toObject().value("parameters");
    if (!parameters.isUndefined()) {
        if (!parameters.isObject())
            return wrongType(param + ".function.parameters", "an object (a JSON Schema)");
        const QJsonValue type = parameters.toObject().value("type");
        if (!type.isUndefined() && !knownSchemaType(type))
            return invalid(
                param + ".function.parameters.type",
                QStringLiteral("Invalid schema for '%1.function.parameters': 'type' must be object, "
                               "array, string, number, integer, boolean or null.")
                    .arg(param));
    }
    return std::nullopt;
}

ordered_json argumentsAsObject(const QString& text) {
    ordered_json value = ordered_json::parse(text.toStdString(), nullptr, false);
    return value.is_discarded() ? ordered_json(text.toStdString()) : value;
}

QByteArray fieldsOf(const QList<ApiToolCall>& calls) {
    ordered_json list = ordered_json::array();
    for (const ApiToolCall& call : calls)
        list.push_back(
            ordered_json{{"id", call.id.toStdString()},
                         {"type", "function"},
                         {"function", ordered_json{{"name", call.name.toStdString()},
                                                   {"arguments", argumentsAsObject(call.arguments)}}}});
    return QByteArray::fromStdString(
        ordered_json{{"tool_calls", list}}.dump(-1, ' ', false, ordered_json::error_handler_t::replace));
}
} // namespace

std::optional<ApiError> readTools(const QJsonObject& object, const QByteArray& body,
                                  CompletionRequest& request) {
    const QJsonValue tools = object.value("tools");
    const bool hasTools = !tools.isUndefined() && !tools.isNull();
    QStringList names;
    if (hasTools) {
        if (!tools.isArray()) return wrongType("tools", "an array");
        const QJsonArray array = tools.toArray();
        if (array.size() > kMaxTools)
            return invalid("tools", QStringLiteral("'tools' takes at most %1 functions.").arg(kMaxTools));
        for (qsizetype i = 0; i < array.size(); ++i) {
            const QString param = QStringLiteral("tools[%1]").arg(i);
            if (auto error = readTool(array[i], param)) return error;
            const QString name = array[i].toObject().value("function").toObject().value("name").toString();
            if (names.contains(name))
                return invalid(param + ".function.name",
                               QStringLiteral("Invalid value for '%1.function.name': '%2' is the name of an "
                                              "earlier tool too.")
                                   .arg(param, name));
            names.append(name);
        }
    }

    const QJsonValue choice = object.value("tool_choice");
    if (!choice.isUndefined() && !choice.isNull()) {
        if (choice.isString()) {
            const QString text = choice.toString();
            if (text == QLatin1String("auto"))
                request.toolChoice = ToolChoice::Auto;
            else if (text == QLatin1String("none"))
                request.toolChoice = ToolChoice::None;
            else if (text == QLatin1String("required"))
                request.toolChoice = ToolChoice::Required;
            else
                return invalid("tool_choice",
                               "Invalid value for 'tool_choice': expected 'none', 'auto', "
                               "'required' or {\"type\": \"function\", \"function\": {\"name\": ...}}.");
        } else if (choice.isObject()) {
            const QJsonObject named = choice.toObject();
            if (named.value("type").toString() != QLatin1String("function"))
                return invalid("tool_choice.type",
                               "Invalid value for 'tool_choice.type': expected 'function'.");
            const QJsonValue name = named.value("function").toObject().value("name");
            if (!name.isString()) return missing("tool_choice.function.name");
            if (!names.contains(name.toString()))
                return invalid(
                    "tool_choice.function.name",
                    QStringLiteral("Invalid value for 'tool_choice.function.name': no tool is named '%1'.")
                        .arg(name.toString()));
            request.toolChoice = ToolChoice::Function;
            request.forcedTool = name.toString();
        } else {
            return wrongType("tool_choice", "a string or an object");
        }
        if (!hasTools && request.toolChoice != ToolChoice::None)
            return invalid("tool_choice",
                           "Invalid value for 'tool_choice': 'tool_choice' is only allowed when "
                           "'tools' are specified.");
    }
    if (const QJsonValue parallel = object.value("parallel_tool_calls");
        !parallel.isUndefined() && !parallel.isNull()) {
        if (!parallel.isBool()) return wrongType("parallel_tool_calls", "a boolean");
        request.parallelToolCalls = parallel.toBool();
    }
    if (!hasTools || tools.toArray().isEmpty()) {
        if (request.toolChoice == ToolChoice::Required)
            return invalid("tool_choice",
                           "Invalid value for 'tool_choice': 'required' needs at least one tool.");
        return std::nullopt;
    }

    // The tools again, with their schemas' keys in the body's order (a grammar's properties follow it).
    ordered_json ordered;
    try {
        ordered = ordered_json::parse(body.constData(), body.constData() + body.size()).at("tools");
        // A body that names a key twice may be read otherwise here than by Qt: refused, not guessed.
        for (size_t i = 0; i < ordered.size(); ++i)
            if (ordered.at(i).at("function").at("name").get<std::string>() !=
                names.value(static_cast<qsizetype>(i)).toStdString())
                throw std::runtime_error("the tools read differently (is a key given twice?)");
        if (ordered.size() != static_cast<size_t>(names.size()))
            throw std::runtime_error("the tools read differently (is a key given twice?)");
    } catch (const std::exception& e) { // what Qt's reader let through (a number out of range, ...)
        return invalid("tools",
                       QStringLiteral("Invalid value for 'tools': %1").arg(QString::fromUtf8(e.what())));
    }
    request.toolsJson =
        QByteArray::fromStdString(ordered.dump(-1, ' ', false, ordered_json::error_handler_t::replace));
    if (request.toolChoice == ToolChoice::Required || request.toolChoice == ToolChoice::Function) {
        // A forced call needs the schemas as a grammar: one it cannot take is refused now, by name.
        for (size_t i = 0; i < ordered.size(); ++i) {
            const ordered_json& function = ordered[i].at("function");
            if (request.toolChoice == ToolChoice::Function &&
                function.at("name") != request.forcedTool.toStdString())
                continue;
            const std::string param = "tools[" + std::to_string(i) + "].function.parameters";
            try {
                engine::json_schema_to_gbnf(function.contains("parameters")
                                                ? function.at("parameters")
                                                : ordered_json{{"type", "object"}},
                                            param);
            } catch (const std::exception& e) {
                return invalid(QString::fromStdString(param),
                               QStringLiteral("Invalid schema: %1").arg(QString::fromUtf8(e.what())));
            }
        }
    }
    return std::nullopt;
}

std::optional<ApiError> readAssistantToolCalls(const QJsonValue& value, const QString& param,
                                               QByteArray& fields) {
    if (value.isUndefined() || value.isNull()) return std::nullopt;
    if (!value.isArray()) return wrongType(param, "an array");
    QList<ApiToolCall> calls;
    const QJsonArray array = value.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString at = QStringLiteral("%1[%2]").arg(param).arg(i);
        if (!array[i].isObject()) return wrongType(at, "an object");
        const QJsonObject call = array[i].toObject();
        if (!call.value("id").isString()) return missing(at + ".id");
        const QJsonObject function = call.value("function").toObject();
        if (!function.value("name").isString()) return missing(at + ".function.name");
        const QJsonValue arguments = function.value("arguments");
        if (!arguments.isString()) return wrongType(at + ".function.arguments", "a string (JSON text)");
        calls.append({call.value("id").toString(), function.value("name").toString(), arguments.toString()});
    }
    if (!calls.isEmpty()) fields = fieldsOf(calls);
    return std::nullopt;
}

QByteArray toolCallTemplateFields(const QList<ApiToolCall>& calls) {
    return calls.isEmpty() ? QByteArray() : fieldsOf(calls);
}

QJsonArray toolCallsJson(const QList<ApiToolCall>& calls) {
    QJsonArray list;
    for (const ApiToolCall& call : calls)
        list.append(
            QJsonObject{{"id", call.id},
                        {"type", "function"},
                        {"function", QJsonObject{{"name", call.name}, {"arguments", call.arguments}}}});
    return list;
}

QJsonArray toolCallOpeningDelta(int index, const ApiToolCall& call) {
    return QJsonArray{QJsonObject{{"index", index},
                                  {"id", call.id},
                                  {"type", "function"},
                                  {"function", QJsonObject{{"name", call.name}, {"arguments", ""}}}}};
}

QJsonArray toolCallArgumentsDelta(int index, const QString& part) {
    return QJsonArray{QJsonObject{{"index", index}, {"function", QJsonObject{{"arguments", part}}}}};
}

} // namespace hearth::server
