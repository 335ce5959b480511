#pragma once
// A download started from the Hugging Face search is not in the built-in catalog, so
// after a restart its NAME.part alone would not say where it came from. A small
// record beside it, NAME.part.source (JSON), does: the next run lists the entry again,
// paused, to resume. It is read back as untrusted input, and removed once the file is
// verified or the download cancelled.
#include "app/models/model_catalog.h"
#include <QList>
#include <QString>

namespace hearth::app {

QString pendingDownloadRecordPath(const QString& directory, const QString& fileName);
// False when it could not be written (the download still runs; only its restart is lost).
bool writePendingDownloadRecord(const QString& directory, const CatalogEntry& entry);
void removePendingDownloadRecord(const QString& directory, const QString& fileName);
// The entries of the records in `directory` that are well-formed and still have their
// NAME.part beside them. File I/O: call off the GUI thread.
QList<CatalogEntry> readPendingDownloadRecords(const QString& directory);

} // namespace hearth::app
