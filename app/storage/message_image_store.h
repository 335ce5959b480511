#pragma once
// The images messages show, in the conversation database. Each picture is stored once, under the
// SHA-256 of its bytes (table images: sha256, bytes); each message lists its pictures in order,
// with the names they came with (table message_images: message_id, position, sha256, name).
// Deleting a message, or its conversation, deletes its links (ON DELETE CASCADE), and a trigger
// deletes a picture that no link names any more. Tables of their own, created with the store's
// schema (CREATE ... IF NOT EXISTS: a database written before messages carried images gains them,
// empty, and loses nothing), reached through an open SqlStore on the database thread.
#include "app/storage/records.h"
#include <QHash>
#include <QList>
#include <QString>

namespace hearth::app {

class SqlStore;

// A conversation's images, by message id, each message's in order.
using ImagesByMessage = QHash<QString, QList<MessageImage>>;

class MessageImageStore {
public:
    // Queries run on the store's connection, as its own do (SqlStore::runQuery).
    explicit MessageImageStore(const SqlStore& store) : store_(store) {}

    // The tables, their index and the trigger that deletes unused pictures (SqlStore's schema).
    void createTables();

    // The images of every message of the conversation, the rows messages() leaves out too (with
    // their bytes). Empty for a file written before messages carried images (opened read-only).
    [[nodiscard]] ImagesByMessage imagesOfConversation(const QString& conversationId) const;

    // Stores the message's images, in order, with the message (a message's images are written
    // once, when the message is). A picture already stored under its SHA-256 is not written again.
    // Throws StoreError naming the image when it has no bytes or its sha256 is not their SHA-256;
    // an empty sha256 is computed.
    void addImages(const QString& messageId, const QList<MessageImage>& images) const;

private:
    [[nodiscard]] bool hasTables() const; // false in a file written before them (read-only)
    const SqlStore& store_;
};

} // namespace hearth::app
