#pragma once
// What one download fetches, where it puts it, and how it is verified.
#include <QByteArray>
#include <QString>
#include <QUrl>

namespace hearth::download {

struct DownloadRequest {
    QUrl url;
    QString directory;         // the file lands here (created when missing)
    QString fileName;          // empty: the last segment of the URL's path
    QByteArray sha256Hex;      // expected digest, 64 hex digits; empty: only the size is checked
    qint64 expectedBytes = -1; // a size known beforehand (the catalog), for the disk check; -1: unknown
    int reconnects = 3;        // how often one start() picks up again after a dropped connection
};

} // namespace hearth::download
