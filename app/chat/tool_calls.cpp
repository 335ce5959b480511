#include "app/chat/tool_calls.h"
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace hearth::app {

namespace {
ToolCallStatus statusFromName(const QString& name) {
    if (name == QLatin1String("running")) return ToolCallStatus::Running;
    if (name == QLatin1String("done")) return ToolCallStatus::Done;
    if (name == QLatin1String("denied")) return ToolCallStatus::Denied;
    if (name == QLatin1String("failed")) return ToolCallStatus::Failed;
    return ToolCallStatus::Pending;
}

QJsonObject argumentsObject(const QString& arguments) {
    return QJsonDocument::fromJson(arguments.toUtf8()).object();
}

QString compact(const QJsonObject& object) {
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}
} // namespace

QString toolCallStatusName(ToolCallStatus status) {
    switch (status) {
    case ToolCallStatus::Pending:
        return QStringLiteral("pending");
    case ToolCallStatus::Running:
        return QStringLiteral("running");
    case ToolCallStatus::Done:
        return QStringLiteral("done");
    case ToolCallStatus::Denied:
        return QStringLiteral("denied");
    case ToolCallStatus::Failed:
        return QStringLiteral("failed");
    }
    return QStringLiteral("pending");
}

QString toolCallsToJson(const QList<ToolCallRecord>& calls) {
    QJsonArray list;
    for (const ToolCallRecord& c : calls)
        list.append(QJsonObject{{"id", c.id},
                                {"function", c.function},
                                {"server", c.server},
                                {"tool", c.tool},
                                {"arguments", c.arguments},
                                {"status", toolCallStatusName(c.status)}});
    return compact(QJsonObject{{"calls", list}});
}

QList<ToolCallRecord> toolCallsFromJson(const QString& json) {
    QList<ToolCallRecord> calls;
    if (json.isEmpty()) return calls;
    for (const QJsonValue& item : QJsonDocument::fromJson(json.toUtf8()).object().value("calls").toArray()) {
        const QJsonObject o = item.toObject();
        calls.append({o.value("id").toString(), o.value("function").toString(), o.value("server").toString(),
                      o.value("tool").toString(), o.value("arguments").toString(),
                      statusFromName(o.value("status").toString())});
    }
    return calls;
}

QString toolResultToJson(const ToolResultRecord& r) {
    return compact(QJsonObject{{"result", QJsonObject{{"callId", r.callId},
                                                      {"function", r.function},
                                                      {"server", r.server},
                                                      {"tool", r.tool},
                                                      {"isError", r.isError},
                                                      {"truncated", r.truncated}}}});
}

ToolResultRecord toolResultFromJson(const QString& json) {
    const QJsonObject o = QJsonDocument::fromJson(json.toUtf8()).object().value("result").toObject();
    return {o.value("callId").toString(), o.value("function").toString(), o.value("server").toString(),
            o.value("tool").toString(),   o.value("isError").toBool(),    o.value("truncated").toBool()};
}

QByteArray replyTemplateFields(const QList<ToolCallRecord>& calls) {
    if (calls.isEmpty()) return {};
    QJsonArray list;
    for (const ToolCallRecord& c : calls)
        list.append(QJsonObject{
            {"id", c.id},
            {"type", "function"},
            {"function", QJsonObject{{"name", c.function}, {"arguments", argumentsObject(c.arguments)}}}});
    return QJsonDocument(QJsonObject{{"tool_calls", list}}).toJson(QJsonDocument::Compact);
}

QByteArray resultTemplateFields(const ToolResultRecord& r) {
    return QJsonDocument(QJsonObject{{"tool_call_id", r.callId}, {"name", r.function}})
        .toJson(QJsonDocument::Compact);
}

QString truncatedToolResult(const QString& text, bool* truncated) {
    *truncated = text.size() > kMaxToolResultChars;
    if (!*truncated) return text;
    return text.left(kMaxToolResultChars) +
           QCoreApplication::translate(
               "hearth::app::ToolCalls",
               "\n\n[Hearth cut this result: it shows the first %1 of %2 characters.]")
               .arg(kMaxToolResultChars)
               .arg(text.size());
}

QVariantList toolCallsForView(const QString& json) {
    QVariantList calls;
    for (const ToolCallRecord& c : toolCallsFromJson(json)) {
        const QJsonDocument arguments = QJsonDocument::fromJson(c.arguments.toUtf8());
        calls.append(QVariantMap{
            {"id", c.id},
            {"server", c.server},
            {"tool", c.tool.isEmpty() ? c.function : c.tool},
            {"function", c.function},
            {"arguments", arguments.isObject()
                              ? QString::fromUtf8(arguments.toJson(QJsonDocument::Indented)).trimmed()
                              : c.arguments},
            {"status", toolCallStatusName(c.status)}});
    }
    return calls;
}

QVariantMap toolResultForView(const QString& json) {
    if (json.isEmpty()) return {};
    const ToolResultRecord r = toolResultFromJson(json);
    if (r.callId.isEmpty() && r.function.isEmpty()) return {};
    return {{"server", r.server},
            {"tool", r.tool.isEmpty() ? r.function : r.tool},
            {"function", r.function},
            {"isError", r.isError},
            {"truncated", r.truncated}};
}

} // namespace hearth::app
