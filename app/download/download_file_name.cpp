#include "app/download/download_file_name.h"
#include <QCoreApplication>
#include <cctype>

namespace hearth::download {

namespace {
// Free functions: their words are translated in one context.
struct DownloadFileName {
    Q_DECLARE_TR_FUNCTIONS(hearth::download::DownloadFileName)
};
} // namespace

QString fileNameFromUrl(const QUrl& url) {
    return url.fileName(QUrl::FullyDecoded);
}

QString fileNameProblem(const QString& name) {
    if (name.isEmpty()) return DownloadFileName::tr("the URL names no file");
    if (name.contains(QLatin1Char('/')) || name.contains(QLatin1Char('\\')))
        return DownloadFileName::tr("'%1' is a path, not a file name").arg(name);
    // A leading dot also rules out "." and "..", and a name that would hide itself.
    if (name.startsWith(QLatin1Char('.')))
        return DownloadFileName::tr("'%1' is not a usable file name").arg(name);
    for (const QChar c : name)
        if (c.category() == QChar::Other_Control)
            return DownloadFileName::tr("the file name contains control characters");
    if (name.size() > 200) return DownloadFileName::tr("the file name is longer than 200 characters");
    return {};
}

QString partialFileName(const QString& name) {
    return name + QStringLiteral(".part");
}

QString mismatchedFileName(const QString& name) {
    return name + QStringLiteral(".sha256-mismatch");
}

bool isSha256Hex(const QByteArray& hex) {
    if (hex.size() != 64) return false;
    for (const char c : hex)
        if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

} // namespace hearth::download
