#include "app/storage/conversation_import.h"
#include "app/storage/conversation_export_json.h"
#include "app/storage/conversation_import_chatgpt.h"
#include "app/storage/conversation_import_hearth.h"
#include "app/storage/sql_store.h"
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

namespace hearth::app {

namespace {
// Decimal megabytes, as every size the app shows.
QString megabytes(qint64 bytes) {
    return QString::number(double(bytes) / 1e6, 'f', bytes % 1000000 == 0 ? 0 : 1);
}

// "line L, column C" of a byte offset into UTF-8 text; the column counts characters.
QString lineAndColumn(const QByteArray& data, qsizetype offset) {
    offset = std::clamp<qsizetype>(offset, 0, data.size());
    const qsizetype lineStart = data.lastIndexOf('\n', offset - 1) + 1;
    const qsizetype line = data.left(lineStart).count('\n') + 1;
    const qsizetype column = QString::fromUtf8(data.mid(lineStart, offset - lineStart)).size() + 1;
    return ConversationImport::tr("line %1, column %2").arg(line).arg(column);
}

QJsonDocument readJson(const QString& path, qint64 maxBytes) {
    const QFileInfo info(path);
    if (!info.exists()) throw TransferError(ConversationImport::tr("%1: no such file").arg(path));
    if (info.size() > maxBytes)
        throw TransferError(ConversationImport::tr("%1 is %2 MB: too big to import (at most %3 MB)")
                                .arg(path, megabytes(info.size()), megabytes(maxBytes)));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw TransferError(ConversationImport::tr("%1: cannot read: %2").arg(path, file.errorString()));
    const QByteArray data = file.read(maxBytes + 1); // a file that grew since is still refused
    if (data.size() > maxBytes)
        throw TransferError(
            ConversationImport::tr("%1: too big to import (at most %2 MB)").arg(path, megabytes(maxBytes)));
    if (data.trimmed().isEmpty())
        throw TransferError(ConversationImport::tr("%1: the file is empty").arg(path));
    QJsonParseError error;
    QJsonDocument document = QJsonDocument::fromJson(data, &error);
    if (error.error != QJsonParseError::NoError)
        throw TransferError(ConversationImport::tr("%1: %2: not valid JSON: %3")
                                .arg(path, lineAndColumn(data, error.offset), error.errorString()));
    return document;
}
} // namespace

QString conversationPlace(const QString& path, qsizetype index, const QString& title) {
    return title.isEmpty() ? ConversationImport::tr("%1: conversation %2").arg(path).arg(index + 1)
                           : ConversationImport::tr("%1: conversation %2 (\"%3\")")
                                 .arg(path)
                                 .arg(index + 1)
                                 .arg(title.left(60));
}

QList<MessageRecord> messagesOfTree(const QList<ImportedNode>& nodes, const QString& leafKey,
                                    const QString& conversationId, const QString& where) {
    QHash<QString, qsizetype> byKey;
    for (qsizetype i = 0; i < nodes.size(); ++i)
        byKey.insert(nodes.at(i).key, i);
    // Each node's nearest ancestor with a message ("" for none) and its depth among those.
    QHash<QString, QString> shownParent;
    QHash<QString, int> depth;
    for (const ImportedNode& node : nodes) {
        QStringList walk; // from the node up, until an ancestor already known or the root
        QString key = node.key;
        while (!key.isEmpty() && !shownParent.contains(key)) {
            if (!byKey.contains(key))
                throw TransferError(
                    ConversationImport::tr("%1: no message has the id \"%2\"").arg(where, key));
            if (walk.size() >= nodes.size())
                throw TransferError(
                    ConversationImport::tr("%1: the messages' parents make a cycle through \"%2\"")
                        .arg(where, key));
            walk.append(key);
            key = nodes.at(byKey.value(key)).parentKey;
        }
        for (auto it = walk.crbegin(); it != walk.crend(); ++it) { // from the top down
            const ImportedNode& n = nodes.at(byKey.value(*it));
            const QString& parent = n.parentKey;
            const bool parentShown = !parent.isEmpty() && nodes.at(byKey.value(parent)).message;
            const QString above = parent.isEmpty() ? QString()
                                  : parentShown    ? parent
                                                   : shownParent.value(parent);
            shownParent.insert(*it, above);
            depth.insert(*it, above.isEmpty() ? 0 : depth.value(above) + 1);
        }
    }
    // Parents before children; among siblings the order of the file.
    QList<qsizetype> order;
    for (qsizetype i = 0; i < nodes.size(); ++i)
        if (nodes.at(i).message) order.append(i);
    std::stable_sort(order.begin(), order.end(), [&](qsizetype a, qsizetype b) {
        return depth.value(nodes.at(a).key) < depth.value(nodes.at(b).key);
    });
    // The chosen child of each parent: on the path to the leaf, else the file's, else the last.
    QHash<QString, QString> chosen;
    for (qsizetype i : order) {
        const ImportedNode& n = nodes.at(i);
        const QString parent = shownParent.value(n.key);
        if (!chosen.contains(parent) || n.active.value_or(true)) chosen.insert(parent, n.key);
    }
    QString key = leafKey.isEmpty() || !byKey.contains(leafKey) || nodes.at(byKey.value(leafKey)).message
                      ? leafKey
                      : shownParent.value(leafKey);
    while (!key.isEmpty()) {
        const QString parent = shownParent.value(key);
        chosen.insert(parent, key);
        key = parent;
    }
    QHash<QString, QString> newId;
    QList<MessageRecord> messages;
    for (qsizetype i : order) {
        const ImportedNode& n = nodes.at(i);
        MessageRecord m = *n.message;
        m.id = newRecordId();
        newId.insert(n.key, m.id);
        m.conversationId = conversationId;
        m.position = int(messages.size());
        const QString parent = shownParent.value(n.key);
        m.parentId = parent.isEmpty() ? QString() : newId.value(parent);
        m.active = chosen.value(parent) == n.key;
        messages.append(m);
    }
    return messages;
}

ImportSummary importConversations(SqlStore& store, const QString& path, qint64 maxBytes) {
    const QJsonDocument document = readJson(path, maxBytes);
    ImportSummary summary;
    const ConversationSink insert = [&store, &summary](const ConversationBundle& bundle) {
        store.insertConversation(bundle.conversation, bundle.messages);
        ++summary.conversations;
        summary.messages += int(bundle.messages.size());
    };
    // Each conversation is inserted as soon as it is read: one found bad later rolls back all.
    store.inTransaction([&] {
        if (document.isArray()) {
            summary.format = QStringLiteral("ChatGPT");
            readChatGptConversations(document.array(), path, insert, summary);
        } else if (document.object().contains(QLatin1String("format"))) {
            summary.format = QStringLiteral("Hearth");
            readHearthConversations(document.object(), path, insert, summary);
        } else {
            throw TransferError(
                ConversationImport::tr(
                    "%1: neither a Hearth conversation file (an object with \"format\": \"%2\") "
                    "nor ChatGPT's conversations.json (an array of conversations)")
                    .arg(path, QLatin1String(kHearthFormatName)));
        }
        if (summary.conversations == 0)
            throw TransferError(
                ConversationImport::tr("%1: the file holds no conversation to import").arg(path));
    });
    return summary;
}

} // namespace hearth::app
