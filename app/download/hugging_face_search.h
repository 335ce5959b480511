#pragma once
// Searching Hugging Face for GGUF repositories by name: one request for the matching
// repositories, then one per repository (all at once) for its files with sizes and
// SHA-256; and the SHA-256 of one file, from the same file list. The base URL is
// configurable: tests point it at a server on loopback.
//
// Used on the thread of its QNetworkAccessManager; the answers are parsed as
// untrusted input (hf_model_api.h) and capped in size while they arrive.
#include "app/download/hf_model_api.h"
#include <QUrl>
#include <qcoro/qcorotask.h>

class QNetworkAccessManager;

namespace hearth::download {

struct HfSearchResult {
    QList<HfRepository> repositories; // those with at least one GGUF file the app can use
    QStringList problems;             // repositories whose file list could not be read, and why
    QString error;                    // the search itself failed; empty otherwise
};

// One file's SHA-256 as the API gives it (its LFS pointer's), or why there is none.
struct HfFileChecksum {
    QByteArray sha256Hex; // lowercase; empty when unknown
    qint64 bytes = -1;    // the file's size, -1 when the API did not say
    QString error;        // plain words, when sha256Hex is empty
    // Hugging Face could not be asked at all (offline, no connection).
    bool unanswered = false;
};

class HuggingFaceSearch {
public:
    explicit HuggingFaceSearch(QNetworkAccessManager* network) : network_(network) {}

    void setBaseUrl(const QUrl& baseUrl) { baseUrl_ = baseUrl; }
    [[nodiscard]] QUrl baseUrl() const { return baseUrl_; }
    void setLimits(const HfApiLimits& limits) { limits_ = limits; }

    // At most `limit` repositories (1..50) whose names match `text`.
    QCoro::Task<HfSearchResult> search(QString text, int limit = 10);

    // The SHA-256 of one repository file, read from the same file list a search reads
    // (GET /api/models/OWNER/NAME?blobs=true): for downloads whose digest nobody gave.
    QCoro::Task<HfFileChecksum> fileChecksum(HfFileLocation file);

    static constexpr int kMaxQueryLength = 100;

private:
    QNetworkAccessManager* network_;
    QUrl baseUrl_{QStringLiteral("https://huggingface.co")};
    HfApiLimits limits_;
};

} // namespace hearth::download
