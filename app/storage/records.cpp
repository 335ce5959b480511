#include "app/storage/records.h"
#include <QUuid>

namespace hearth::app {

QString roleName(chat::Role role) {
    const std::string_view name = chat::role_name(role);
    return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}

std::optional<chat::Role> roleFromName(const QString& name) {
    return chat::role_from_name(name.toStdString());
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

} // namespace hearth::app
