#include "app/storage/message_image_store.h"
#include "app/storage/sql_store.h"
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QVariant>

namespace hearth::app {

void MessageImageStore::createTables() {
    QSqlQuery query(store_.database());
    const auto exec = [&](const QString& sql) {
        query.prepare(sql);
        store_.runQuery(query);
    };
    exec(QStringLiteral("CREATE TABLE IF NOT EXISTS images(sha256 TEXT PRIMARY KEY, bytes BLOB NOT NULL)"));
    exec(QStringLiteral("CREATE TABLE IF NOT EXISTS message_images("
                        " message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,"
                        " position INTEGER NOT NULL,"
                        " sha256 TEXT NOT NULL REFERENCES images(sha256),"
                        " name TEXT NOT NULL,"
                        " PRIMARY KEY(message_id, position))"));
    // What the trigger asks at each deleted link: does another link still name the picture?
    exec(QStringLiteral("CREATE INDEX IF NOT EXISTS message_images_by_image ON message_images(sha256)"));
    // In the schema, not in the app's code, so that every delete (a message, a conversation by
    // cascade, a later version's own) leaves no picture behind that nothing shows.
    exec(QStringLiteral("CREATE TRIGGER IF NOT EXISTS images_unused_deleted AFTER DELETE ON message_images"
                        " WHEN NOT EXISTS (SELECT 1 FROM message_images WHERE sha256 = OLD.sha256)"
                        " BEGIN DELETE FROM images WHERE sha256 = OLD.sha256; END"));
}

bool MessageImageStore::hasTables() const {
    QSqlQuery query(store_.database());
    query.prepare(QStringLiteral("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'"
                                 " AND name IN ('images', 'message_images')"));
    store_.runQuery(query);
    return query.next() && query.value(0).toInt() == 2;
}

ImagesByMessage MessageImageStore::imagesOfConversation(const QString& conversationId) const {
    ImagesByMessage images;
    if (!hasTables()) return images;
    QSqlQuery links(store_.database());
    links.prepare(
        QStringLiteral("SELECT link.message_id, link.sha256, link.name"
                       " FROM messages JOIN message_images AS link ON link.message_id = messages.id"
                       " WHERE messages.conversation_id = ? ORDER BY link.message_id, link.position"));
    links.addBindValue(conversationId);
    store_.runQuery(links);
    // Each picture's bytes are read once, however many messages show it (an edited message shows
    // its pictures again), and shared among them.
    QHash<QString, QByteArray> bytes;
    QSqlQuery picture(store_.database());
    picture.prepare(QStringLiteral("SELECT bytes FROM images WHERE sha256 = ?"));
    while (links.next()) {
        const QString sha256 = links.value(1).toString();
        auto known = bytes.constFind(sha256);
        if (known == bytes.constEnd()) {
            picture.addBindValue(sha256);
            store_.runQuery(picture);
            known = bytes.insert(sha256, picture.next() ? picture.value(0).toByteArray() : QByteArray());
            picture.finish();
        }
        if (known->isEmpty()) continue; // a link to no picture: a file edited by hand
        images[links.value(0).toString()].append({sha256, links.value(2).toString(), *known});
    }
    return images;
}

void MessageImageStore::addImages(const QString& messageId, const QList<MessageImage>& images) const {
    for (qsizetype i = 0; i < images.size(); ++i) {
        const MessageImage& image = images.at(i);
        const auto refuse = [&](const QString& problem) {
            throw StoreError(QStringLiteral("%1: image %2 (\"%3\") of message %4: %5")
                                 .arg(store_.path())
                                 .arg(i + 1)
                                 .arg(image.name, messageId, problem)
                                 .toStdString());
        };
        if (image.bytes.isEmpty()) refuse(QStringLiteral("it has no bytes"));
        const QString sha256 = imageSha256(image.bytes);
        if (!image.sha256.isEmpty() && image.sha256.compare(sha256, Qt::CaseInsensitive) != 0)
            refuse(QStringLiteral("its sha256 %1 is not that of its bytes (%2)").arg(image.sha256, sha256));

        QSqlQuery picture(store_.database());
        picture.prepare(
            QStringLiteral("INSERT INTO images(sha256, bytes) VALUES(?, ?) ON CONFLICT(sha256) DO NOTHING"));
        picture.addBindValue(sha256);
        picture.addBindValue(image.bytes);
        store_.runQuery(picture);

        QSqlQuery link(store_.database());
        link.prepare(QStringLiteral(
            "INSERT INTO message_images(message_id, position, sha256, name) VALUES(?, ?, ?, ?)"));
        link.addBindValue(messageId);
        link.addBindValue(int(i));
        link.addBindValue(sha256);
        link.addBindValue(image.name.isNull() ? QStringLiteral("") : image.name);
        store_.runQuery(link);
    }
}

} // namespace hearth::app
