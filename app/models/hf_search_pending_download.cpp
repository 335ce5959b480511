#include "app/models/hf_search_pending_download.h"
#include "app/download/download_file_name.h"
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>
#include <optional>

namespace hearth::app {

namespace {

constexpr qint64 kMaxRecordBytes = 16 * 1024;
constexpr int kMaxRecords = 100;
const QString kRecordSuffix = QStringLiteral(".part.source");

// The entry a record describes, or nothing when any field is off: the URL must be
// http(s) and name the very file the record sits beside.
std::optional<CatalogEntry> entryFromRecord(const QByteArray& json, const QString& fileName) {
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) return std::nullopt;
    const QJsonObject object = document.object();
    static const QRegularExpression idPattern(QStringLiteral("^hf\\.[a-z0-9._-]{1,400}$"));
    static const QRegularExpression architecturePattern(QStringLiteral("^[a-z0-9_]{0,32}$"));
    static const QRegularExpression quantizationPattern(QStringLiteral("^[A-Z0-9_]{0,16}$"));
    CatalogEntry entry;
    entry.id = object.value(QLatin1String("id")).toString();
    entry.name = object.value(QLatin1String("name")).toString();
    entry.architecture = object.value(QLatin1String("architecture")).toString();
    entry.quantization = object.value(QLatin1String("quantization")).toString();
    entry.url = QUrl(object.value(QLatin1String("url")).toString(), QUrl::StrictMode);
    entry.sha256Hex = object.value(QLatin1String("sha256")).toString().toLatin1();
    const double bytes = object.value(QLatin1String("bytes")).toDouble(-1);
    if (!idPattern.match(entry.id).hasMatch() || entry.name.isEmpty() || entry.name.size() > 500 ||
        !architecturePattern.match(entry.architecture).hasMatch() ||
        !quantizationPattern.match(entry.quantization).hasMatch() || !entry.url.isValid() ||
        (entry.url.scheme() != QLatin1String("https") && entry.url.scheme() != QLatin1String("http")) ||
        download::fileNameFromUrl(entry.url) != fileName ||
        (!entry.sha256Hex.isEmpty() && !download::isSha256Hex(entry.sha256Hex)) ||
        !(bytes >= 0 && bytes < 1e15))
        return std::nullopt;
    entry.sha256Hex = entry.sha256Hex.toLower();
    entry.fileBytes = qint64(bytes);
    entry.memoryBytes = entry.fileBytes + entry.fileBytes / 5;
    return entry;
}

} // namespace

QString pendingDownloadRecordPath(const QString& directory, const QString& fileName) {
    return QDir(directory).filePath(fileName + kRecordSuffix);
}

bool writePendingDownloadRecord(const QString& directory, const CatalogEntry& entry) {
    if (!QDir().mkpath(directory)) return false;
    const QJsonObject object{{QStringLiteral("id"), entry.id},
                             {QStringLiteral("name"), entry.name},
                             {QStringLiteral("architecture"), entry.architecture},
                             {QStringLiteral("quantization"), entry.quantization},
                             {QStringLiteral("url"), entry.url.toString(QUrl::FullyEncoded)},
                             {QStringLiteral("sha256"), QString::fromLatin1(entry.sha256Hex)},
                             {QStringLiteral("bytes"), double(entry.fileBytes)}};
    QSaveFile file(pendingDownloadRecordPath(directory, entry.fileName()));
    return file.open(QIODevice::WriteOnly) && file.write(QJsonDocument(object).toJson()) > 0 && file.commit();
}

void removePendingDownloadRecord(const QString& directory, const QString& fileName) {
    QFile::remove(pendingDownloadRecordPath(directory, fileName));
}

QList<CatalogEntry> readPendingDownloadRecords(const QString& directory) {
    QList<CatalogEntry> entries;
    const QDir dir(directory);
    const QStringList records =
        dir.entryList({QStringLiteral("*") + kRecordSuffix}, QDir::Files | QDir::Readable, QDir::Name);
    for (const QString& record : records) {
        if (entries.size() >= kMaxRecords) break;
        const QString fileName = record.chopped(kRecordSuffix.size());
        if (!download::fileNameProblem(fileName).isEmpty()) continue;
        if (!QFileInfo::exists(dir.filePath(download::partialFileName(fileName)))) continue;
        QFile file(dir.filePath(record));
        if (file.size() > kMaxRecordBytes || !file.open(QIODevice::ReadOnly)) continue;
        if (const auto entry = entryFromRecord(file.read(kMaxRecordBytes), fileName)) entries.append(*entry);
    }
    return entries;
}

} // namespace hearth::app
