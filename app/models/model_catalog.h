#pragma once
// The catalog of recommended GGUF models: a JSON document shipped as a resource
// (and one day fetched from a URL), parsed as untrusted input. A catalog that
// breaks any rule is refused whole, with an error naming the entry and the field.
#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <QUrl>
#include <optional>

namespace hearth::app {

// A second file an entry's model needs, downloaded with it into the models folder: a vision
// model's image projector (mmproj), saved under a name the model picker pairs with the model.
struct CatalogFile {
    QUrl url;             // https, on an allowed host, naming a .gguf file
    QByteArray sha256Hex; // lowercase, required
    QString sha256Source;
    qint64 fileBytes = 0;
    QString fileName; // the name in the models folder
};

struct CatalogEntry {
    QString id;           // unique, [a-z0-9._-]
    QString name;         // what the models page shows
    QString architecture; // general.architecture of the file: "qwen2", "llama", ...
    qint64 parameters = 0;
    qint64 activeParameters = 0; // a mixture of experts: those a token multiplies; 0: all of them
    QString quantization;        // "Q4_K_M"
    QString licence;
    qint64 fileBytes = 0;   // size of the file (approximate where the catalog says so)
    qint64 memoryBytes = 0; // estimated memory to run it (weights and a 4096-token context)
    QUrl url;               // https, on an allowed host, naming a .gguf file
    QByteArray sha256Hex;   // lowercase; empty when the catalog does not know it
    QString sha256Source;   // who published the digest: "LocalAI model gallery, ... at commit 82c191a"
    // The catalog entry that drafts for this one in speculative decoding (a smaller model of the
    // same family and vocabulary, which the engine checks again at load); empty: none.
    QString draftId;
    // A vision model's image projector, downloaded with the model; none when empty.
    std::optional<CatalogFile> projector;
    [[nodiscard]] QString fileName() const { return url.fileName(QUrl::FullyDecoded); }
};

struct CatalogParseResult {
    QList<CatalogEntry> entries;
    QString error; // empty when the catalog was accepted
};

struct CatalogRules {
    QStringList allowedHosts{QStringLiteral("huggingface.co")};
    qsizetype maxDocumentBytes = 1 << 20;
    int maxEntries = 500;
};

CatalogParseResult parseModelCatalog(const QByteArray& json, const CatalogRules& rules = {});
// The catalog shipped with the app (a Qt resource).
CatalogParseResult builtInModelCatalog();

} // namespace hearth::app
