#include "app/storage/damaged_database.h"
#include "app/storage/preset_store.h"
#include <QFile>

namespace hearth::app {

namespace {

// SQLite's companions of a database file: they belong to the damaged database, not to the
// fresh one (a WAL replayed into a new file would damage it too).
constexpr const char* kCompanionSuffixes[] = {"-wal", "-shm", "-journal"};

void setAside(const QString& path, const QString& backup) {
    if (!QFile::rename(path, backup))
        throw StoreError(QStringLiteral("%1: the database is damaged and cannot be moved aside to %2")
                             .arg(path, backup)
                             .toStdString(),
                         StoreError::Kind::Disk);
    for (const char* suffix : kCompanionSuffixes) {
        const QString companion = path + QLatin1String(suffix);
        if (QFile::exists(companion)) QFile::rename(companion, backup + QLatin1String(suffix));
    }
}

// The images whose bytes are still the ones their SHA-256 names; a damaged picture is left out
// (it stays in the backup), its message copied without it.
ImagesByMessage intactImages(const ImagesByMessage& images) {
    ImagesByMessage intact;
    for (auto it = images.cbegin(); it != images.cend(); ++it)
        for (const MessageImage& image : it.value())
            if (!image.bytes.isEmpty() && imageSha256(image.bytes) == image.sha256)
                intact[it.key()].append(image);
    return intact;
}

// Copies every conversation whose messages (and their images) can all be read from the damaged
// file, each row as it is stored (the app's own roles or not), and what can be read of the
// presets; returns how many conversations. One that cannot be read stays in the backup only.
int copyConversations(const QString& damagedPath, SqlStore& fresh) {
    QList<ConversationRecord> conversations;
    std::unique_ptr<SqlStore> damaged;
    try {
        damaged = std::make_unique<SqlStore>(damagedPath, SqlStore::Access::ReadOnly);
        conversations = damaged->conversations();
    } catch (const StoreError&) {
        return 0;
    }
    QSet<QString> copied;
    for (const ConversationRecord& conversation : conversations) {
        QList<SqlStore::StoredRow> messages;
        ImagesByMessage images;
        try {
            messages = damaged->storedMessages(conversation.id);
            images = intactImages(MessageImageStore(*damaged).imagesOfConversation(conversation.id));
        } catch (const StoreError&) {
            continue;
        }
        fresh.saveConversation(conversation);
        fresh.insertStoredMessages(messages, images);
        copied.insert(conversation.id);
    }
    PresetStore(fresh).copyFrom(PresetStore(*damaged), copied);
    return static_cast<int>(copied.size());
}

// copyConversations, leaving the backup as it was found: reading it may create its WAL and
// shared-memory files, and those it created are removed afterwards.
int copyReadableConversations(const QString& damagedPath, SqlStore& fresh) {
    QStringList created;
    for (const char* suffix : kCompanionSuffixes)
        if (!QFile::exists(damagedPath + QLatin1String(suffix)))
            created << damagedPath + QLatin1String(suffix);
    const int copied = copyConversations(damagedPath, fresh);
    for (const QString& companion : created)
        QFile::remove(companion);
    return copied;
}

} // namespace

QString damagedBackupPath(const QString& path, const QDateTime& time) {
    const QString base =
        path + QStringLiteral(".damaged-") + time.toString(QStringLiteral("yyyyMMdd-HHmmss"));
    QString candidate = base;
    for (int n = 2; QFile::exists(candidate); ++n)
        candidate = base + QLatin1Char('-') + QString::number(n);
    return candidate;
}

std::unique_ptr<SqlStore> openConversationDatabase(const QString& path,
                                                   std::optional<DamagedDatabase>* damaged) {
    QString problem;
    try {
        auto store = std::make_unique<SqlStore>(path);
        const QString check = store->quickCheck();
        if (check == QLatin1String("ok")) return store;
        // SQLite heads its list with "*** in database main ***": the first problem follows.
        const QStringList lines = check.split(QLatin1Char('\n'));
        problem = lines.value(lines.constFirst().startsWith(QLatin1String("***")) ? 1 : 0);
    } catch (const StoreError& e) {
        if (e.kind() != StoreError::Kind::Damaged) throw;
        problem = QString::fromUtf8(e.what());
    }
    // The damaged file is closed here: it is renamed, never opened for writing again.
    DamagedDatabase report;
    report.backupPath = damagedBackupPath(path, QDateTime::currentDateTime());
    report.problem = problem;
    setAside(path, report.backupPath);
    auto fresh = std::make_unique<SqlStore>(path);
    report.conversationsCopied = copyReadableConversations(report.backupPath, *fresh);
    if (damaged) *damaged = report;
    return fresh;
}

} // namespace hearth::app
