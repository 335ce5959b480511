#include "app/core/records.h"
#include <QUuid>

namespace hearth::app {

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
