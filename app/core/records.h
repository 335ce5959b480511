#pragma once
// Plain rows of the conversation database, shared by the store and the list models.
#include <QDateTime>
#include <QList>
#include <QString>

namespace hearth::app {

struct ConversationRecord {
    QString id; // a UUID, assigned by the GUI so that writes never wait for the database
    QString title;
    QDateTime createdAt;
    QDateTime updatedAt;
};

// How far an assistant reply got: still streaming, finished, stopped by the user, or failed.
enum class MessageState { Complete, Streaming, Stopped, Failed };

struct MessageRecord {
    QString id; // a UUID
    QString conversationId;
    int position = 0; // order within the conversation
    QString role;     // "user" or "assistant"
    QString content;
    MessageState state = MessageState::Complete;
    QDateTime createdAt;
};

QString messageStateName(MessageState state);
MessageState messageStateFromName(const QString& name);
QString newRecordId();

} // namespace hearth::app
