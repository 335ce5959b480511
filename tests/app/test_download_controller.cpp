// The models page's downloads against a real HTTP server on loopback: a catalog
// entry downloads into the models folder and is announced to the picker; pause,
// resume and cancel; and a partial file left by an earlier run of the app shows
// as paused and resumes from where it stopped.
#include "app/core/app_settings.h"
#include "app/core/download_controller.h"
#include "tests/download/download_test_helpers.h"
#include "tests/download/loopback_http_server.h"
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>
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

    // Without a known SHA-256 (the built-in catalog's case) the file is still
    // downloaded, checked by size, and says so.
    void without_a_checksum_the_size_is_checked_and_said() {
        DownloadController controller(settings_.get());
        controller.setCatalog(catalogFor({}));
        QSignalSpy downloaded(&controller, &DownloadController::modelDownloaded);
        controller.download("tiny");
        QVERIFY(downloaded.wait(30000));
        CatalogListModel* model = controller.catalog();
        QVERIFY(
            model->data(model->index(0), CatalogListModel::NoteRole).toString().contains("checksum unknown"));
        QCOMPARE(model->data(model->index(0), CatalogListModel::ChecksumKnownRole).toBool(), false);
    }
};

QTEST_GUILESS_MAIN(TestDownloadController)
#include "test_download_controller.moc"
