#include "app/download/hugging_face_search.h"
#include "app/download/download_messages.h"
#include <QCoreApplication>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QUrlQuery>
#include <memory>
#include <qcoro/qcoronetworkreply.h>
#include <vector>

namespace hearth::download {

namespace {

// Free functions and a class without QObject: their words are translated in one context
// (shared with hf_model_api.cpp).
struct HuggingFace {
    Q_DECLARE_TR_FUNCTIONS(hearth::download::HuggingFace)
};

constexpr int kStallTimeoutMsecs = 30000;

QUrl apiUrl(const QUrl& base, const QString& path) {
    QUrl url = base;
    QString basePath = url.path();
    if (basePath.endsWith(QLatin1Char('/'))) basePath.chop(1);
    url.setPath(basePath + path);
    url.setQuery(QString());
    return url;
}

struct Fetched {
    QByteArray body;
    QString error;
};

// One GET of a JSON document, cut off past `maxBytes`; the body, or why there is none.
QCoro::Task<Fetched> fetchJson(QPointer<QNetworkAccessManager> network, QUrl url, qint64 maxBytes) {
    Fetched fetched;
    if (!network) {
        fetched.error = HuggingFace::tr("the request to Hugging Face was stopped");
        co_return fetched;
    }
    QNetworkRequest request(url);
    request.setTransferTimeout(kStallTimeoutMsecs);
    request.setRawHeader("Accept", "application/json");
    QPointer<QNetworkReply> reply = network->get(request);
    auto tooLarge = std::make_shared<bool>(false);
    // An answer larger than any real one is cut off as it arrives, not after.
    QObject::connect(reply, &QNetworkReply::downloadProgress, reply,
                     [reply, maxBytes, tooLarge](qint64 received, qint64) {
                         if (received > maxBytes && !*tooLarge) {
                             *tooLarge = true;
                             reply->abort();
                         }
                     });
    co_await reply.get();
    if (!reply) { // the network access went away (the app is closing)
        fetched.error = HuggingFace::tr("the request to Hugging Face was stopped");
        co_return fetched;
    }
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (*tooLarge) {
        fetched.error = HuggingFace::tr("Hugging Face's answer is too large");
    } else if (reply->error() != QNetworkReply::NoError && status < 400) {
        fetched.error = describeNetworkError(reply->error(), url.host());
    } else if (status != 200) {
        fetched.error = describeHttpStatus(
            status, reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString());
    } else {
        fetched.body = reply->readAll();
    }
    reply->deleteLater();
    co_return fetched;
}

// A repository's files with their sizes and LFS SHA-256, at `revision` ("main": the default
// branch, which the API answers at its shorter address).
QUrl repositoryInfoUrl(const QUrl& base, const QString& id,
                       const QString& revision = QStringLiteral("main")) {
    QUrl url = apiUrl(base, revision == QLatin1String("main")
                                ? QStringLiteral("/api/models/") + id
                                : QStringLiteral("/api/models/%1/revision/%2").arg(id, revision));
    url.setQuery(QStringLiteral("blobs=true"));
    return url;
}

} // namespace

QCoro::Task<HfSearchResult> HuggingFaceSearch::search(QString text, int limit) {
    HfSearchResult result;
    text = text.simplified();
    if (text.isEmpty()) {
        result.error = HuggingFace::tr("type part of a model's name to search for");
        co_return result;
    }
    if (text.size() > kMaxQueryLength) {
        result.error = HuggingFace::tr("the search is longer than %1 characters").arg(kMaxQueryLength);
        co_return result;
    }
    // Nothing of `this` is used after the first suspension: the search may outlive it.
    const QPointer<QNetworkAccessManager> network(network_);
    const QUrl base = baseUrl_;
    HfApiLimits limits = limits_;
    limit = std::clamp(limit, 1, limits.maxRepositories);
    limits.maxRepositories = limit;

    QUrl searchUrl = apiUrl(base, QStringLiteral("/api/models"));
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("search"), QString::fromLatin1(QUrl::toPercentEncoding(text)));
    query.addQueryItem(QStringLiteral("filter"), QStringLiteral("gguf"));
    query.addQueryItem(QStringLiteral("limit"), QString::number(limit));
    searchUrl.setQuery(query.query(QUrl::FullyEncoded), QUrl::StrictMode);
    // Tasks are held in variables, never awaited as temporaries (see Download::verifyExistingFile).
    QCoro::Task<Fetched> searching = fetchJson(network, searchUrl, limits.maxDocumentBytes);
    const Fetched found = co_await searching;
    if (!found.error.isEmpty()) {
        result.error = HuggingFace::tr("the search failed: %1").arg(found.error);
        co_return result;
    }
    const HfSearchParse ids = parseModelSearch(found.body, limits);
    if (!ids.error.isEmpty()) {
        result.error = ids.error;
        co_return result;
    }

    // Every repository's file list is asked for at once, then read in the search's order.
    std::vector<QCoro::Task<Fetched>> lists;
    for (const QString& id : ids.repositoryIds) {
        lists.push_back(fetchJson(network, repositoryInfoUrl(base, id), limits.maxDocumentBytes));
    }
    for (size_t i = 0; i < lists.size(); ++i) {
        const QString& id = ids.repositoryIds.at(qsizetype(i));
        const Fetched info = co_await lists[i];
        if (!info.error.isEmpty()) {
            result.problems.append(QStringLiteral("%1: %2").arg(id, info.error));
            continue;
        }
        const HfRepositoryParse parsed = parseRepositoryInfo(info.body, id, limits);
        if (!parsed.error.isEmpty()) {
            result.problems.append(QStringLiteral("%1: %2").arg(id, parsed.error));
            continue;
        }
        if (!parsed.repository.files.isEmpty()) result.repositories.append(parsed.repository);
    }
    co_return result;
}

QCoro::Task<HfFileChecksum> HuggingFaceSearch::fileChecksum(HfFileLocation file) {
    HfFileChecksum result;
    // As in search(): nothing of `this` after the first suspension.
    const QPointer<QNetworkAccessManager> network(network_);
    HfApiLimits limits = limits_;
    limits.maxFilesKept = limits.maxSiblingsRead; // the one file wanted may come late in a long list
    QCoro::Task<Fetched> fetching = fetchJson(
        network, repositoryInfoUrl(baseUrl_, file.repositoryId, file.revision), limits.maxDocumentBytes);
    const Fetched info = co_await fetching;
    if (!info.error.isEmpty()) {
        result.error = HuggingFace::tr("asking Hugging Face for the file list of %1 failed: %2")
                           .arg(file.repositoryId, info.error);
        result.unanswered = true;
        co_return result;
    }
    const HfRepositoryParse parsed = parseRepositoryInfo(info.body, file.repositoryId, limits);
    if (!parsed.error.isEmpty()) {
        result.error = parsed.error;
        co_return result;
    }
    for (const HfModelFile& listed : parsed.repository.files) {
        if (listed.path != file.path) continue;
        if (listed.sha256Hex.isEmpty()) {
            result.error = HuggingFace::tr("Hugging Face lists %1 in %2 without a SHA-256")
                               .arg(file.path, file.repositoryId);
            co_return result;
        }
        result.sha256Hex = listed.sha256Hex;
        result.bytes = listed.bytes;
        co_return result;
    }
    result.error = HuggingFace::tr("Hugging Face does not list %1 in %2").arg(file.path, file.repositoryId);
    co_return result;
}

} // namespace hearth::download
