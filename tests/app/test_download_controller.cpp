// The models page's downloads against a real HTTP server on loopback: a catalog
// entry downloads into the models folder and is announced to the picker; pause,
// resume and cancel; and a partial file left by an earlier run of the app shows
// as paused and resumes from where it stopped, also when the controller itself was
// destroyed mid-download (the app quit); a file found by the Hugging Face search
// joins the list and downloads, verified by the SHA-256 the API gave; and a catalog
// entry without a SHA-256 gets the API's, or is refused when there is none.
#include "app/models/download_controller.h"
#include "app/settings/app_settings.h"
#include "tests/download/download_test_helpers.h"
#include "tests/download/loopback_http_server.h"
#include <QAbstractItemModelTester>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>
#include <qcoro/qcorotask.h>

using namespace hearth::app;
using hearth::test::LoopbackHttpServer;

namespace {

constexpr qint64 kFileBytes = 768 * 1024;

QString stateOf(DownloadController& controller, int row = 0) {
    CatalogListModel* model = controller.catalog();
    return model->data(model->index(row), CatalogListModel::DownloadStateRole).toString();
}

} // namespace

class TestDownloadController : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> dir_;
    std::unique_ptr<AppSettings> settings_;
    std::unique_ptr<LoopbackHttpServer> server_;

    CatalogParseResult catalogFor(const QByteArray& sha256) const {
        CatalogEntry entry;
        entry.id = "tiny";
        entry.name = "Tiny";
        entry.architecture = "qwen2";
        entry.parameters = 1000;
        entry.quantization = "Q4_K_M";
        entry.licence = "Apache-2.0";
        entry.fileBytes = kFileBytes;
        entry.memoryBytes = kFileBytes * 2;
        entry.url = server_->fileUrl();
        entry.sha256Hex = sha256;
        return {{entry}, {}};
    }
    QString modelsFolder() const { return dir_->filePath("models"); }
    QString finalPath() const { return modelsFolder() + "/model.gguf"; }
    QString partPath() const { return modelsFolder() + "/model.gguf.part"; }
    QByteArray goodSha() const { return hearth::test::sha256Hex(server_->content()); }

    // The API's answers for one repository, someone/Tiny-GGUF, with two files; the second
    // is the server's file (at `fileRoute`, or redirected to /files/ as Hugging Face
    // redirects /resolve/ to its CDN).
    void serveSearchApi(bool redirectToFiles) {
        const auto lfsFile = [](const QString& name, qint64 bytes, const QByteArray& sha) {
            return QJsonObject{{"rfilename", name},
                               {"size", bytes},
                               {"lfs", QJsonObject{{"sha256", QString::fromLatin1(sha)}, {"size", bytes}}}};
        };
        const QJsonArray search{QJsonObject{{"id", "someone/Tiny-GGUF"}}};
        const QJsonObject info{
            {"id", "someone/Tiny-GGUF"},
            {"gguf", QJsonObject{{"architecture", "qwen2"}}},
            {"siblings", QJsonArray{lfsFile("tiny-Q8_0.gguf", 10, QByteArray(64, 'a')),
                                    lfsFile("tiny-Q4_K_M.gguf", server_->content().size(), goodSha())}}};
        server_->routes["/api/models"] = {QJsonDocument(search).toJson()};
        server_->routes["/api/models/someone/Tiny-GGUF"] = {QJsonDocument(info).toJson()};
        LoopbackHttpServer::Route file{server_->content(), 200, "application/octet-stream"};
        if (redirectToFiles) file = {{}, 302, "text/plain", "/files/model.gguf"};
        server_->routes["/someone/Tiny-GGUF/resolve/main/tiny-Q4_K_M.gguf"] = file;
    }
    QString searchedFilePath() const { return modelsFolder() + "/tiny-Q4_K_M.gguf"; }

private slots:
    void initTestCase() { qputenv("no_proxy", "127.0.0.1,localhost"); }
    void init() {
        dir_ = std::make_unique<QTemporaryDir>();
        QVERIFY(dir_->isValid());
        settings_ = std::make_unique<AppSettings>(dir_->filePath("settings.ini"), modelsFolder());
        settings_->setModelsFolder(modelsFolder());
        server_ = std::make_unique<LoopbackHttpServer>(hearth::test::patternedBytes(kFileBytes));
        QVERIFY(server_->listen());
    }
    void cleanup() {
        server_.reset();
        settings_.reset();
        dir_.reset();
    }

    void the_built_in_catalog_is_loaded() {
        DownloadController controller(settings_.get());
        QVERIFY2(controller.catalogError().isEmpty(), qPrintable(controller.catalogError()));
        QVERIFY(controller.catalog()->rowCount() >= 8);
    }

    // A vision model's projector comes with it: both files verified into the models folder, each
    // announced (the picker rescans and pairs them), the entry done only when both are; a folder
    // that lacks the projector offers the download again.
    void a_projector_is_downloaded_with_its_model() {
        const QByteArray projectorBytes = hearth::test::patternedBytes(70000).right(65000);
        server_->routes["/mmproj-model-f16.gguf"] = {projectorBytes, 200, "application/octet-stream"};
        CatalogParseResult catalog = catalogFor(goodSha());
        CatalogFile projector;
        projector.url = server_->fileUrl().resolved(QUrl("/mmproj-model-f16.gguf"));
        projector.sha256Hex = hearth::test::sha256Hex(projectorBytes);
        projector.fileBytes = projectorBytes.size();
        projector.fileName = "mmproj-model-f16.gguf";
        catalog.entries[0].projector = projector;

        DownloadController controller(settings_.get());
        controller.setCatalog(catalog);
        QSignalSpy downloaded(&controller, &DownloadController::modelDownloaded);
        controller.download("tiny");
        QTRY_COMPARE_WITH_TIMEOUT(downloaded.size(), 2, 30000);
        QStringList paths{downloaded[0][0].toString(), downloaded[1][0].toString()};
        paths.sort();
        QStringList expected{finalPath(), modelsFolder() + "/mmproj-model-f16.gguf"};
        expected.sort();
        QCOMPARE(paths, expected);
        QCOMPARE(hearth::test::fileBytes(finalPath()), server_->content());
        QCOMPARE(hearth::test::fileBytes(modelsFolder() + "/mmproj-model-f16.gguf"), projectorBytes);
        QTRY_COMPARE(stateOf(controller), QString("done"));
        CatalogListModel* model = controller.catalog();
        QCOMPARE(model->data(model->index(0), CatalogListModel::ProgressRole).toDouble(), 1.0);
        QVERIFY(!model->data(model->index(0), CatalogListModel::ProjectorSizeRole).toString().isEmpty());

        // A damaged projector is refused by its SHA-256, and the entry says so.
        QVERIFY(QFile::remove(modelsFolder() + "/mmproj-model-f16.gguf"));
        DownloadController again(settings_.get());
        again.setCatalog(catalog);
        again.refreshLocalFiles();
        QTRY_COMPARE(stateOf(again), QString("none")); // the model alone is not the entry
        server_->routes["/mmproj-model-f16.gguf"] = {QByteArray(projectorBytes).replace(10, 1, "x"), 200,
                                                     "application/octet-stream"};
        again.download("tiny");
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(again), QString("failed"), 30000);
        QVERIFY(!QFileInfo::exists(modelsFolder() + "/mmproj-model-f16.gguf"));
    }

    void a_download_lands_in_the_models_folder_and_is_announced() {
        DownloadController controller(settings_.get());
        controller.setCatalog(catalogFor(goodSha()));
        QSignalSpy downloaded(&controller, &DownloadController::modelDownloaded);
        controller.download("tiny");
        QVERIFY(downloaded.wait(30000));
        QCOMPARE(downloaded[0][0].toString(), finalPath());
        QCOMPARE(hearth::test::fileBytes(finalPath()), server_->content());
        QCOMPARE(stateOf(controller), QString("done"));
        CatalogListModel* model = controller.catalog();
        QCOMPARE(model->data(model->index(0), CatalogListModel::ProgressRole).toDouble(), 1.0);
    }

    void pause_resume_and_cancel() {
        server_->faults.chunkBytes = 16 * 1024;
        server_->faults.chunkIntervalMsecs = 5;
        DownloadController controller(settings_.get());
        controller.setCatalog(catalogFor(goodSha()));
        controller.download("tiny");
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(partPath()).size() >= 64 * 1024, 30000);
        QCOMPARE(stateOf(controller), QString("running"));
        controller.pause("tiny");
        QCOMPARE(stateOf(controller), QString("paused"));
        const qint64 kept = QFileInfo(partPath()).size();

        QSignalSpy downloaded(&controller, &DownloadController::modelDownloaded);
        server_->faults.chunkBytes = 0;
        controller.download("tiny"); // resume
        QVERIFY(downloaded.wait(30000));
        QCOMPARE(server_->requests.last().range, "bytes=" + QByteArray::number(kept) + "-");
        QCOMPARE(hearth::test::fileBytes(finalPath()), server_->content());

        // Cancel deletes what was downloaded of an unfinished file.
        QFile::remove(finalPath());
        DownloadController again(settings_.get());
        again.setCatalog(catalogFor(goodSha()));
        server_->faults.chunkBytes = 16 * 1024;
        again.download("tiny");
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(partPath()).size() > 0, 30000);
        again.cancel("tiny");
        QCOMPARE(stateOf(again), QString("none"));
        QVERIFY(!QFileInfo::exists(partPath()));
    }

    // The app quit mid-download: the next run shows the entry as paused, with what
    // it has, and resuming asks the server only for the rest.
    void a_partial_file_from_an_earlier_run_shows_as_paused_and_resumes() {
        QVERIFY(QDir().mkpath(modelsFolder()));
        const qint64 have = 200000;
        QVERIFY(hearth::test::writeBytes(partPath(), server_->content().left(have)));
        DownloadController controller(settings_.get());
        controller.setCatalog(catalogFor(goodSha()));
        QCoro::waitFor(controller.refreshLocalFiles());
        QCOMPARE(stateOf(controller), QString("paused"));
        CatalogListModel* model = controller.catalog();
        QVERIFY(
            model->data(model->index(0), CatalogListModel::TransferRole).toString().startsWith("200 KB of"));

        QSignalSpy downloaded(&controller, &DownloadController::modelDownloaded);
        controller.download("tiny");
        QVERIFY(downloaded.wait(30000));
        QCOMPARE(server_->requests.size(), 1);
        QCOMPARE(server_->requests[0].range, QByteArray("bytes=200000-"));
        QCOMPARE(hearth::test::fileBytes(finalPath()), server_->content());
    }

    // The note on such an entry, and the transfer line, in the app's language (German here).
    void a_partial_file_from_an_earlier_run_is_described_in_german() {
        QTranslator german;
        QVERIFY(german.load(QStringLiteral("hearth_de"), QStringLiteral(":/i18n")));
        QVERIFY(QCoreApplication::installTranslator(&german));
        const auto removeGerman = qScopeGuard([&german] { QCoreApplication::removeTranslator(&german); });
        QVERIFY(QDir().mkpath(modelsFolder()));
        QVERIFY(hearth::test::writeBytes(partPath(), server_->content().left(200000)));
        DownloadController controller(settings_.get());
        controller.setCatalog(catalogFor(goodSha()));
        QCoro::waitFor(controller.refreshLocalFiles());
        QCOMPARE(stateOf(controller), QString("paused"));
        CatalogListModel* model = controller.catalog();
        QCOMPARE(model->data(model->index(0), CatalogListModel::NoteRole).toString(),
                 QString("bereits teilweise heruntergeladen; mit „Fortsetzen“ geht es weiter"));
        QCOMPARE(model->data(model->index(0), CatalogListModel::TransferRole).toString(),
                 QString("200 KB von 786 KB (25 %)"));
    }

    // A download started through the controller, the controller destroyed mid-file (the
    // app quit), a new one on the same models folder: it resumes from the partial file,
    // asks the server only for the rest, and verifies the SHA-256 of the whole.
    void a_download_resumes_after_the_app_quit_mid_file() {
        server_->faults.chunkBytes = 16 * 1024;
        server_->faults.chunkIntervalMsecs = 5;
        qint64 kept = 0;
        {
            DownloadController first(settings_.get());
            first.setCatalog(catalogFor(goodSha()));
            first.download("tiny");
            QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(partPath()).size() >= 128 * 1024, 30000);
            QCOMPARE(stateOf(first), QString("running"));
        } // quit: no pause, the transfer is simply dropped
        kept = QFileInfo(partPath()).size();
        QVERIFY(kept > 0 && kept < kFileBytes);
        QVERIFY(!QFileInfo::exists(finalPath()));
        QCOMPARE(server_->requests.size(), 1);
        QVERIFY(server_->requests[0].range.isEmpty());

        server_->faults.chunkBytes = 0;
        DownloadController second(settings_.get());
        second.setCatalog(catalogFor(goodSha()));
        QCoro::waitFor(second.refreshLocalFiles());
        QCOMPARE(stateOf(second), QString("paused"));
        QSignalSpy downloaded(&second, &DownloadController::modelDownloaded);
        second.download("tiny");
        QVERIFY(downloaded.wait(30000));
        QCOMPARE(server_->requests.size(), 2);
        QCOMPARE(server_->requests[1].range, "bytes=" + QByteArray::number(kept) + "-");
        QCOMPARE(server_->requests[1].status, 206);
        QCOMPARE(stateOf(second), QString("done"));
        CatalogListModel* model = second.catalog();
        QVERIFY(model->data(model->index(0), CatalogListModel::NoteRole).toString().contains("verified"));
        QCOMPARE(hearth::test::sha256Hex(hearth::test::fileBytes(finalPath())), goodSha());
        QVERIFY(!QFileInfo::exists(partPath()));
    }

    // Search, pick a file, download it: the file joins the list as an entry of its own,
    // lands under its own name and is verified against the digest the API gave.
    void a_search_result_downloads_into_the_models_folder() {
        const QByteArray content = server_->content();
        serveSearchApi(false);

        DownloadController controller(settings_.get());
        controller.setCatalog(catalogFor(goodSha()));
        HfSearchListModel* results = controller.search();
        QAbstractItemModelTester tester(results, QAbstractItemModelTester::FailureReportingMode::QtTest);
        results->setBaseUrl(server_->urlOf(QString()));
        QCoro::waitFor(results->searchAndWait("tiny"));
        QVERIFY2(results->error().isEmpty(), qPrintable(results->error()));
        QCOMPARE(results->rowCount(), 2);
        QCOMPARE(results->data(results->index(0), HfSearchListModel::FirstOfRepositoryRole).toBool(), true);
        QCOMPARE(results->data(results->index(1), HfSearchListModel::FirstOfRepositoryRole).toBool(), false);
        QCOMPARE(results->data(results->index(1), HfSearchListModel::QuantizationRole).toString(),
                 QString("Q4_K_M"));
        QCOMPARE(results->data(results->index(1), HfSearchListModel::RepositoryRole).toString(),
                 QString("someone/Tiny-GGUF"));
        QCOMPARE(results->data(results->index(1), HfSearchListModel::FileSizeRole).toString(),
                 QString("786 KB"));
        QCOMPARE(results->data(results->index(1), HfSearchListModel::RunnableRole).toBool(), true);

        QSignalSpy downloaded(&controller, &DownloadController::modelDownloaded);
        const QString id = controller.downloadSearchResult(1);
        QCOMPARE(id, QString("hf.someone-tiny-gguf.tiny-q4_k_m.gguf"));
        QCOMPARE(controller.catalog()->rowCount(), 2);
        QCOMPARE(controller.downloadSearchResult(1), id); // once only
        QCOMPARE(controller.catalog()->rowCount(), 2);
        QVERIFY(controller.downloadSearchResult(7).isEmpty());
        QVERIFY(downloaded.wait(30000));
        const QString landed = searchedFilePath();
        QCOMPARE(downloaded[0][0].toString(), landed);
        QCOMPARE(hearth::test::fileBytes(landed), content);
        QCOMPARE(stateOf(controller, 1), QString("done"));
        CatalogListModel* model = controller.catalog();
        QCOMPARE(model->data(model->index(1), CatalogListModel::QuantizationRole).toString(),
                 QString("Q4_K_M"));
        QCOMPARE(model->data(model->index(1), CatalogListModel::ChecksumKnownRole).toBool(), true);
        QVERIFY(model->data(model->index(1), CatalogListModel::NoteRole).toString().contains("verified"));
        QVERIFY(!QFileInfo::exists(landed + ".part.source")); // the restart record is gone with the .part
    }

    // The app quit in the middle of a download started from the search: the next run
    // lists that file again (it is in no catalog), paused, and resumes it.
    void a_search_download_resumes_after_the_app_quit() {
        serveSearchApi(true);
        server_->faults.chunkBytes = 16 * 1024;
        server_->faults.chunkIntervalMsecs = 5;
        const QString part = searchedFilePath() + ".part";
        {
            DownloadController first(settings_.get());
            first.setCatalog(catalogFor(goodSha()));
            first.search()->setBaseUrl(server_->urlOf(QString()));
            QCoro::waitFor(first.search()->searchAndWait("tiny"));
            QVERIFY(!first.downloadSearchResult(1).isEmpty());
            QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(part).size() >= 128 * 1024, 30000);
        }
        const qint64 kept = QFileInfo(part).size();
        QVERIFY(kept < kFileBytes);
        QVERIFY(QFileInfo::exists(searchedFilePath() + ".part.source"));

        server_->faults.chunkBytes = 0;
        DownloadController second(settings_.get());
        second.setCatalog(catalogFor(goodSha()));
        QCOMPARE(second.catalog()->rowCount(), 1);
        QCoro::waitFor(second.refreshLocalFiles());
        QCOMPARE(second.catalog()->rowCount(), 2);
        CatalogListModel* model = second.catalog();
        const QString id = model->data(model->index(1), CatalogListModel::IdRole).toString();
        QCOMPARE(id, QString("hf.someone-tiny-gguf.tiny-q4_k_m.gguf"));
        QCOMPARE(stateOf(second, 1), QString("paused"));
        QCOMPARE(model->data(model->index(1), CatalogListModel::QuantizationRole).toString(),
                 QString("Q4_K_M"));
        QCOMPARE(model->data(model->index(1), CatalogListModel::ChecksumKnownRole).toBool(), true);

        const qsizetype before = server_->requests.size();
        QSignalSpy downloaded(&second, &DownloadController::modelDownloaded);
        second.download(id);
        QVERIFY(downloaded.wait(30000));
        QCOMPARE(server_->requests.last().range, "bytes=" + QByteArray::number(kept) + "-");
        QCOMPARE(server_->requests.last().status, 206);
        QVERIFY(server_->requests.size() - before == 2); // the redirect, then the rest of the file
        QCOMPARE(hearth::test::fileBytes(searchedFilePath()), server_->content());
        QVERIFY(!QFileInfo::exists(searchedFilePath() + ".part.source"));
    }

    // A record beside a partial file is untrusted: one that is malformed, or names
    // another file than the one it sits beside, lists nothing.
    void a_bad_restart_record_is_ignored() {
        QVERIFY(QDir().mkpath(modelsFolder()));
        const QString part = modelsFolder() + "/x-Q4_0.gguf.part";
        QVERIFY(hearth::test::writeBytes(part, "partial"));
        const QByteArray good =
            R"({"id":"hf.o-r.x-q4_0.gguf","name":"o/r/x-Q4_0.gguf","architecture":"llama",)"
            R"("quantization":"Q4_0","url":"https://huggingface.co/o/r/resolve/main/x-Q4_0.gguf",)"
            R"("sha256":"","bytes":1000})";
        const QList<QByteArray> bad{
            "not json",
            "[1,2]",
            QByteArray(good).replace(R"(x-Q4_0.gguf",)", R"(other.gguf",)"), // names another file
            QByteArray(good).replace("https://", "file://"),
            QByteArray(good).replace("hf.o-r", "../etc"),
            QByteArray(good).replace(R"("sha256":"")", R"("sha256":"zz")"),
            QByteArray(good).replace("1000", "-1"),
            QByteArray(good).replace(R"("llama")", R"("Llama Drama")"),
        };
        for (const QByteArray& record : bad) {
            QVERIFY(hearth::test::writeBytes(part + ".source", record));
            DownloadController controller(settings_.get());
            controller.setCatalog({});
            QCoro::waitFor(controller.refreshLocalFiles());
            QVERIFY2(controller.catalog()->rowCount() == 0, record.constData());
        }
        QVERIFY(hearth::test::writeBytes(part + ".source", good));
        DownloadController controller(settings_.get());
        controller.setCatalog({});
        QCoro::waitFor(controller.refreshLocalFiles());
        QCOMPARE(controller.catalog()->rowCount(), 1);
        QCOMPARE(stateOf(controller), QString("paused"));
    }

    // A newer search replaces the rows; one that fails says why and shows none.
    void a_failed_search_clears_the_rows_and_says_why() {
        server_->routes["/api/models"] = {"[]"};
        DownloadController controller(settings_.get());
        HfSearchListModel* results = controller.search();
        results->setBaseUrl(server_->urlOf(QString()));
        QCoro::waitFor(results->searchAndWait("nothing-like-this"));
        QCOMPARE(results->rowCount(), 0);
        QVERIFY2(results->error().contains("no GGUF models found"), qPrintable(results->error()));
        QCOMPARE(results->searchedFor(), QString("nothing-like-this"));
        QVERIFY(!results->busy());
    }

    void a_failure_is_shown_in_plain_words() {
        DownloadController controller(settings_.get());
        CatalogParseResult catalog = catalogFor(goodSha());
        catalog.entries[0].url = server_->urlOf("/files/gone.gguf");
        controller.setCatalog(catalog);
        controller.download("tiny");
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(controller), QString("failed"), 30000);
        CatalogListModel* model = controller.catalog();
        const QString error = model->data(model->index(0), CatalogListModel::ErrorRole).toString();
        QVERIFY2(error.contains("not found") && error.contains("404"), qPrintable(error));
    }

    // A catalog entry without a SHA-256 (the built-in catalog's case): the file's digest
    // is asked of Hugging Face's API (its LFS pointer) first, and the download verified by it.
    CatalogParseResult catalogOfTheApiFile() const {
        CatalogParseResult catalog = catalogFor({});
        catalog.entries[0].url = server_->urlOf("/someone/Tiny-GGUF/resolve/main/tiny-Q4_K_M.gguf");
        return catalog;
    }
    void without_a_catalog_checksum_the_apis_is_used() {
        serveSearchApi(false);
        DownloadController controller(settings_.get());
        controller.setHuggingFaceBaseUrl(server_->urlOf(QString()));
        controller.setCatalog(catalogOfTheApiFile());
        QSignalSpy downloaded(&controller, &DownloadController::modelDownloaded);
        controller.download("tiny");
        QCOMPARE(stateOf(controller), QString("preparing"));
        QVERIFY(downloaded.wait(30000));
        QCOMPARE(hearth::test::fileBytes(searchedFilePath()), server_->content());
        CatalogListModel* model = controller.catalog();
        QVERIFY(model->data(model->index(0), CatalogListModel::NoteRole).toString().contains("verified"));
        QCOMPARE(server_->requests.first().path, QByteArray("/api/models/someone/Tiny-GGUF?blobs=true"));
    }

    void a_wrong_digest_from_the_api_fails_the_download() {
        serveSearchApi(false);
        QJsonObject info =
            QJsonDocument::fromJson(server_->routes["/api/models/someone/Tiny-GGUF"].body).object();
        QJsonArray siblings = info["siblings"].toArray();
        QJsonObject file = siblings[1].toObject();
        file["lfs"] = QJsonObject{{"sha256", QString(64, 'c')}, {"size", server_->content().size()}};
        siblings[1] = file;
        info["siblings"] = siblings;
        server_->routes["/api/models/someone/Tiny-GGUF"] = {QJsonDocument(info).toJson()};
        DownloadController controller(settings_.get());
        controller.setHuggingFaceBaseUrl(server_->urlOf(QString()));
        controller.setCatalog(catalogOfTheApiFile());
        controller.download("tiny");
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(controller), QString("failed"), 30000);
        CatalogListModel* model = controller.catalog();
        const QString error = model->data(model->index(0), CatalogListModel::ErrorRole).toString();
        QVERIFY2(error.contains("checksum", Qt::CaseInsensitive), qPrintable(error));
        QVERIFY(!QFileInfo::exists(searchedFilePath()));
    }

    // Neither the catalog nor the API gives a digest: nothing is downloaded, and the
    // row says why in plain words.
    void without_any_checksum_the_download_is_refused() {
        serveSearchApi(false);
        const QJsonObject unverifiable{
            {"id", "someone/Tiny-GGUF"},
            {"siblings", QJsonArray{QJsonObject{{"rfilename", "tiny-Q4_K_M.gguf"}, {"size", kFileBytes}}}}};
        server_->routes["/api/models/someone/Tiny-GGUF"] = {QJsonDocument(unverifiable).toJson()};
        DownloadController controller(settings_.get());
        controller.setHuggingFaceBaseUrl(server_->urlOf(QString()));
        controller.setCatalog(catalogOfTheApiFile());
        controller.download("tiny");
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(controller), QString("failed"), 30000);
        CatalogListModel* model = controller.catalog();
        QString error = model->data(model->index(0), CatalogListModel::ErrorRole).toString();
        QVERIFY2(error.startsWith("Not downloaded") && error.contains("without a SHA-256"),
                 qPrintable(error));
        QCOMPARE(server_->requests.size(), 1); // the file list, never the file
        QVERIFY(!QFileInfo::exists(searchedFilePath() + ".part"));

        // An address that names no Hugging Face file: refused without asking anyone.
        controller.setCatalog(catalogFor({}));
        controller.download("tiny");
        QCOMPARE(stateOf(controller), QString("failed"));
        error = model->data(model->index(0), CatalogListModel::ErrorRole).toString();
        QVERIFY2(error.contains("not a Hugging Face file"), qPrintable(error));
        QCOMPARE(server_->requests.size(), 1);
        QVERIFY(!QFileInfo::exists(partPath()));
    }

    // Offline: the lost network leads the message, before what the download needed it for.
    void offline_the_lost_network_is_said_first() {
        DownloadController controller(settings_.get());
        controller.setHuggingFaceBaseUrl(QUrl(QStringLiteral("http://127.0.0.1:1/")));
        controller.setCatalog(catalogOfTheApiFile());
        controller.download("tiny");
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(controller), QString("failed"), 30000);
        CatalogListModel* model = controller.catalog();
        const QString error = model->data(model->index(0), CatalogListModel::ErrorRole).toString();
        QVERIFY2(error.startsWith("Not downloaded: Hugging Face could not be reached"), qPrintable(error));
        QVERIFY2(!error.contains("the catalog gives no SHA-256"), qPrintable(error));
        QVERIFY(!QFileInfo::exists(searchedFilePath() + ".part"));
    }
};

QTEST_GUILESS_MAIN(TestDownloadController)
#include "test_download_controller.moc"
