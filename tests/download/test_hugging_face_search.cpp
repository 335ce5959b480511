// The Hugging Face search: the API's JSON read as hostile input (wrong types,
// missing fields, huge arrays, paths that try to leave the models folder), the
// quantization read from file names, whole searches against a loopback server
// answering in the API's shapes, with its failures, and one file's SHA-256 read from
// its repository's file list (for downloads nobody gave a digest for).
#include "app/download/gguf_quantization_name.h"
#include "app/download/hf_model_api.h"
#include "app/download/hugging_face_search.h"
#include "app/download/network_access.h"
#include "tests/download/loopback_http_server.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <QUrlQuery>

using namespace hearth::download;
using hearth::test::LoopbackHttpServer;

namespace {

QByteArray toJson(const QJsonValue& value) {
    return value.isArray() ? QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact)
                           : QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact);
}

const QString kDigest = QStringLiteral("3f786850e387550fdab836ed7e6dc881de23001b3f786850e387550fdab836ed");

QJsonObject lfsFile(const QString& name, qint64 bytes, const QString& sha256 = kDigest) {
    return {{"rfilename", name},
            {"size", bytes},
            {"lfs", QJsonObject{{"sha256", sha256}, {"size", bytes}, {"pointerSize", 134}}}};
}

// A repository's answer to GET /api/models/ID?blobs=true, as the API shapes it.
QJsonObject repositoryInfo(const QString& id, const QJsonArray& siblings,
                           const QString& architecture = QStringLiteral("qwen2")) {
    return {{"_id", "65f0c0ffee"},
            {"id", id},
            {"downloads", 12345},
            {"likes", 67},
            {"tags", QJsonArray{"gguf", "text-generation"}},
            {"gguf",
             QJsonObject{{"total", 494032768}, {"architecture", architecture}, {"context_length", 32768}}},
            {"siblings", siblings}};
}

QJsonArray searchAnswer(const QStringList& ids) {
    QJsonArray models;
    for (const QString& id : ids)
        models.append(
            QJsonObject{{"_id", "x"}, {"id", id}, {"likes", 1}, {"downloads", 2}, {"private", false}});
    return models;
}

} // namespace

class TestHuggingFaceSearch : public QObject {
    Q_OBJECT

    std::unique_ptr<QNetworkAccessManager> network_;
    std::unique_ptr<LoopbackHttpServer> server_;

    HfSearchResult searchFor(const QString& text, int limit = 10) {
        HuggingFaceSearch search(network_.get());
        search.setBaseUrl(server_->urlOf(QString()));
        return QCoro::waitFor(search.search(text, limit));
    }

private slots:
    void initTestCase() { qputenv("no_proxy", "127.0.0.1,localhost"); }
    void init() {
        network_ = makeNetworkAccess();
        server_ = std::make_unique<LoopbackHttpServer>(QByteArray("unused"));
        QVERIFY(server_->listen());
    }
    void cleanup() {
        server_.reset();
        network_.reset();
    }

    void the_quantization_is_read_from_the_file_name_data() {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QString>("quantization");
        QTest::newRow("llama.cpp lower case") << "qwen2.5-0.5b-instruct-q4_k_m.gguf"
                                              << "Q4_K_M";
        QTest::newRow("dotted") << "Meta-Llama-3-8B-Instruct.Q8_0.gguf"
                                << "Q8_0";
        QTest::newRow("i-quant") << "Llama-3.2-1B-Instruct-IQ3_XXS.gguf"
                                 << "IQ3_XXS";
        QTest::newRow("repacked") << "phi-2-Q4_0_4_4.gguf"
                                  << "Q4_0_4_4";
        QTest::newRow("float") << "gemma-2b-f16.gguf"
                               << "F16";
        QTest::newRow("bfloat") << "model-BF16.gguf"
                                << "BF16";
        QTest::newRow("in a folder") << "Q5_K_M/model-Q5_K_M.gguf"
                                     << "Q5_K_M";
        QTest::newRow("the last token wins") << "q2-finetune-Q6_K.gguf"
                                             << "Q6_K";
        QTest::newRow("model name only") << "Qwen2.5-0.5B-Instruct.gguf"
                                         << "";
        QTest::newRow("not at a separator") << "xq4_k_m.gguf"
                                            << "";
    }
    void the_quantization_is_read_from_the_file_name() {
        QFETCH(QString, fileName);
        QFETCH(QString, quantization);
        QCOMPARE(quantizationFromFileName(fileName), quantization);
    }

    void repository_ids_are_checked() {
        QVERIFY(isValidRepositoryId("Qwen/Qwen2.5-0.5B-Instruct-GGUF"));
        QVERIFY(isValidRepositoryId("a/b"));
        for (const char* bad : {"", "noslash", "a/b/c", "../x", "a/..", "a/.hidden", "a /b", "a/b?x=1",
                                "a/b#c", "-a/b", "a\\b"})
            QVERIFY2(!isValidRepositoryId(QString::fromLatin1(bad)), bad);
        QVERIFY(!isValidRepositoryId(QString(97, 'a') + "/b"));
    }

    void a_search_answer_keeps_valid_ids_only() {
        QJsonArray models = searchAnswer({"owner/good-GGUF", "owner/good-GGUF", "x/../../etc"});
        models.append(QJsonObject{{"modelId", "old/style"}});
        models.append(QJsonObject{{"id", 42}});
        models.append(QJsonArray{1, 2});
        models.append("owner/string-not-object");
        models.append(QJsonValue::Null);
        const HfSearchParse parsed = parseModelSearch(toJson(models));
        QVERIFY(parsed.error.isEmpty());
        QCOMPARE(parsed.repositoryIds, QStringList({"owner/good-GGUF", "old/style"}));
    }

    void a_search_answer_that_is_not_a_list_is_refused() {
        QVERIFY(!parseModelSearch("{\"error\":\"Invalid\"}").error.isEmpty());
        QVERIFY(!parseModelSearch("[{\"id\": \"a/b\"").error.isEmpty());
        QVERIFY(!parseModelSearch("").error.isEmpty());
        QVERIFY(!parseModelSearch("\"a/b\"").error.isEmpty());
    }

    void a_huge_search_answer_is_cut_to_the_limit() {
        QStringList ids;
        for (int i = 0; i < 5000; ++i)
            ids.append(QStringLiteral("owner/model-%1").arg(i));
        HfApiLimits limits;
        limits.maxRepositories = 7;
        const HfSearchParse parsed = parseModelSearch(toJson(searchAnswer(ids)), limits);
        QCOMPARE(parsed.repositoryIds.size(), 7);
        QCOMPARE(parsed.repositoryIds.last(), QString("owner/model-6"));
        limits.maxDocumentBytes = 1000;
        QVERIFY(!parseModelSearch(toJson(searchAnswer(ids)), limits).error.isEmpty());
    }

    void a_repository_lists_its_single_file_models() {
        const QJsonArray siblings{
            QJsonObject{{"rfilename", ".gitattributes"}, {"size", 1570}},
            QJsonObject{{"rfilename", "README.md"}, {"size", 5000}},
            lfsFile("qwen2.5-0.5b-instruct-q4_k_m.gguf", 491400032),
            lfsFile("qwen2.5-0.5b-instruct-fp16-00001-of-00002.gguf", 900000000), // a shard
            lfsFile("mmproj-model-f16.gguf", 600000000),                          // a vision projector
            QJsonObject{{"rfilename", "sub/model-Q8_0.gguf"}, {"size", 1000}},    // no LFS: size only
        };
        const HfRepositoryParse parsed =
            parseRepositoryInfo(toJson(repositoryInfo("Qwen/Qwen2.5-GGUF", siblings)), "Qwen/Qwen2.5-GGUF");
        QVERIFY2(parsed.error.isEmpty(), qPrintable(parsed.error));
        const HfRepository& repository = parsed.repository;
        QCOMPARE(repository.architecture, QString("qwen2"));
        QCOMPARE(repository.downloads, 12345);
        QCOMPARE(repository.files.size(), 2);
        QCOMPARE(repository.files[0].path, QString("qwen2.5-0.5b-instruct-q4_k_m.gguf"));
        QCOMPARE(repository.files[0].bytes, 491400032);
        QCOMPARE(repository.files[0].sha256Hex, kDigest.toLatin1());
        QCOMPARE(repository.files[0].quantization, QString("Q4_K_M"));
        QCOMPARE(repository.files[1].path, QString("sub/model-Q8_0.gguf"));
        QCOMPARE(repository.files[1].bytes, 1000);
        QVERIFY(repository.files[1].sha256Hex.isEmpty());
    }

    // Every field of the wrong type, out of range or missing: the file is left out, or
    // kept with what is known, never taken as given.
    void hostile_repository_fields_are_left_out() {
        const QJsonArray siblings{
            QJsonObject{{"rfilename", "../../.bashrc.gguf"}, {"size", 10}},
            QJsonObject{{"rfilename", "/etc/passwd.gguf"}, {"size", 10}},
            QJsonObject{{"rfilename", "a/../b.gguf"}, {"size", 10}},
            QJsonObject{{"rfilename", "evil\\name.gguf"}, {"size", 10}},
            QJsonObject{{"rfilename", "new\nline.gguf"}, {"size", 10}},
            QJsonObject{{"rfilename", ".hidden.gguf"}, {"size", 10}},
            QJsonObject{{"rfilename", QString(400, 'a') + ".gguf"}, {"size", 10}},
            QJsonObject{{"rfilename", 12}, {"size", 10}},
            QJsonObject{{"size", 10}},
            QJsonValue("a-string.gguf"),
            QJsonObject{{"rfilename", "negative-Q4_0.gguf"}, {"size", -5}},
            QJsonObject{{"rfilename", "fraction-Q4_0.gguf"}, {"size", 1.5}},
            QJsonObject{{"rfilename", "huge-Q4_0.gguf"}, {"size", 1e300}},
            QJsonObject{{"rfilename", "text-size-Q4_0.gguf"}, {"size", "1000"}},
            lfsFile("bad-digest-Q4_0.gguf", 100, "not-hex"),
            QJsonObject{{"rfilename", "lfs-not-object-Q4_0.gguf"}, {"size", 7}, {"lfs", "x"}},
        };
        QJsonObject info = repositoryInfo("o/r", siblings, "Robert'); DROP TABLE");
        info["downloads"] = "many";
        info["likes"] = -3;
        const HfRepositoryParse parsed = parseRepositoryInfo(toJson(info), "o/r");
        QVERIFY2(parsed.error.isEmpty(), qPrintable(parsed.error));
        const HfRepository& repository = parsed.repository;
        QVERIFY(repository.architecture.isEmpty());
        QCOMPARE(repository.downloads, 0);
        QCOMPARE(repository.likes, 0);
        QStringList paths;
        for (const HfModelFile& file : repository.files) {
            paths.append(file.path);
            QVERIFY(file.sha256Hex.isEmpty());
        }
        QCOMPARE(paths,
                 QStringList({"negative-Q4_0.gguf", "fraction-Q4_0.gguf", "huge-Q4_0.gguf",
                              "text-size-Q4_0.gguf", "bad-digest-Q4_0.gguf", "lfs-not-object-Q4_0.gguf"}));
        QCOMPARE(repository.files[0].bytes, -1);
        QCOMPARE(repository.files[1].bytes, -1);
        QCOMPARE(repository.files[2].bytes, -1);
        QCOMPARE(repository.files[3].bytes, -1);
        QCOMPARE(repository.files[4].bytes, 100);
        QCOMPARE(repository.files[5].bytes, 7);
    }

    void a_repository_answer_of_the_wrong_shape_is_refused() {
        QVERIFY(!parseRepositoryInfo("[]", "o/r").error.isEmpty());
        QVERIFY(!parseRepositoryInfo("{\"id\": \"o/other\", \"siblings\": []}", "o/r").error.isEmpty());
        QVERIFY(!parseRepositoryInfo("{\"siblings\": []}", "o/r").error.isEmpty());
        QVERIFY(!parseRepositoryInfo("{\"id\": \"o/r\", \"siblings\": [", "o/r").error.isEmpty());
        // No siblings, or siblings of the wrong type: a repository with no files.
        QVERIFY(parseRepositoryInfo("{\"id\": \"o/r\"}", "o/r").repository.files.isEmpty());
        QVERIFY(parseRepositoryInfo("{\"id\": \"o/r\", \"siblings\": {\"a\": 1}}", "o/r")
                    .repository.files.isEmpty());
    }

    void a_huge_file_list_is_read_only_up_to_the_limits() {
        QJsonArray siblings;
        for (int i = 0; i < 20000; ++i)
            siblings.append(lfsFile(QStringLiteral("m-%1-Q4_0.gguf").arg(i), i));
        HfApiLimits limits;
        limits.maxDocumentBytes = 64 << 20;
        const HfRepositoryParse kept =
            parseRepositoryInfo(toJson(repositoryInfo("o/r", siblings)), "o/r", limits);
        QCOMPARE(kept.repository.files.size(), limits.maxFilesKept);
        limits.maxFilesKept = 100000;
        limits.maxSiblingsRead = 300;
        const HfRepositoryParse read =
            parseRepositoryInfo(toJson(repositoryInfo("o/r", siblings)), "o/r", limits);
        QCOMPARE(read.repository.files.size(), 300);
    }

    void file_urls_follow_the_resolve_scheme() {
        QCOMPARE(hfFileUrl(QUrl("https://huggingface.co"), "o/r", "sub/m-Q4_0.gguf"),
                 QUrl("https://huggingface.co/o/r/resolve/main/sub/m-Q4_0.gguf"));
        QCOMPARE(hfFileUrl(QUrl("http://127.0.0.1:9/mirror/"), "o/r", "m.gguf"),
                 QUrl("http://127.0.0.1:9/mirror/o/r/resolve/main/m.gguf"));
    }

    // A whole search over HTTP: the query the API expects, then each repository's files.
    void a_search_lists_each_repositorys_files() {
        server_->routes["/api/models"] = {
            toJson(searchAnswer({"Qwen/Qwen2.5-GGUF", "empty/no-gguf", "bob/tiny"}))};
        server_->routes["/api/models/Qwen/Qwen2.5-GGUF"] = {toJson(repositoryInfo(
            "Qwen/Qwen2.5-GGUF", {lfsFile("q-q4_k_m.gguf", 400), lfsFile("q-q8_0.gguf", 800)}))};
        server_->routes["/api/models/empty/no-gguf"] = {
            toJson(repositoryInfo("empty/no-gguf", {QJsonObject{{"rfilename", "README.md"}, {"size", 1}}}))};
        server_->routes["/api/models/bob/tiny"] = {
            toJson(repositoryInfo("bob/tiny", {lfsFile("tiny-F16.gguf", 99)}, "llama"))};

        const HfSearchResult result = searchFor("  qwen 2.5 & co+ ", 3);
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QVERIFY(result.problems.isEmpty());
        QCOMPARE(result.repositories.size(), 2); // the one without GGUF files is left out
        QCOMPARE(result.repositories[0].id, QString("Qwen/Qwen2.5-GGUF"));
        QCOMPARE(result.repositories[0].files.size(), 2);
        QCOMPARE(result.repositories[0].files[1].quantization, QString("Q8_0"));
        QCOMPARE(result.repositories[1].id, QString("bob/tiny"));
        QCOMPARE(result.repositories[1].architecture, QString("llama"));

        QCOMPARE(server_->requests.size(), 4);
        const QUrl searchUrl = server_->urlOf(QString::fromLatin1(server_->requests[0].path));
        QCOMPARE(searchUrl.path(), QString("/api/models"));
        const QUrlQuery query(searchUrl);
        QCOMPARE(query.queryItemValue("search", QUrl::FullyDecoded), QString("qwen 2.5 & co+"));
        QCOMPARE(query.queryItemValue("filter"), QString("gguf"));
        QCOMPARE(query.queryItemValue("limit"), QString("3"));
        QStringList infoPaths;
        for (int i = 1; i < server_->requests.size(); ++i)
            infoPaths.append(QString::fromLatin1(server_->requests[i].path));
        infoPaths.sort();
        QCOMPARE(infoPaths,
                 QStringList({"/api/models/Qwen/Qwen2.5-GGUF?blobs=true", "/api/models/bob/tiny?blobs=true",
                              "/api/models/empty/no-gguf?blobs=true"}));
    }

    void a_failing_repository_is_reported_and_the_others_shown() {
        server_->routes["/api/models"] = {toJson(searchAnswer({"a/broken", "a/missing", "a/good"}))};
        server_->routes["/api/models/a/broken"] = {"{\"id\": \"a/broken\", \"siblings\": [tru"};
        server_->routes["/api/models/a/good"] = {
            toJson(repositoryInfo("a/good", {lfsFile("g-Q4_0.gguf", 5)}))};
        const HfSearchResult result = searchFor("a");
        QVERIFY(result.error.isEmpty());
        QCOMPARE(result.repositories.size(), 1);
        QCOMPARE(result.repositories[0].id, QString("a/good"));
        QCOMPARE(result.problems.size(), 2);
        QVERIFY2(result.problems[0].startsWith("a/broken: ") && result.problems[0].contains("not valid JSON"),
                 qPrintable(result.problems[0]));
        QVERIFY2(result.problems[1].startsWith("a/missing: ") && result.problems[1].contains("404"),
                 qPrintable(result.problems[1]));
    }

    void a_failed_search_says_why_in_plain_words() {
        server_->routes["/api/models"] = {"slow down", 429, "text/plain"};
        HfSearchResult result = searchFor("x");
        QVERIFY2(result.error.contains("429") && result.error.contains("try again later"),
                 qPrintable(result.error));

        server_->routes["/api/models"] = {"{\"error\": \"Invalid filter\"}"};
        result = searchFor("x");
        QVERIFY2(result.error.contains("not a list"), qPrintable(result.error));

        QVERIFY(searchFor("   ").error.contains("type part of"));
        QVERIFY(
            searchFor(QString(HuggingFaceSearch::kMaxQueryLength + 1, 'a')).error.contains("longer than"));
        QCOMPARE(server_->requests.size(), 2); // the empty and the long search never left the machine

        const quint16 port = server_->port();
        server_->stop();
        HuggingFaceSearch search(network_.get());
        search.setBaseUrl(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port)));
        result = QCoro::waitFor(search.search("x"));
        QVERIFY2(result.error.contains("could not connect"), qPrintable(result.error));
    }

    void a_download_address_names_its_repository_file_data() {
        QTest::addColumn<QUrl>("url");
        QTest::addColumn<QString>("repository"); // empty: the address names no repository file
        QTest::addColumn<QString>("revision");
        QTest::addColumn<QString>("path");
        QTest::newRow("catalog") << QUrl(
                                        "https://huggingface.co/bartowski/Qwen2.5-0.5B-Instruct-GGUF/resolve/"
                                        "main/Qwen2.5-0.5B-Instruct-Q4_K_M.gguf")
                                 << "bartowski/Qwen2.5-0.5B-Instruct-GGUF"
                                 << "main"
                                 << "Qwen2.5-0.5B-Instruct-Q4_K_M.gguf";
        QTest::newRow("mirror, folder, commit")
            << QUrl("http://127.0.0.1:9/mirror/o/r/resolve/0a1b2c/Q4_K_M/m-Q4_K_M.gguf") << "o/r"
            << "0a1b2c"
            << "Q4_K_M/m-Q4_K_M.gguf";
        QTest::newRow("no resolve") << QUrl("https://huggingface.co/o/r/blob/main/m.gguf") << ""
                                    << ""
                                    << "";
        QTest::newRow("no repository") << QUrl("https://huggingface.co/r/resolve/main/m.gguf") << ""
                                       << ""
                                       << "";
        QTest::newRow("not a model file") << QUrl("https://huggingface.co/o/r/resolve/main/README.md") << ""
                                          << ""
                                          << "";
        QTest::newRow("leaves the repository")
            << QUrl("https://huggingface.co/o/r/resolve/main/%2E%2E/x.gguf") << ""
            << ""
            << "";
        QTest::newRow("bad revision") << QUrl("https://huggingface.co/o/r/resolve/a%3Fb/m.gguf") << ""
                                      << ""
                                      << "";
    }
    void a_download_address_names_its_repository_file() {
        QFETCH(QUrl, url);
        QFETCH(QString, repository);
        QFETCH(QString, revision);
        QFETCH(QString, path);
        const std::optional<HfFileLocation> location = hfFileLocation(url);
        QCOMPARE(location.has_value(), !repository.isEmpty());
        if (!location) return;
        QCOMPARE(location->repositoryId, repository);
        QCOMPARE(location->revision, revision);
        QCOMPARE(location->path, path);
    }

    // A file's SHA-256 comes from the LFS pointer in its repository's file list, the same
    // list a search reads; at another revision, from that revision's list.
    void a_files_checksum_comes_from_its_repository_file_list() {
        const QString upper = kDigest.toUpper();
        server_->routes["/api/models/o/Tiny-GGUF"] = {
            toJson(repositoryInfo("o/Tiny-GGUF", {lfsFile("tiny-Q8_0.gguf", 10, QString(64, 'a')),
                                                  lfsFile("tiny-Q4_K_M.gguf", 77, upper)}))};
        server_->routes["/api/models/o/Tiny-GGUF/revision/0a1b2c"] = {
            toJson(repositoryInfo("o/Tiny-GGUF", {lfsFile("tiny-Q4_K_M.gguf", 66, QString(64, 'b'))}))};
        HuggingFaceSearch api(network_.get());
        api.setBaseUrl(server_->urlOf(QString()));

        HfFileChecksum found = QCoro::waitFor(api.fileChecksum({"o/Tiny-GGUF", "main", "tiny-Q4_K_M.gguf"}));
        QVERIFY2(found.error.isEmpty(), qPrintable(found.error));
        QCOMPARE(found.sha256Hex, kDigest.toLatin1());
        QCOMPARE(found.bytes, qint64(77));
        found = QCoro::waitFor(api.fileChecksum({"o/Tiny-GGUF", "0a1b2c", "tiny-Q4_K_M.gguf"}));
        QCOMPARE(found.sha256Hex, QByteArray(64, 'b'));
        QCOMPARE(server_->requests.size(), 2);
        QCOMPARE(server_->requests[0].path, QByteArray("/api/models/o/Tiny-GGUF?blobs=true"));
        QCOMPARE(server_->requests[1].path, QByteArray("/api/models/o/Tiny-GGUF/revision/0a1b2c?blobs=true"));
    }

    void a_missing_checksum_says_why_data() {
        QTest::addColumn<QByteArray>("answer");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("reason");
        const auto answer = [](const QJsonArray& siblings) {
            return toJson(repositoryInfo("o/r", siblings));
        };
        QTest::newRow("not listed") << answer({lfsFile("other-Q4_0.gguf", 5)}) << 200
                                    << "does not list m.gguf";
        QTest::newRow("no lfs") << answer({QJsonObject{{"rfilename", "m.gguf"}, {"size", 5}}}) << 200
                                << "without a SHA-256";
        QTest::newRow("bad digest") << answer({lfsFile("m.gguf", 5, "12345")}) << 200 << "without a SHA-256";
        QTest::newRow("digest of the wrong type")
            << answer({QJsonObject{{"rfilename", "m.gguf"}, {"lfs", QJsonObject{{"sha256", 7}}}}}) << 200
            << "without a SHA-256";
        QTest::newRow("another repository") << toJson(repositoryInfo("o/other", {lfsFile("m.gguf", 5)}))
                                            << 200 << "did not send the file list of o/r";
        QTest::newRow("not JSON") << QByteArray("{\"id\": \"o/r\", \"sib") << 200 << "not valid JSON";
        QTest::newRow("gone") << QByteArray("{}") << 404 << "404";
    }
    void a_missing_checksum_says_why() {
        QFETCH(QByteArray, answer);
        QFETCH(int, status);
        QFETCH(QString, reason);
        server_->routes["/api/models/o/r"] = {answer, status};
        HuggingFaceSearch api(network_.get());
        api.setBaseUrl(server_->urlOf(QString()));
        const HfFileChecksum found = QCoro::waitFor(api.fileChecksum({"o/r", "main", "m.gguf"}));
        QVERIFY(found.sha256Hex.isEmpty());
        QVERIFY2(found.error.contains(reason), qPrintable(found.error));
    }

    // An answer larger than the limit is cut off while it arrives.
    void an_oversized_answer_is_refused() {
        server_->routes["/api/models"] = {QByteArray(300000, ' ') + "[]"};
        HuggingFaceSearch search(network_.get());
        search.setBaseUrl(server_->urlOf(QString()));
        HfApiLimits limits;
        limits.maxDocumentBytes = 100000;
        search.setLimits(limits);
        const HfSearchResult result = QCoro::waitFor(search.search("x"));
        QVERIFY2(result.error.contains("too large"), qPrintable(result.error));
    }
};

QTEST_GUILESS_MAIN(TestHuggingFaceSearch)
#include "test_hugging_face_search.moc"
