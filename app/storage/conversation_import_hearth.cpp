#include "app/storage/conversation_import_hearth.h"
#include "app/storage/conversation_export_json.h"
#include <QCoreApplication>
#include <QJsonArray>

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

struct ReadMessage {
    MessageRecord record;
    QString parentId;
};

ReadMessage readMessage(const QJsonValue& value, const QString& where) {
    if (!value.isObject()) fail(where, ConversationImport::tr("not an object"));
    const QJsonObject object = value.toObject();
    ReadMessage m;
    m.record.id = requiredString(object, "id", where);
    if (m.record.id.isEmpty()) fail(where, ConversationImport::tr("\"id\" is empty"));
    m.parentId = optionalId(object, "parentId", where);
    const QString role = requiredString(object, "role", where);
    const std::optional<chat::Role> known = roleFromName(role);
    if (!known)
        fail(where,
             ConversationImport::tr("the role \"%1\" is not one of system, user, assistant, tool").arg(role));
    m.record.role = *known;
    m.record.content = requiredString(object, "content", where);
    m.record.state = stateFrom(object, where);
    m.record.createdAt = optionalTime(object, "createdAt", where);
    const QJsonValue model = object.value(QLatin1String("model"));
    if (!model.isUndefined() && !model.isNull() && !model.isString())
        fail(where, ConversationImport::tr("\"model\" is not a string"));
    m.record.model = model.toString();
    return m;
}

ConversationBundle readConversation(const QJsonValue& value, const QString& path, qsizetype index,
                                    int& droppedMessages) {
    QString where = conversationPlace(path, index, QString());
    if (!value.isObject()) fail(where, ConversationImport::tr("not an object"));
    const QJsonObject object = value.toObject();
    const QString title = requiredString(object, "title", where);
    where = conversationPlace(path, index, title);
    const QJsonValue messagesValue = object.value(QLatin1String("messages"));
    if (!messagesValue.isArray())
        fail(where, ConversationImport::tr("\"messages\" is missing or not an array"));
    const QJsonArray messages = messagesValue.toArray();

    QHash<QString, ReadMessage> byId;
    QHash<QString, QString> parentOf;
    QString lastId;
    for (qsizetype i = 0; i < messages.size(); ++i) {
        const QString messageWhere = where + ConversationImport::tr(", message %1").arg(i + 1);
        ReadMessage m = readMessage(messages.at(i), messageWhere);
        if (byId.contains(m.record.id))
            fail(messageWhere, ConversationImport::tr("the id \"%1\" is used twice").arg(m.record.id));
        parentOf.insert(m.record.id, m.parentId);
        lastId = m.record.id;
        byId.insert(m.record.id, std::move(m));
    }
    for (auto it = parentOf.cbegin(); it != parentOf.cend(); ++it)
        if (!it.value().isEmpty() && !parentOf.contains(it.value()))
            fail(where, ConversationImport::tr("message \"%1\" has the parent \"%2\", which is not there")
                            .arg(it.key(), it.value()));
    const QJsonValue leafValue = object.value(QLatin1String("currentLeaf"));
    const QString leaf = leafValue.isUndefined() ? lastId : optionalId(object, "currentLeaf", where);
    if (!leaf.isEmpty() && !byId.contains(leaf))
        fail(
            where,
            ConversationImport::tr("\"currentLeaf\" names the message \"%1\", which is not there").arg(leaf));
    const QStringList chain = pathFromRoot(parentOf, leaf, where);
    droppedMessages += int(messages.size() - chain.size());

    ConversationBundle bundle;
    ConversationRecord& c = bundle.conversation;
    c.id = newRecordId();
    c.title = title;
    for (qsizetype position = 0; position < chain.size(); ++position) {
        MessageRecord m = byId.value(chain.at(position)).record;
        m.id = newRecordId();
        m.conversationId = c.id;
        m.position = int(position);
        bundle.messages.append(m);
    }
    c.createdAt = optionalTime(object, "createdAt", where);
    c.updatedAt = optionalTime(object, "updatedAt", where);
    const QDateTime firstTime =
        bundle.messages.isEmpty() ? QDateTime() : bundle.messages.constFirst().createdAt;
    const QDateTime lastTime =
        bundle.messages.isEmpty() ? QDateTime() : bundle.messages.constLast().createdAt;
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
    if (version.toInt() != kHearthFormatVersion)
        fail(path,
             ConversationImport::tr(
                 "version %1 of Hearth's conversation format is not one this Hearth reads (it reads version "
                 "%2); a newer Hearth may read it")
                 .arg(version.toInt())
                 .arg(kHearthFormatVersion));
    const QJsonValue conversations = root.value(QLatin1String("conversations"));
    if (!conversations.isArray())
        fail(path, ConversationImport::tr("\"conversations\" is missing or not an array"));
    const QJsonArray list = conversations.toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        ConversationBundle bundle = readConversation(list.at(i), path, i, summary.droppedMessages);
        if (bundle.messages.isEmpty()) {
            ++summary.skippedConversations;
            continue;
        }
        insert(bundle);
    }
}

} // namespace hearth::app
