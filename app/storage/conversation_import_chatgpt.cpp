#include "app/storage/conversation_import_chatgpt.h"
#include <QCoreApplication>
#include <QJsonObject>
#include <QSet>
#include <algorithm>
#include <cmath>

namespace hearth::app {

namespace {
[[noreturn]] void fail(const QString& where, const QString& problem) {
    throw TransferError(where + QStringLiteral(": ") + problem);
}

// ChatGPT's times are seconds since 1970, with a fraction; null or absent: invalid.
QDateTime timeFrom(const QJsonValue& value) {
    if (!value.isDouble() || !std::isfinite(value.toDouble()) || value.toDouble() <= 0) return {};
    return QDateTime::fromMSecsSinceEpoch(std::llround(value.toDouble() * 1000.0), Qt::UTC);
}

// The text a message shows, "" when it has none Hearth can show.
QString textOf(const QJsonObject& content) {
    const QString type = content.value(QLatin1String("content_type")).toString();
    if (type == QLatin1String("code")) {
        const QString code = content.value(QLatin1String("text")).toString();
        return code.trimmed().isEmpty() ? QString()
                                        : QStringLiteral("```\n") + code + QStringLiteral("\n```");
    }
    if (type != QLatin1String("text") && type != QLatin1String("multimodal_text")) return {};
    QStringList parts;
    for (const QJsonValue& part : content.value(QLatin1String("parts")).toArray())
        if (part.isString() && !part.toString().trimmed().isEmpty()) parts.append(part.toString());
    return parts.join(QStringLiteral("\n\n")); // images and other attachments are left out
}

// The message of a node that Hearth keeps: a user's or the assistant's, with text, not hidden.
std::optional<MessageRecord> shownMessage(const QJsonObject& node) {
    const QJsonObject message = node.value(QLatin1String("message")).toObject();
    if (message.isEmpty()) return std::nullopt;
    const QString role =
        message.value(QLatin1String("author")).toObject().value(QLatin1String("role")).toString();
    MessageRecord m;
    if (role == QLatin1String("user"))
        m.role = chat::Role::User;
    else if (role == QLatin1String("assistant"))
        m.role = chat::Role::Assistant;
    else
        return std::nullopt; // system prompts, tools' output
    const QJsonObject metadata = message.value(QLatin1String("metadata")).toObject();
    if (metadata.value(QLatin1String("is_visually_hidden_from_conversation")).toBool()) return std::nullopt;
    m.content = textOf(message.value(QLatin1String("content")).toObject());
    if (m.content.trimmed().isEmpty()) return std::nullopt;
    m.createdAt = timeFrom(message.value(QLatin1String("create_time")));
    if (m.role == chat::Role::Assistant) m.model = metadata.value(QLatin1String("model_slug")).toString();
    return m;
}

// The conversation read from one element, or nullopt when it shows no message.
std::optional<ConversationBundle> readConversation(const QJsonValue& value, const QString& path,
                                                   qsizetype index) {
    QString where = conversationPlace(path, index, QString());
    if (!value.isObject()) fail(where, ConversationImport::tr("not an object"));
    const QJsonObject object = value.toObject();
    const QString title = object.value(QLatin1String("title")).toString();
    where = conversationPlace(path, index, title);
    const QJsonValue mappingValue = object.value(QLatin1String("mapping"));
    if (!mappingValue.isObject())
        fail(where, ConversationImport::tr("\"mapping\" is missing or not an object"));
    const QJsonObject mapping = mappingValue.toObject();
    const QJsonValue current = object.value(QLatin1String("current_node"));
    if (!current.isString() || !mapping.contains(current.toString()))
        fail(where, ConversationImport::tr("\"current_node\" names no node of \"mapping\""));

    // Every node, each message's versions (edits, regenerated replies) kept as branches; siblings
    // in the order they were written (the mapping's keys have no order of their own).
    QList<ImportedNode> nodes;
    for (auto it = mapping.constBegin(); it != mapping.constEnd(); ++it) {
        if (!it.value().isObject())
            fail(where, ConversationImport::tr("the node \"%1\" is not an object").arg(it.key()));
        const QJsonValue parent = it.value().toObject().value(QLatin1String("parent"));
        if (!parent.isNull() && !parent.isUndefined() && !parent.isString())
            fail(where,
                 ConversationImport::tr("the node \"%1\" has a parent that is not a node id").arg(it.key()));
        ImportedNode node;
        node.key = it.key();
        node.parentKey = parent.toString();
        node.message = shownMessage(it.value().toObject());
        nodes.append(std::move(node));
    }
    for (ImportedNode& node : nodes) // a parent the export left out: the node starts a tree
        if (!mapping.contains(node.parentKey)) node.parentKey.clear();
    std::stable_sort(nodes.begin(), nodes.end(), [](const ImportedNode& a, const ImportedNode& b) {
        const qint64 at = a.message ? a.message->createdAt.toMSecsSinceEpoch() : 0;
        const qint64 bt = b.message ? b.message->createdAt.toMSecsSinceEpoch() : 0;
        return at < bt;
    });

    ConversationBundle bundle;
    ConversationRecord& c = bundle.conversation;
    c.id = newRecordId();
    c.title = title.trimmed().isEmpty() ? ConversationImport::tr("ChatGPT conversation") : title;
    c.createdAt = timeFrom(object.value(QLatin1String("create_time")));
    c.updatedAt = timeFrom(object.value(QLatin1String("update_time")));
    bundle.messages = messagesOfTree(nodes, current.toString(), c.id, where);
    if (bundle.messages.isEmpty()) return std::nullopt;

    if (!c.createdAt.isValid()) c.createdAt = bundle.messages.constFirst().createdAt;
    if (!c.createdAt.isValid()) c.createdAt = QDateTime::currentDateTimeUtc();
    QHash<QString, QDateTime> timeOf;
    QDateTime latest = c.createdAt;
    for (MessageRecord& m : bundle.messages) { // a message without a time takes its parent's
        if (!m.createdAt.isValid()) m.createdAt = timeOf.value(m.parentId, c.createdAt);
        timeOf.insert(m.id, m.createdAt);
        latest = std::max(latest, m.createdAt);
    }
    if (!c.updatedAt.isValid()) c.updatedAt = latest;
    return bundle;
}
} // namespace

void readChatGptConversations(const QJsonArray& conversations, const QString& path,
                              const ConversationSink& insert, ImportSummary& summary) {
    for (qsizetype i = 0; i < conversations.size(); ++i) {
        const std::optional<ConversationBundle> bundle = readConversation(conversations.at(i), path, i);
        if (bundle)
            insert(*bundle);
        else
            ++summary.skippedConversations;
    }
}

} // namespace hearth::app
