#pragma once
// Records of messages that show images, for the storage suites (the database and the files).
#include "app/storage/records.h"
#include <QDateTime>

namespace hearth::test {

inline app::MessageImage picture(const QString& name, const QByteArray& bytes) {
    return {app::imageSha256(bytes), name, bytes};
}

// A message at `position` of `conversation`, written at a time that follows its position.
inline app::MessageRecord message(const QString& conversation, int position, chat::Role role,
                                  const QString& content, const QList<app::MessageImage>& images = {},
                                  const QString& parent = {}) {
    app::MessageRecord m;
    m.id = app::newRecordId();
    m.conversationId = conversation;
    m.position = position;
    m.role = role;
    m.content = content;
    m.createdAt = QDateTime::fromMSecsSinceEpoch(1714564800000 + position * 1000);
    m.parentId = parent;
    m.images = images;
    return m;
}

} // namespace hearth::test
