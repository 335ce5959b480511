#include "app/storage/conversation_export_json.h"
#include <QJsonArray>
#include <QJsonDocument>

namespace hearth::app {

QString formatTime(const QDateTime& time) {
    return time.isValid() ? time.toUTC().toString(Qt::ISODateWithMs) : QString();
}

QDateTime parseTime(const QString& text) {
    return QDateTime::fromString(text, Qt::ISODateWithMs);
}

namespace {
QJsonValue timeValue(const QDateTime& time) {
    return time.isValid() ? QJsonValue(formatTime(time)) : QJsonValue(QJsonValue::Null);
}

// A message's function calls (MessageRecord::toolData, JSON text) as the JSON object they are;
// null for none (or for text that is no JSON object, which the app never writes).
QJsonValue toolValue(const QString& toolData) {
    if (toolData.isEmpty()) return QJsonValue(QJsonValue::Null);
    const QJsonDocument document = QJsonDocument::fromJson(toolData.toUtf8());
    return document.isObject() ? QJsonValue(document.object()) : QJsonValue(QJsonValue::Null);
}

QJsonObject conversationObject(const ConversationBundle& bundle) {
    QJsonArray messages;
    for (const MessageRecord& m : bundle.messages) {
        QJsonObject message{
            {QStringLiteral("id"), m.id},
            {QStringLiteral("parentId"), m.parentId.isEmpty() ? QJsonValue(QJsonValue::Null) : m.parentId},
            {QStringLiteral("active"), m.active},
            {QStringLiteral("role"), roleName(m.role)},
            {QStringLiteral("content"), m.content},
            {QStringLiteral("state"), messageStateName(m.state)},
            {QStringLiteral("createdAt"), timeValue(m.createdAt)},
            {QStringLiteral("model"), m.model}};
        if (const QJsonValue tool = toolValue(m.toolData); !tool.isNull())
            message.insert(QStringLiteral("tool"), tool);
        messages.append(message);
    }
    const QList<MessageRecord> shown = chosenPath(bundle.messages);
    const QJsonValue leaf = shown.isEmpty() ? QJsonValue(QJsonValue::Null) : shown.constLast().id;
    const ConversationRecord& c = bundle.conversation;
    return QJsonObject{{QStringLiteral("id"), c.id},
                       {QStringLiteral("title"), c.title},
                       {QStringLiteral("createdAt"), timeValue(c.createdAt)},
                       {QStringLiteral("updatedAt"), timeValue(c.updatedAt)},
                       {QStringLiteral("currentLeaf"), leaf},
                       {QStringLiteral("messages"), messages}};
}
} // namespace

QByteArray conversationsToJson(const QList<ConversationBundle>& conversations, const QJsonObject& settings) {
    QJsonArray list;
    for (const ConversationBundle& bundle : conversations)
        list.append(conversationObject(bundle));
    QJsonObject root{{QStringLiteral("format"), QLatin1String(kHearthFormatName)},
                     {QStringLiteral("version"), kHearthFormatVersion},
                     {QStringLiteral("exportedAt"), formatTime(QDateTime::currentDateTimeUtc())},
                     {QStringLiteral("conversations"), list}};
    if (!settings.isEmpty()) root.insert(QStringLiteral("settings"), settings);
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

} // namespace hearth::app
