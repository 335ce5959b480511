#pragma once
// Plain rows of the conversation database, shared by the store and the list models.
#include "engine/chat/chat_role.h"
#include <QByteArray>
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
// An image a message shows: its file's bytes (PNG, JPEG or WebP, as they were dropped, pasted
// or picked), their SHA-256 (the database stores each picture once, under it), and the name it came
// with ("pasted image" when it has none).
struct MessageImage {
    QString sha256;
    QString name;
    QByteArray bytes;
};

enum class MessageState { Complete, Streaming, Stopped, Failed };

struct MessageRecord {
    QString id; // a UUID
    QString conversationId;
    // Order within the conversation, by when it was written: a message comes after its parent.
    int position = 0;
    chat::Role role = chat::Role::User;
    QString content;
    MessageState state = MessageState::Complete;
    QDateTime createdAt;
    QString model; // the model that wrote a reply (its file's base name); empty for the others
    // The message this one answers or follows; empty for the first of a conversation. Messages
    // form a tree: editing a message or regenerating a reply adds a sibling (a branch).
    QString parentId;
    // Whether this is the chosen one among its siblings: the conversation shows, from the first
    // message down, each message's chosen child (chosenPath).
    bool active = true;
    // Function calls, as JSON text (app/chat/tool_calls.h): on a reply, the tools it called and
    // what became of each call; on a tool message (role tool), the call it answers. Empty: none.
    QString toolData;
    // The images the message shows, in order (a user's message; the model reads them before its text).
    // Stored with the message when it is first saved, each picture once (message_image_store.h);
    // later saves of the message keep them as they are.
    QList<MessageImage> images;
};

// Roles are stored, and shown to QML, by the names the chat templates use (chat::role_name);
// everything else takes the enum. A name no role has (a row the app never wrote) reads as
// nullopt: the database keeps such a row but leaves it out of what it reads (sql_store.h).
QString roleName(chat::Role role);
std::optional<chat::Role> roleFromName(const QString& name);

// The conversation as it is shown: from the root, at each message its chosen child (the last
// active one among its siblings, or the last sibling when none is), down to a leaf. `tree` lists
// parents before children, siblings in the order they were written; a parent id that names no
// message in it counts as a root.
QList<MessageRecord> chosenPath(const QList<MessageRecord>& tree);

QString messageStateName(MessageState state);
MessageState messageStateFromName(const QString& name);
QString newRecordId();

// The SHA-256 of an image's bytes as MessageImage::sha256 holds it: 64 lowercase hex digits.
QString imageSha256(const QByteArray& bytes);

} // namespace hearth::app
