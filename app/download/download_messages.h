#pragma once
// Errors of a download in plain words, for the models page and hearth-cli.
#include <QNetworkReply>
#include <QString>

namespace hearth::download {

// "1.5 GB", "320 MB", "12 KB", "900 bytes" (decimal units, as disks are sold).
QString formatByteCount(qint64 bytes);
// "2 h 5 min", "3 min 10 s", "12 s"; empty for a negative (unknown) time.
QString formatTimeLeft(double seconds);
// "12.3 MB of 400 MB (3%), 5.1 MB/s, 1 min 15 s left", the parts that are known.
QString describeProgress(qint64 received, qint64 total, double bytesPerSecond, double secondsLeft);
// What went wrong at the network level, for someone who is not a network engineer.
QString describeNetworkError(QNetworkReply::NetworkError error, const QString& host);
// An HTTP status the download cannot use (404, 403, 500, ...).
QString describeHttpStatus(int status, const QString& reason);
// Whether a fresh request may get further: the connection broke, not the request.
bool isWorthReconnecting(QNetworkReply::NetworkError error);

} // namespace hearth::download
