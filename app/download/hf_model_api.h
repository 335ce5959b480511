#pragma once
// Hugging Face's model API, read as untrusted input: the answer to a search
// (GET /api/models?search=NAME&filter=gguf) and one repository's files with their
// sizes and SHA-256 (GET /api/models/OWNER/NAME?blobs=true, each file's `lfs.sha256`). Wrong types, missing
// fields and oversized arrays never reach the app: a bad entry is left out, a bad
// document is refused with a plain-words reason.
#include <QByteArray>
#include <QList>
#include <QString>
#include <QUrl>
#include <optional>

namespace hearth::download {

struct HfModelFile {
    QString path;         // inside the repository: "Qwen2.5-0.5B-Instruct-Q4_K_M.gguf"
    qint64 bytes = -1;    // -1 when the API did not say
    QByteArray sha256Hex; // lowercase, from the LFS pointer; empty when unknown
    QString quantization; // from the name ("Q4_K_M"); empty when it says none
};

struct HfRepository {
    QString id;           // "owner/name"
    QString architecture; // from the API's GGUF summary ("qwen2"); empty when unknown
    qint64 downloads = 0;
    qint64 likes = 0;
    QList<HfModelFile> files; // the single-file GGUF models, in the API's order
};

struct HfApiLimits {
    qsizetype maxDocumentBytes = 8 << 20;
    int maxRepositories = 50;
    int maxSiblingsRead = 10000; // entries of a repository's file list looked at
    int maxFilesKept = 200;      // GGUF files kept per repository
};

struct HfSearchParse {
    QStringList repositoryIds; // valid "owner/name" ids, at most maxRepositories
    QString error;             // empty when the document was usable
};

struct HfRepositoryParse {
    HfRepository repository;
    QString error;
};

// Whether `id` is a well-formed "owner/name" (letters, digits, '-', '_', '.').
bool isValidRepositoryId(const QString& id);
HfSearchParse parseModelSearch(const QByteArray& json, const HfApiLimits& limits = {});
// `expectedId` is the repository asked for; an answer about another one is refused.
HfRepositoryParse parseRepositoryInfo(const QByteArray& json, const QString& expectedId,
                                      const HfApiLimits& limits = {});

// Where Hugging Face serves a repository file: BASE/owner/name/resolve/main/PATH.
QUrl hfFileUrl(const QUrl& base, const QString& repositoryId, const QString& path);

// The file a Hugging Face download address names (".../owner/name/resolve/REVISION/PATH").
struct HfFileLocation {
    QString repositoryId; // "owner/name"
    QString revision;     // "main", a branch or a commit
    QString path;         // inside the repository
};
// Read from the address's path whatever its host (a mirror, a test server); nullopt when
// the path names no repository file.
std::optional<HfFileLocation> hfFileLocation(const QUrl& url);

} // namespace hearth::download
