#include "app/models/model_catalog.h"
#include "app/download/download_file_name.h"
#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>
#include <cmath>

namespace hearth::app {

namespace {

constexpr qint64 kMaxBytes = qint64(1) << 42;      // 4 TB: no GGUF file is bigger
constexpr qint64 kMaxParameters = qint64(1) << 44; // ~17.6T

// The parser is free functions: its messages are translated in this one context
// (ModelCatalog::tr, context "hearth::app::ModelCatalog"). They reach the user when a
// catalog is refused; the JSON field names inside them stay as the file spells them.
struct ModelCatalog {
    Q_DECLARE_TR_FUNCTIONS(hearth::app::ModelCatalog)
};

// Thrown inside the parser, caught once at the top: every rule reads as one line.
struct CatalogError {
    QString message;
};

QString describeField(int index, const QString& id, const char* field) {
    const QString entry = id.isEmpty() ? ModelCatalog::tr("entry %1").arg(index + 1)
                                       : ModelCatalog::tr("entry %1 (%2)").arg(index + 1).arg(id);
    //: %1 is "entry 3 (id)", %2 a JSON field name such as url, which stays untranslated.
    return ModelCatalog::tr("%1, field \"%2\"").arg(entry, QLatin1String(field));
}

// "entry 3 (id), field "url": " and the rule the field broke.
CatalogError fieldError(int index, const QString& id, const char* field, const QString& problem) {
    return CatalogError{describeField(index, id, field) + QStringLiteral(": ") + problem};
}

QString requireText(const QJsonObject& object, const char* field, int maxLength, bool allowEmpty, int index,
                    const QString& id) {
    const QJsonValue value = object.value(QLatin1String(field));
    if (!value.isString()) throw fieldError(index, id, field, ModelCatalog::tr("missing or not a string"));
    const QString text = value.toString();
    if (text.isEmpty() && !allowEmpty) throw fieldError(index, id, field, ModelCatalog::tr("empty"));
    if (text.size() > maxLength)
        throw fieldError(index, id, field, ModelCatalog::tr("longer than %1 characters").arg(maxLength));
    for (const QChar c : text)
        if (c.category() == QChar::Other_Control || c.category() == QChar::Other_Format)
            throw fieldError(index, id, field, ModelCatalog::tr("contains control characters"));
    return text;
}

qint64 requireCount(const QJsonObject& object, const char* field, qint64 max, int index, const QString& id) {
    const QJsonValue value = object.value(QLatin1String(field));
    if (!value.isDouble()) throw fieldError(index, id, field, ModelCatalog::tr("missing or not a number"));
    const double number = value.toDouble();
    if (!std::isfinite(number) || number != std::floor(number) || number <= 0 || number > double(max))
        throw fieldError(index, id, field, ModelCatalog::tr("must be a whole number from 1 to %1").arg(max));
    return qint64(number);
}

// A file name the models folder can take, ending in .gguf.
void requireGgufFileName(const QString& fileName, const char* field, int index, const QString& id) {
    if (const QString problem = download::fileNameProblem(fileName); !problem.isEmpty())
        throw fieldError(index, id, field, problem);
    if (!fileName.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive))
        throw fieldError(index, id, field, ModelCatalog::tr("does not name a .gguf file"));
}

// An https address on an allowed host naming a .gguf file, with no dot segments or encoded slashes.
QUrl requireGgufUrl(const QJsonObject& object, const char* field, const CatalogRules& rules, int index,
                    const QString& id) {
    const QString urlText = requireText(object, field, 1000, false, index, id);
    const QUrl url(urlText, QUrl::StrictMode);
    const QString host = url.host().toLower();
    if (!url.isValid() || url.scheme() != QLatin1String("https") || !url.userInfo().isEmpty() ||
        !rules.allowedHosts.contains(host))
        throw fieldError(
            index, id, field,
            ModelCatalog::tr("must be an https:// address on %1").arg(rules.allowedHosts.join(", ")));
    // No dot segments and no encoded slashes: the path must mean what it shows.
    const QStringList segments = url.path(QUrl::FullyDecoded).split(QLatin1Char('/'));
    if (segments.contains(QStringLiteral("..")) || segments.contains(QStringLiteral(".")) ||
        url.path(QUrl::FullyEncoded).contains(QLatin1String("%2f"), Qt::CaseInsensitive))
        throw fieldError(index, id, field, ModelCatalog::tr("has '.' or '..' in its path"));
    requireGgufFileName(url.fileName(QUrl::FullyDecoded), field, index, id);
    return url;
}

// A vision model's projector: {"url", "sha256", "fileBytes", "fileName"[, "sha256Source"]}.
CatalogFile parseProjector(const QJsonValue& value, const CatalogRules& rules, int index,
                           const QString& entryId) {
    if (!value.isObject()) throw fieldError(index, entryId, "projector", ModelCatalog::tr("not an object"));
    const QJsonObject object = value.toObject();
    // Its fields' errors name "entry 7 (id projector)".
    const QString id = ModelCatalog::tr("%1 projector").arg(entryId);
    CatalogFile file;
    file.url = requireGgufUrl(object, "url", rules, index, id);
    file.sha256Hex = requireText(object, "sha256", 64, false, index, id).toLatin1().toLower();
    if (!download::isSha256Hex(file.sha256Hex))
        throw fieldError(index, id, "sha256", ModelCatalog::tr("must be 64 hexadecimal digits"));
    if (object.contains(QLatin1String("sha256Source")))
        file.sha256Source = requireText(object, "sha256Source", 200, true, index, id);
    file.fileBytes = requireCount(object, "fileBytes", kMaxBytes, index, id);
    file.fileName = requireText(object, "fileName", 200, false, index, id);
    requireGgufFileName(file.fileName, "fileName", index, id);
    return file;
}

CatalogEntry parseEntry(const QJsonValue& value, int index, const CatalogRules& rules) {
    if (!value.isObject()) throw CatalogError{ModelCatalog::tr("entry %1: not an object").arg(index + 1)};
    const QJsonObject object = value.toObject();
    CatalogEntry entry;
    static const QRegularExpression idPattern(QStringLiteral("^[a-z0-9][a-z0-9._-]*$"));
    entry.id = requireText(object, "id", 100, false, index, {});
    if (!idPattern.match(entry.id).hasMatch())
        throw fieldError(index, {}, "id",
                         ModelCatalog::tr("only lowercase letters, digits, '.', '_' and '-'"));
    entry.name = requireText(object, "name", 120, false, index, entry.id);
    entry.architecture = requireText(object, "architecture", 40, false, index, entry.id);
    entry.quantization = requireText(object, "quantization", 40, false, index, entry.id);
    entry.licence = requireText(object, "licence", 120, false, index, entry.id);
    entry.parameters = requireCount(object, "parameters", kMaxParameters, index, entry.id);
    if (object.contains(QLatin1String("activeParameters"))) {
        entry.activeParameters = requireCount(object, "activeParameters", kMaxParameters, index, entry.id);
        if (entry.activeParameters > entry.parameters)
            throw fieldError(index, entry.id, "activeParameters",
                             ModelCatalog::tr("more than the parameters"));
    }
    entry.fileBytes = requireCount(object, "fileBytes", kMaxBytes, index, entry.id);
    entry.memoryBytes = requireCount(object, "memoryBytes", kMaxBytes, index, entry.id);
    if (entry.memoryBytes < entry.fileBytes)
        throw fieldError(index, entry.id, "memoryBytes",
                         ModelCatalog::tr("smaller than the file, which is all loaded"));

    entry.url = requireGgufUrl(object, "url", rules, index, entry.id);

    entry.sha256Hex = requireText(object, "sha256", 64, true, index, entry.id).toLatin1().toLower();
    if (!entry.sha256Hex.isEmpty() && !download::isSha256Hex(entry.sha256Hex))
        throw fieldError(index, entry.id, "sha256",
                         ModelCatalog::tr("must be empty or 64 hexadecimal digits"));
    if (object.contains(QLatin1String("sha256Source")))
        entry.sha256Source = requireText(object, "sha256Source", 200, true, index, entry.id);
    if (object.contains(QLatin1String("draft")))
        entry.draftId = requireText(object, "draft", 100, false, index, entry.id);
    if (object.contains(QLatin1String("projector")))
        entry.projector = parseProjector(object.value(QLatin1String("projector")), rules, index, entry.id);
    return entry;
}

// A draft must be another listed entry, of the target's family (its architecture, or the dense
// form of a mixture's: qwen3 for qwen3moe) and smaller.
void checkDrafts(const QList<CatalogEntry>& entries) {
    for (int i = 0; i < entries.size(); ++i) {
        const CatalogEntry& target = entries.at(i);
        if (target.draftId.isEmpty()) continue;
        const auto draft = std::find_if(entries.begin(), entries.end(),
                                        [&](const CatalogEntry& e) { return e.id == target.draftId; });
        if (draft == entries.end())
            throw fieldError(i, target.id, "draft", ModelCatalog::tr("names no entry of the catalog"));
        if (draft->id == target.id) throw fieldError(i, target.id, "draft", ModelCatalog::tr("names itself"));
        if (!target.architecture.startsWith(draft->architecture))
            throw fieldError(i, target.id, "draft",
                             ModelCatalog::tr("is a %1 model, not of this %2 family")
                                 .arg(draft->architecture, target.architecture));
        if (draft->parameters >= target.parameters)
            throw fieldError(i, target.id, "draft", ModelCatalog::tr("is not smaller than the model"));
    }
}

} // namespace

CatalogParseResult parseModelCatalog(const QByteArray& json, const CatalogRules& rules) {
    CatalogParseResult result;
    try {
        if (json.size() > rules.maxDocumentBytes)
            throw CatalogError{
                ModelCatalog::tr("the catalog is larger than %1 bytes").arg(rules.maxDocumentBytes)};
        QJsonParseError parseError;
        const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
        if (parseError.error != QJsonParseError::NoError)
            throw CatalogError{ModelCatalog::tr("the catalog is not valid JSON (%1 at byte %2)")
                                   .arg(parseError.errorString())
                                   .arg(parseError.offset)};
        if (!document.isObject()) throw CatalogError{ModelCatalog::tr("the catalog is not a JSON object")};
        const QJsonObject root = document.object();
        if (root.value(QLatin1String("version")).toInt(-1) != 1)
            throw CatalogError{
                ModelCatalog::tr("the catalog's \"version\" is not 1 (a newer app may read it)")};
        const QJsonValue models = root.value(QLatin1String("models"));
        if (!models.isArray()) throw CatalogError{ModelCatalog::tr("the catalog has no \"models\" list")};
        const QJsonArray list = models.toArray();
        if (list.size() > rules.maxEntries)
            throw CatalogError{
                ModelCatalog::tr("the catalog lists more than %1 models").arg(rules.maxEntries)};
        QSet<QString> ids;
        QSet<QString> fileNames;
        for (int i = 0; i < list.size(); ++i) {
            CatalogEntry entry = parseEntry(list.at(i), i, rules);
            if (ids.contains(entry.id)) throw fieldError(i, entry.id, "id", ModelCatalog::tr("listed twice"));
            // Two entries for one file name would download over each other.
            if (fileNames.contains(entry.fileName().toLower()))
                throw fieldError(i, entry.id, "url",
                                 ModelCatalog::tr("the file name %1 is listed twice").arg(entry.fileName()));
            ids.insert(entry.id);
            fileNames.insert(entry.fileName().toLower());
            result.entries.append(std::move(entry));
        }
        checkDrafts(result.entries);
    } catch (const CatalogError& e) {
        result.entries.clear();
        result.error = e.message;
    }
    return result;
}

CatalogParseResult builtInModelCatalog() {
    QFile file(QStringLiteral(":/hearth/model_catalog.json"));
    if (!file.open(QIODevice::ReadOnly)) return {{}, ModelCatalog::tr("the built-in catalog is missing")};
    return parseModelCatalog(file.readAll());
}

} // namespace hearth::app
