#include "app/download/hf_model_api.h"
#include "app/download/gguf_quantization_name.h"
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace hearth::download {

namespace {

// Free functions: their words are translated in one context (shared with hugging_face_search.cpp).
struct HuggingFace {
    Q_DECLARE_TR_FUNCTIONS(hearth::download::HuggingFace)
};

constexpr double kLargestExactInteger = 9007199254740992.0; // 2^53

// A count or size: a non-negative whole number a double holds exactly, else -1.
qint64 wholeNumber(const QJsonValue& value) {
    if (!value.isDouble()) return -1;
    const double number = value.toDouble();
    if (!(number >= 0 && number < kLargestExactInteger) || number != double(qint64(number))) return -1;
    return qint64(number);
}

bool isHexDigest(const QString& text) {
    static const QRegularExpression hex(QStringLiteral("^[0-9a-fA-F]{64}$"));
    return hex.match(text).hasMatch();
}

// A path the app can use as a file name in the models folder: a .gguf file at the top of
// the repository or in a folder, no way out of it, nothing a file system would mangle.
bool isUsableGgufPath(const QString& path) {
    static const QRegularExpression allowed(QStringLiteral("^[A-Za-z0-9._+-]+(/[A-Za-z0-9._+-]+)*$"));
    if (path.size() > 300 || !path.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive)) return false;
    if (!allowed.match(path).hasMatch()) return false;
    const QStringList parts = path.split(QLatin1Char('/'));
    for (const QString& part : parts)
        if (part == QLatin1String(".") || part == QLatin1String("..")) return false;
    return !parts.last().startsWith(QLatin1Char('.'));
}

// Files the engine loads on their own: not a shard of a split model (it reads one file)
// and not a vision projector (an mmproj file is no language model).
bool isSingleFileModel(const QString& path) {
    static const QRegularExpression shard(QStringLiteral("-\\d{5}-of-\\d{5}\\.gguf$"),
                                          QRegularExpression::CaseInsensitiveOption);
    const QString name = path.section(QLatin1Char('/'), -1);
    return !shard.match(name).hasMatch() && !name.startsWith(QLatin1String("mmproj"), Qt::CaseInsensitive);
}

// The parsed document, or an empty one with `error` saying why (too large, not JSON).
QJsonDocument readDocument(const QByteArray& json, qsizetype maxBytes, const QString& tooLarge,
                           QString& error) {
    if (json.size() > maxBytes) {
        error = tooLarge;
        return {};
    }
    QJsonParseError parseError;
    QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        error = HuggingFace::tr("Hugging Face sent an answer that is not valid JSON (%1)")
                    .arg(parseError.errorString());
    return document;
}

} // namespace

bool isValidRepositoryId(const QString& id) {
    static const QRegularExpression pattern(
        QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$"));
    return pattern.match(id).hasMatch() && !id.contains(QLatin1String(".."));
}

HfSearchParse parseModelSearch(const QByteArray& json, const HfApiLimits& limits) {
    HfSearchParse result;
    const QJsonDocument document = readDocument(
        json, limits.maxDocumentBytes, HuggingFace::tr("Hugging Face's answer is too large"), result.error);
    if (!result.error.isEmpty()) return result;
    if (!document.isArray()) {
        result.error = HuggingFace::tr("Hugging Face's answer is not a list of models");
        return result;
    }
    const QJsonArray models = document.array();
    for (const QJsonValue& model : models) {
        if (result.repositoryIds.size() >= limits.maxRepositories) break;
        const QJsonObject object = model.toObject();
        // "id" in today's API, "modelId" in older answers.
        QString id = object.value(QLatin1String("id")).toString();
        if (id.isEmpty()) id = object.value(QLatin1String("modelId")).toString();
        if (isValidRepositoryId(id) && !result.repositoryIds.contains(id)) result.repositoryIds.append(id);
    }
    return result;
}

HfRepositoryParse parseRepositoryInfo(const QByteArray& json, const QString& expectedId,
                                      const HfApiLimits& limits) {
    HfRepositoryParse result;
    const QJsonDocument document =
        readDocument(json, limits.maxDocumentBytes,
                     HuggingFace::tr("the file list of %1 is too large").arg(expectedId), result.error);
    if (!result.error.isEmpty()) return result;
    const QJsonObject object = document.object();
    const QString id = object.value(QLatin1String("id")).toString();
    if (!document.isObject() || id.compare(expectedId, Qt::CaseInsensitive) != 0) {
        result.error = HuggingFace::tr("Hugging Face did not send the file list of %1").arg(expectedId);
        return result;
    }
    HfRepository& repository = result.repository;
    repository.id = expectedId;
    repository.downloads = std::max<qint64>(0, wholeNumber(object.value(QLatin1String("downloads"))));
    repository.likes = std::max<qint64>(0, wholeNumber(object.value(QLatin1String("likes"))));
    static const QRegularExpression architectureName(QStringLiteral("^[a-z0-9_]{1,32}$"));
    const QString architecture =
        object.value(QLatin1String("gguf")).toObject().value(QLatin1String("architecture")).toString();
    if (architectureName.match(architecture).hasMatch()) repository.architecture = architecture;

    const QJsonArray siblings = object.value(QLatin1String("siblings")).toArray();
    const qsizetype looked = std::min<qsizetype>(siblings.size(), limits.maxSiblingsRead);
    for (qsizetype i = 0; i < looked && repository.files.size() < limits.maxFilesKept; ++i) {
        const QJsonObject sibling = siblings.at(i).toObject();
        HfModelFile file;
        file.path = sibling.value(QLatin1String("rfilename")).toString();
        if (!isUsableGgufPath(file.path) || !isSingleFileModel(file.path)) continue;
        const QJsonObject lfs = sibling.value(QLatin1String("lfs")).toObject();
        // The LFS object's size is the file's; "size" is the same for LFS files in today's API.
        file.bytes = wholeNumber(lfs.value(QLatin1String("size")));
        if (file.bytes < 0) file.bytes = wholeNumber(sibling.value(QLatin1String("size")));
        const QString sha256 = lfs.value(QLatin1String("sha256")).toString();
        if (isHexDigest(sha256)) file.sha256Hex = sha256.toLower().toLatin1();
        file.quantization = quantizationFromFileName(file.path);
        repository.files.append(file);
    }
    return result;
}

QUrl hfFileUrl(const QUrl& base, const QString& repositoryId, const QString& path) {
    QUrl url = base;
    QString basePath = url.path();
    if (basePath.endsWith(QLatin1Char('/'))) basePath.chop(1);
    url.setPath(basePath + QLatin1Char('/') + repositoryId + QStringLiteral("/resolve/main/") + path);
    url.setQuery(QString());
    return url;
}

std::optional<HfFileLocation> hfFileLocation(const QUrl& url) {
    if (!url.isValid()) return std::nullopt;
    const QStringList segments = url.path(QUrl::FullyDecoded).split(QLatin1Char('/'));
    // BASE/owner/name/resolve/REVISION/PATH: the first "resolve" with a repository before it.
    for (qsizetype i = 2; i + 2 < segments.size(); ++i) {
        if (segments[i] != QLatin1String("resolve")) continue;
        HfFileLocation location;
        location.repositoryId = segments[i - 2] + QLatin1Char('/') + segments[i - 1];
        location.revision = segments[i + 1];
        location.path = segments.mid(i + 2).join(QLatin1Char('/'));
        static const QRegularExpression revision(QStringLiteral("^[A-Za-z0-9._-]{1,100}$"));
        if (!isValidRepositoryId(location.repositoryId) || !revision.match(location.revision).hasMatch() ||
            !isUsableGgufPath(location.path))
            return std::nullopt;
        return location;
    }
    return std::nullopt;
}

} // namespace hearth::download
