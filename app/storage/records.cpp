#include "app/storage/records.h"
#include <QCryptographicHash>
#include <QHash>
#include <QSet>
#include <QUuid>

namespace hearth::app {

QString roleName(chat::Role role) {
    const std::string_view name = chat::role_name(role);
    return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}

std::optional<chat::Role> roleFromName(const QString& name) {
    return chat::role_from_name(name.toStdString());
}

QList<MessageRecord> chosenPath(const QList<MessageRecord>& tree) {
    QSet<QString> ids;
    for (const MessageRecord& m : tree)
        ids.insert(m.id);
    QHash<QString, QList<qsizetype>> children; // by parent id; "" for the roots
    for (qsizetype i = 0; i < tree.size(); ++i) {
        const QString& parent = tree.at(i).parentId;
        children[ids.contains(parent) ? parent : QString()].append(i);
    }
    QList<MessageRecord> path;
    QString parent;
    while (path.size() < tree.size()) { // a cycle cannot make it longer than the tree
        const auto it = children.constFind(parent);
        if (it == children.constEnd() || it->isEmpty()) break;
        qsizetype chosen = it->constLast();
        for (qsizetype i : *it)
            if (tree.at(i).active) chosen = i;
        path.append(tree.at(chosen));
        parent = tree.at(chosen).id;
    }
    return path;
}

QString messageStateName(MessageState state) {
    switch (state) {
    case MessageState::Complete:
        return QStringLiteral("complete");
    case MessageState::Streaming:
        return QStringLiteral("streaming");
    case MessageState::Stopped:
        return QStringLiteral("stopped");
    case MessageState::Failed:
        return QStringLiteral("failed");
    }
    return QStringLiteral("complete");
}

MessageState messageStateFromName(const QString& name) {
    if (name == QLatin1String("streaming")) return MessageState::Streaming;
    if (name == QLatin1String("stopped")) return MessageState::Stopped;
    if (name == QLatin1String("failed")) return MessageState::Failed;
    return MessageState::Complete;
}

QString newRecordId() {
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

QString imageSha256(const QByteArray& bytes) {
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

} // namespace hearth::app
