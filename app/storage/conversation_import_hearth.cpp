#include "app/storage/conversation_import_hearth.h"
#include "app/storage/conversation_export_json.h"
#include <QCoreApplication>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

namespace hearth::app {

namespace {
[[noreturn]] void fail(const QString& where, const QString& problem) {
    throw TransferError(where + QStringLiteral(": ") + problem);
}

QString requiredString(const QJsonObject& object, const char* key, const QString& where) {
    const QJsonValue value = object.value(QLatin1String(key));
    if (!value.isString())
        fail(where, ConversationImport::tr("\"%1\" is missing or not a string").arg(QLatin1String(key)));
    return value.toString();
}

// A time field: invalid when absent or null, an error when it is something else.
QDateTime optionalTime(const QJsonObject& object, const char* key, const QString& where) {
    const QJsonValue value = object.value(QLatin1String(key));
    if (value.isUndefined() || value.isNull()) return {};
    const QDateTime time = value.isString() ? parseTime(value.toString()) : QDateTime();
    if (!time.isValid())
        fail(where,
             ConversationImport::tr("\"%1\" is not an ISO 8601 time (such as 2024-05-01T12:00:00.000Z)")
                 .arg(QLatin1String(key)));
    return time;
}

// The message id a field names, or "" for null.
QString optionalId(const QJsonObject& object, const char* key, const QString& where) {
    const QJsonValue value = object.value(QLatin1String(key));
    if (value.isUndefined() || value.isNull()) return {};
    if (!value.isString() || value.toString().isEmpty())
        fail(where,
             ConversationImport::tr("\"%1\" is neither a message id nor null").arg(QLatin1String(key)));
    return value.toString();
}

MessageState stateFrom(const QJsonObject& object, const QString& where) {
    const QJsonValue value = object.value(QLatin1String("state"));
    if (value.isUndefined()) return MessageState::Complete;
    const QString name = value.toString();
    const MessageState state = messageStateFromName(name);
    if (messageStateName(state) != name)
        fail(where,
             ConversationImport::tr("\"state\" is \"%1\", not one of complete, streaming, stopped, failed")
                 .arg(name));
    return state;
}

// The file's pictures (its top-level "images"), by SHA-256, each checked against its bytes.
using Pictures = QHash<QString, QByteArray>;

Pictures readPictures(const QJsonObject& root, const QString& path) {
    Pictures pictures;
    const QJsonValue table = root.value(QLatin1String("images"));
    if (table.isUndefined() || table.isNull()) return pictures;
    if (!table.isObject()) fail(path, ConversationImport::tr("\"images\" is not an object"));
    const QJsonObject entries = table.toObject();
    for (auto it = entries.constBegin(); it != entries.constEnd(); ++it) {
        const QString where = ConversationImport::tr("%1: \"images\", the entry \"%2\"").arg(path, it.key());
        if (!it.value().isString()) fail(where, ConversationImport::tr("not a string of base64"));
        const QByteArray::FromBase64Result decoded = QByteArray::fromBase64Encoding(
            it.value().toString().toLatin1(),
            QByteArray::Base64Encoding | QByteArray::AbortOnBase64DecodingErrors);
        if (!decoded) fail(where, ConversationImport::tr("not valid base64"));
        if (decoded.decoded.isEmpty()) fail(where, ConversationImport::tr("the image has no bytes"));
        const QString sha256 = imageSha256(decoded.decoded);
        if (sha256 != it.key())
            fail(where,
                 ConversationImport::tr("the SHA-256 of its bytes is %1, not the entry's name").arg(sha256));
        pictures.insert(sha256, decoded.decoded);
    }
    return pictures;
}

// A message's "images": each one's name and SHA-256, its bytes from the file's pictures.
QList<MessageImage> readImages(const QJsonObject& message, const QString& where, const Pictures& pictures) {
    const QJsonValue value = message.value(QLatin1String("images"));
    if (value.isUndefined() || value.isNull()) return {};
    if (!value.isArray()) fail(where, ConversationImport::tr("\"images\" is not an array"));
    const QJsonArray list = value.toArray();
    QList<MessageImage> images;
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString imageWhere = where + ConversationImport::tr(", image %1").arg(i + 1);
        if (!list.at(i).isObject()) fail(imageWhere, ConversationImport::tr("not an object"));
        const QJsonObject object = list.at(i).toObject();
        MessageImage image;
        image.name = requiredString(object, "name", imageWhere);
        image.sha256 = requiredString(object, "sha256", imageWhere);
        const auto picture = pictures.constFind(image.sha256);
        if (picture == pictures.constEnd())
            fail(imageWhere,
                 ConversationImport::tr("the file's \"images\" holds no picture with the SHA-256 \"%1\"")
                     .arg(image.sha256));
        image.bytes = *picture;
        images.append(image);
    }
    return images;
}

ImportedNode readMessage(const QJsonValue& value, const QString& where, const Pictures& pictures) {
    if (!value.isObject()) fail(where, ConversationImport::tr("not an object"));
    const QJsonObject object = value.toObject();
    ImportedNode node;
    node.key = requiredString(object, "id", where);
    if (node.key.isEmpty()) fail(where, ConversationImport::tr("\"id\" is empty"));
    node.parentKey = optionalId(object, "parentId", where);
    const QJsonValue active = object.value(QLatin1String("active"));
    if (!active.isUndefined() && !active.isNull()) {
        if (!active.isBool()) fail(where, ConversationImport::tr("\"active\" is not true or false"));
        node.active = active.toBool();
    }
    MessageRecord record;
    const QString role = requiredString(object, "role", where);
    const std::optional<chat::Role> known = roleFromName(role);
    if (!known)
        fail(where,
             ConversationImport::tr("the role \"%1\" is not one of system, user, assistant, tool").arg(role));
    record.role = *known;
    record.content = requiredString(object, "content", where);
    record.state = stateFrom(object, where);
    record.createdAt = optionalTime(object, "createdAt", where);
    const QJsonValue model = object.value(QLatin1String("model"));
    if (!model.isUndefined() && !model.isNull() && !model.isString())
        fail(where, ConversationImport::tr("\"model\" is not a string"));
    record.model = model.toString();
    // A reply's function calls, or the call a tool message answers: kept as the JSON text the
    // chat reads (which shows nothing for a shape it does not know).
    const QJsonValue tool = object.value(QLatin1String("tool"));
    if (tool.isObject())
        record.toolData = QString::fromUtf8(QJsonDocument(tool.toObject()).toJson(QJsonDocument::Compact));
    else if (!tool.isUndefined() && !tool.isNull())
        fail(where, ConversationImport::tr("\"tool\" is not an object"));
    record.images = readImages(object, where, pictures);
    node.message = record;
    return node;
}

ConversationBundle readConversation(const QJsonValue& value, const QString& path, qsizetype index,
                                    const Pictures& pictures) {
    QString where = conversationPlace(path, index, QString());
    if (!value.isObject()) fail(where, ConversationImport::tr("not an object"));
    const QJsonObject object = value.toObject();
    const QString title = requiredString(object, "title", where);
    where = conversationPlace(path, index, title);
    const QJsonValue messagesValue = object.value(QLatin1String("messages"));
    if (!messagesValue.isArray())
        fail(where, ConversationImport::tr("\"messages\" is missing or not an array"));
    const QJsonArray messages = messagesValue.toArray();

    QList<ImportedNode> nodes;
    QSet<QString> ids;
    QString lastId;
    for (qsizetype i = 0; i < messages.size(); ++i) {
        const QString messageWhere = where + ConversationImport::tr(", message %1").arg(i + 1);
        ImportedNode node = readMessage(messages.at(i), messageWhere, pictures);
        if (ids.contains(node.key))
            fail(messageWhere, ConversationImport::tr("the id \"%1\" is used twice").arg(node.key));
        ids.insert(node.key);
        lastId = node.key;
        nodes.append(std::move(node));
    }
    for (const ImportedNode& node : std::as_const(nodes))
        if (!node.parentKey.isEmpty() && !ids.contains(node.parentKey))
            fail(where, ConversationImport::tr("message \"%1\" has the parent \"%2\", which is not there")
                            .arg(node.key, node.parentKey));
    const QJsonValue leafValue = object.value(QLatin1String("currentLeaf"));
    const QString leaf = leafValue.isUndefined() ? lastId : optionalId(object, "currentLeaf", where);
    if (!leaf.isEmpty() && !ids.contains(leaf))
        fail(
            where,
            ConversationImport::tr("\"currentLeaf\" names the message \"%1\", which is not there").arg(leaf));

    ConversationBundle bundle;
    ConversationRecord& c = bundle.conversation;
    c.id = newRecordId();
    c.title = title;
    bundle.messages = messagesOfTree(nodes, leaf, c.id, where);
    c.createdAt = optionalTime(object, "createdAt", where);
    c.updatedAt = optionalTime(object, "updatedAt", where);
    const QDateTime firstTime =
        bundle.messages.isEmpty() ? QDateTime() : bundle.messages.constFirst().createdAt;
    QDateTime lastTime;
    for (const MessageRecord& m : std::as_const(bundle.messages))
        if (m.createdAt.isValid() && (!lastTime.isValid() || m.createdAt > lastTime)) lastTime = m.createdAt;
    if (!c.createdAt.isValid()) c.createdAt = firstTime.isValid() ? firstTime : QDateTime::currentDateTime();
    if (!c.updatedAt.isValid()) c.updatedAt = lastTime.isValid() ? lastTime : c.createdAt;
    for (MessageRecord& m : bundle.messages)
        if (!m.createdAt.isValid()) m.createdAt = c.createdAt;
    return bundle;
}
} // namespace

void readHearthConversations(const QJsonObject& root, const QString& path, const ConversationSink& insert,
                             ImportSummary& summary) {
    const QString format = root.value(QLatin1String("format")).toString();
    if (format != QLatin1String(kHearthFormatName))
        fail(path, ConversationImport::tr("the format \"%1\" is not Hearth's (\"%2\")")
                       .arg(format, QLatin1String(kHearthFormatName)));
    const QJsonValue version = root.value(QLatin1String("version"));
    if (!version.isDouble() || version.toDouble() != double(version.toInt()))
        fail(path, ConversationImport::tr("\"version\" is missing or not a whole number"));
    if (version.toInt() < kHearthFormatTextOnlyVersion || version.toInt() > kHearthFormatVersion)
        fail(path,
             ConversationImport::tr(
                 "version %1 of Hearth's conversation format is not one this Hearth reads (it reads versions "
                 "%2 to %3); a newer Hearth may read it")
                 .arg(version.toInt())
                 .arg(kHearthFormatTextOnlyVersion)
                 .arg(kHearthFormatVersion));
    const QJsonValue conversations = root.value(QLatin1String("conversations"));
    if (!conversations.isArray())
        fail(path, ConversationImport::tr("\"conversations\" is missing or not an array"));
    const Pictures pictures = readPictures(root, path);
    const QJsonArray list = conversations.toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        ConversationBundle bundle = readConversation(list.at(i), path, i, pictures);
        if (bundle.messages.isEmpty()) {
            ++summary.skippedConversations;
            continue;
        }
        insert(bundle);
    }
}

} // namespace hearth::app
