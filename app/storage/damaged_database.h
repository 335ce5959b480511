#pragma once
// A conversation database that SQLite cannot read is never written over. At open, a file that
// is not a database, or whose pages fail SQLite's quick check, is renamed aside with its WAL and
// shared-memory files, as "<name>.damaged-YYYYMMDD-HHMMSS" next to it; a fresh database takes
// its place, and every conversation that can still be read whole from the damaged one is copied
// into it, with its messages' images (a picture whose bytes no longer match its SHA-256 is left out). A
// database locked by another program is not damaged: that open throws as before.
#include "app/storage/sql_store.h"
#include <QDateTime>
#include <QString>
#include <memory>
#include <optional>

namespace hearth::app {

struct DamagedDatabase {
    QString backupPath;          // where the damaged file now is
    QString problem;             // what SQLite found wrong
    int conversationsCopied = 0; // read whole from it into the fresh database
};

// Opens (creating if needed) the conversation database at `path`; when it is damaged, sets it
// aside as above, opens a fresh one and fills `damaged`. Throws StoreError when the file cannot be
// opened or is locked (both retryable), or when the damaged file cannot be moved.
std::unique_ptr<SqlStore> openConversationDatabase(const QString& path,
                                                   std::optional<DamagedDatabase>* damaged);

// "<path>.damaged-YYYYMMDD-HHMMSS" for `time`, with "-2", "-3"... added when that name is taken.
QString damagedBackupPath(const QString& path, const QDateTime& time);

} // namespace hearth::app
