#pragma once
// The names a download uses on disk: the file it delivers and the partial file
// (NAME.part) that holds what has arrived so far, which is all the state a
// resume needs.
#include <QString>
#include <QUrl>

namespace hearth::download {

// The file name a URL delivers: its path's last segment, percent-decoded.
QString fileNameFromUrl(const QUrl& url);
// Empty when `name` is a plain file name; otherwise why it cannot be one
// (empty, a path, "." or "..", a hidden file, control characters).
QString fileNameProblem(const QString& name);
QString partialFileName(const QString& name);
// Where a download whose SHA-256 is not the expected one is kept for inspection: "NAME.sha256-mismatch",
// neither a .gguf the models folder lists nor a partial file a resume appends to.
QString mismatchedFileName(const QString& name);
// A digest in the form the request takes: 64 hex digits, any case. Empty is allowed.
bool isSha256Hex(const QByteArray& hex);

} // namespace hearth::download
