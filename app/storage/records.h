#pragma once
// Plain rows of the conversation database, shared by the store and the list models.
#include "engine/chat/chat_role.h"
#include <QDateTime>
#include <QList>
#include <QString>
#include <optional>

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
    chat::Role role = chat::Role::User;
    QString content;
    MessageState state = MessageState::Complete;
    QDateTime createdAt;
    QString model; // the model that wrote a reply (its file's base name); empty for the others
};

// Roles are stored, and shown to QML, by the names the chat templates use (chat::role_name);
// everything else takes the enum. A name no role has (a row the app never wrote) reads as
// nullopt: the database keeps such a row but leaves it out of what it reads (sql_store.h).
QString roleName(chat::Role role);
std::optional<chat::Role> roleFromName(const QString& name);

QString messageStateName(MessageState state);
MessageState messageStateFromName(const QString& name);
QString newRecordId();

} // namespace hearth::app
