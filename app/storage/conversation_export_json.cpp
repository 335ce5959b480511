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

// A message's images as the file lists them: name and SHA-256, the bytes going into `pictures`.
QJsonArray imagesValue(const QList<MessageImage>& images, QJsonObject& pictures) {
    QJsonArray list;
    for (const MessageImage& image : images) {
        list.append(
            QJsonObject{{QStringLiteral("name"), image.name}, {QStringLiteral("sha256"), image.sha256}});
        if (!pictures.contains(image.sha256))
            pictures.insert(image.sha256, QString::fromLatin1(image.bytes.toBase64()));
    }
    return list;
}

QJsonObject conversationObject(const ConversationBundle& bundle, QJsonObject& pictures) {
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
        if (!m.images.isEmpty()) message.insert(QStringLiteral("images"), imagesValue(m.images, pictures));
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
    QJsonObject pictures; // by SHA-256
    for (const ConversationBundle& bundle : conversations)
        list.append(conversationObject(bundle, pictures));
    // The first version where it says all: a file without images stays readable by every Hearth.
    const int version = pictures.isEmpty() ? kHearthFormatTextOnlyVersion : kHearthFormatVersion;
    QJsonObject root{{QStringLiteral("format"), QLatin1String(kHearthFormatName)},
                     {QStringLiteral("version"), version},
                     {QStringLiteral("exportedAt"), formatTime(QDateTime::currentDateTimeUtc())},
                     {QStringLiteral("conversations"), list}};
    if (!settings.isEmpty()) root.insert(QStringLiteral("settings"), settings);
    if (!pictures.isEmpty()) root.insert(QStringLiteral("images"), pictures);
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

} // namespace hearth::app
