// The downloader against a real HTTP server on loopback, with the faults of the
// internet injected: dropped connections, wrong lengths, wrong bytes, servers that
// ignore Range, slow servers, pauses and restarts.
#include "app/download/content_range.h"
#include "app/download/download.h"
#include "app/download/download_file_name.h"
#include "app/download/network_access.h"
#include "tests/download/download_test_helpers.h"
#include "tests/download/loopback_http_server.h"
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using hearth::download::Download;
using hearth::download::DownloadRequest;
using hearth::test::LoopbackHttpServer;
using namespace hearth::test;

namespace {

constexpr qint64 kFileBytes = 1 << 20;

// Range start of a recorded request ("bytes=N-" -> N), or -1 without one.
qint64 rangeStartOf(const LoopbackHttpServer::Request& request) {
    if (!request.range.startsWith("bytes=")) return -1;
    return request.range.mid(6).split('-').value(0).toLongLong();
}

} // namespace

class TestDownloader : public QObject {
    Q_OBJECT

    std::unique_ptr<QNetworkAccessManager> network_;
    std::unique_ptr<QTemporaryDir> dir_;
    std::unique_ptr<LoopbackHttpServer> server_;

    DownloadRequest requestFor(const QUrl& url, const QByteArray& sha256) const {
        DownloadRequest request;
        request.url = url;
        request.directory = dir_->path();
        request.sha256Hex = sha256;
        return request;
    }
    QString finalPath() const { return dir_->filePath("model.gguf"); }
    QString partPath() const { return dir_->filePath("model.gguf.part"); }
    QByteArray goodSha() const { return sha256Hex(server_->content()); }

private slots:
    void initTestCase() {
        // A proxy in the environment must not capture loopback requests.
        qputenv("no_proxy", "127.0.0.1,localhost");
    }
    void init() {
        network_ = hearth::download::makeNetworkAccess();
        dir_ = std::make_unique<QTemporaryDir>();
        QVERIFY(dir_->isValid());
        server_ = std::make_unique<LoopbackHttpServer>(patternedBytes(kFileBytes));
        QVERIFY(server_->listen());
    }
    void cleanup() {
        server_.reset();
        network_.reset();
        dir_.reset();
    }

    void downloads_verifies_and_renames() {
        Download download(network_.get(), requestFor(server_->fileUrl(), goodSha()));
        QSignalSpy progress(&download, &Download::progressChanged);
        QVERIFY(runUntilStopped(download));
        QCOMPARE(download.state(), Download::State::Finished);
        QVERIFY(download.checksumVerified());
        QCOMPARE(fileBytes(finalPath()), server_->content());
        QVERIFY(!QFileInfo::exists(partPath()));
        QCOMPARE(download.receivedBytes(), kFileBytes);
        QCOMPARE(download.totalBytes(), kFileBytes);
        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.last().at(0).toLongLong(), kFileBytes);
        QCOMPARE(server_->requests.size(), 1);
        QVERIFY(server_->requests[0].range.isEmpty());
    }

    void reconnects_with_range_after_a_dropped_connection() {
        server_->faults.dropAtByte = kFileBytes * 2 / 5;
        Download download(network_.get(), requestFor(server_->fileUrl(), goodSha()));
        QVERIFY(runUntilStopped(download));
        QCOMPARE(download.state(), Download::State::Finished);
        QCOMPARE(fileBytes(finalPath()), server_->content());
        // Qt's HTTP layer may itself send the GET again once when the connection closes before
        // it handed over any bytes (seen in about 1 run in 8): those repeats have no Range and
        // were dropped at the same byte. The download's own reconnect resumes where its file
        // ends.
        const auto& requests = server_->requests;
        QVERIFY(requests.size() == 2 || requests.size() == 3);
        for (qsizetype i = 0; i + 1 < requests.size(); ++i)
            QVERIFY(requests[i].range.isEmpty());
        QCOMPARE(rangeStartOf(requests.last()), server_->faults.dropAtByte);
        QCOMPARE(requests.last().status, 206);
    }

    // Without reconnects the drop fails the run, keeps what arrived, and the next
    // run (a new Download: the partial file is the only state) resumes from it.
    void a_dropped_run_leaves_a_partial_file_that_the_next_run_resumes() {
        const qint64 dropAt = kFileBytes / 3;
        server_->faults.dropAtByte = dropAt;
        DownloadRequest request = requestFor(server_->fileUrl(), goodSha());
        request.reconnects = 0;
        {
            Download first(network_.get(), request);
            QVERIFY(runUntilStopped(first));
            QCOMPARE(first.state(), Download::State::Failed);
            // Qt reports the cut as a closed connection or, when the close arrives with the
            // last bytes (under load), as a short body: both messages name it.
            QVERIFY2(first.errorMessage().contains("closed the connection") ||
                         first.errorMessage().contains("and stopped"),
                     qPrintable(first.errorMessage()));
            QVERIFY2(first.errorMessage().contains("resume"), qPrintable(first.errorMessage()));
        }
        QCOMPARE(QFileInfo(partPath()).size(), dropAt);
        QVERIFY(!QFileInfo::exists(finalPath()));
        Download second(network_.get(), request);
        QVERIFY(runUntilStopped(second));
        QCOMPARE(second.state(), Download::State::Finished);
        QCOMPARE(second.resumedFromBytes(), dropAt);
        QCOMPARE(rangeStartOf(server_->requests.last()), dropAt);
        QCOMPARE(fileBytes(finalPath()), server_->content());
    }

    // Content-Length larger than the body: the download does not take the short
    // body for the file; it asks for the rest, learns (416) that it has it all, and
    // the digest confirms it.
    void a_content_length_larger_than_the_body_is_not_the_end() {
        server_->faults.extraAnnouncedBytes = 4096;
        Download download(network_.get(), requestFor(server_->fileUrl(), goodSha()));
        QVERIFY(runUntilStopped(download));
        QCOMPARE(download.state(), Download::State::Finished);
        QCOMPARE(fileBytes(finalPath()), server_->content());
        // As after a drop, Qt may repeat the plain GET once before the download's own request.
        const auto& requests = server_->requests;
        QVERIFY(requests.size() == 2 || requests.size() == 3);
        QVERIFY(requests.first().range.isEmpty());
        QCOMPARE(rangeStartOf(requests.last()), kFileBytes);
        QCOMPARE(requests.last().status, 416);
    }

    void a_wrong_length_without_reconnects_fails_and_says_so() {
        server_->faults.extraAnnouncedBytes = 4096;
        DownloadRequest request = requestFor(server_->fileUrl(), goodSha());
        request.reconnects = 0;
        Download download(network_.get(), request);
        QVERIFY(runUntilStopped(download));
        QCOMPARE(download.state(), Download::State::Failed);
        QVERIFY(!QFileInfo::exists(finalPath()));
        QCOMPARE(QFileInfo(partPath()).size(), kFileBytes); // kept for a resume
    }

    // The message names both digests; the received bytes are kept for inspection under a name
    // that is neither a model (never listed or loaded) nor a partial file (never resumed).
    void a_checksum_mismatch_names_both_digests_and_keeps_the_bytes() {
        QByteArray wrong = goodSha();
        wrong[0] = wrong[0] == 'a' ? 'b' : 'a';
        Download download(network_.get(), requestFor(server_->fileUrl(), wrong));
        QVERIFY(runUntilStopped(download));
        QCOMPARE(download.state(), Download::State::Failed);
        const QString message = download.errorMessage();
        QVERIFY2(message.contains("checksum mismatch"), qPrintable(message));
        QVERIFY2(message.contains("expected SHA-256 " + QString::fromLatin1(wrong)), qPrintable(message));
        QVERIFY2(message.contains("received " + QString::fromLatin1(goodSha())), qPrintable(message));
        const QString kept = finalPath() + ".sha256-mismatch";
        QCOMPARE(download.mismatchedFilePath(), kept);
        QVERIFY2(message.contains(QDir::toNativeSeparators(kept)), qPrintable(message));
        QFile keptFile(kept);
        QVERIFY(keptFile.open(QIODevice::ReadOnly));
        QCOMPARE(QCryptographicHash::hash(keptFile.readAll(), QCryptographicHash::Sha256).toHex(), goodSha());
        QVERIFY(!QFileInfo::exists(finalPath()));
        QVERIFY(!QFileInfo::exists(partPath()));
    }

    // A partial file of wrong bytes and a server that ignores Range: the answer (200)
    // is the whole file, so the download must start over, not append to the part.
    void a_server_that_ignores_range_restarts_the_file_from_zero() {
        server_->faults.ignoreRange = true;
        QVERIFY(writeBytes(partPath(), QByteArray(1000, 'x')));
        Download download(network_.get(), requestFor(server_->fileUrl(), goodSha()));
        QVERIFY(runUntilStopped(download));
        QCOMPARE(download.state(), Download::State::Finished);
        QCOMPARE(fileBytes(finalPath()), server_->content());
        QCOMPARE(server_->requests.size(), 1);
        QCOMPARE(rangeStartOf(server_->requests[0]), 1000);
        QCOMPARE(server_->requests[0].status, 200);
        QVERIFY(download.note().contains("cannot resume") || download.note().contains("verified"));
    }

    // A slow server; pause mid-file, quit (the download and its network go away, the
    // server restarts on the same port), start again: only the rest is fetched.
    void slow_server_pause_quit_restart_resume() {
        server_->faults.chunkBytes = 16 * 1024;
        server_->faults.chunkIntervalMsecs = 5;
        const DownloadRequest request = requestFor(server_->fileUrl(), goodSha());
        {
            Download download(network_.get(), request);
            download.start();
            QTRY_VERIFY_WITH_TIMEOUT(download.receivedBytes() >= 128 * 1024, 30000);
            QVERIFY(download.state() == Download::State::Running);
            download.pause();
            QCOMPARE(download.state(), Download::State::Paused);
            QVERIFY(download.receivedBytes() < kFileBytes);
            QCOMPARE(QFileInfo(partPath()).size(), download.receivedBytes());
        }
        network_ = hearth::download::makeNetworkAccess();
        const quint16 port = server_->port();
        server_->stop();
        QVERIFY(server_->listen(port));
        const qint64 kept = QFileInfo(partPath()).size();

        Download resumed(network_.get(), request);
        QVERIFY(runUntilStopped(resumed));
        QCOMPARE(resumed.state(), Download::State::Finished);
        QCOMPARE(resumed.resumedFromBytes(), kept);
        QCOMPARE(rangeStartOf(server_->requests.last()), kept);
        QCOMPARE(server_->requests.last().status, 206);
        QCOMPARE(fileBytes(finalPath()), server_->content());
    }

    // Pause and resume within one Download keep the digest so far (no re-hash needed)
    // and still end with the right file.
    void pause_and_resume_in_one_process() {
        server_->faults.chunkBytes = 16 * 1024;
        server_->faults.chunkIntervalMsecs = 5;
        Download download(network_.get(), requestFor(server_->fileUrl(), goodSha()));
        download.start();
        QTRY_VERIFY_WITH_TIMEOUT(download.receivedBytes() >= 64 * 1024, 30000);
        download.pause();
        const qint64 kept = download.receivedBytes();
        QCOMPARE(download.state(), Download::State::Paused);
        server_->faults.chunkBytes = 0; // full speed for the rest
        QVERIFY(runUntilStopped(download));
        QCOMPARE(download.state(), Download::State::Finished);
        QCOMPARE(rangeStartOf(server_->requests.last()), kept);
        QCOMPARE(fileBytes(finalPath()), server_->content());
    }

    void cancel_deletes_the_partial_file() {
        server_->faults.chunkBytes = 16 * 1024;
        server_->faults.chunkIntervalMsecs = 5;
        Download download(network_.get(), requestFor(server_->fileUrl(), goodSha()));
        QSignalSpy stopped(&download, &Download::stopped);
        download.start();
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(partPath()).exists(), 30000);
        download.cancel();
        QCOMPARE(download.state(), Download::State::Cancelled);
        QCOMPARE(stopped.size(), 1);
        QVERIFY(!QFileInfo::exists(partPath()));
        QVERIFY(!QFileInfo::exists(finalPath()));
    }

    void a_redirect_keeps_the_range() {
        const qint64 have = 300000;
        QVERIFY(writeBytes(partPath(), server_->content().left(have)));
        Download download(network_.get(), requestFor(server_->redirectUrl(), goodSha()));
        QVERIFY(runUntilStopped(download));
        QCOMPARE(download.state(), Download::State::Finished);
        QCOMPARE(server_->requests.size(), 2);
        QCOMPARE(server_->requests[0].status, 302);
        QCOMPARE(rangeStartOf(server_->requests[1]), have);
        QCOMPARE(fileBytes(finalPath()), server_->content());
    }

    void not_found_is_said_in_plain_words() {
        Download download(network_.get(), requestFor(server_->urlOf("/files/other.gguf"), goodSha()));
        QVERIFY(runUntilStopped(download));
        QCOMPARE(download.state(), Download::State::Failed);
        QVERIFY2(download.errorMessage().contains("not found") && download.errorMessage().contains("404"),
                 qPrintable(download.errorMessage()));
        QVERIFY(!QFileInfo::exists(dir_->filePath("other.gguf.part")));
    }

    void no_server_is_said_in_plain_words() {
        const quint16 port = server_->port();
        server_->stop();
        DownloadRequest request =
            requestFor(QUrl(QStringLiteral("http://127.0.0.1:%1/files/model.gguf").arg(port)), goodSha());
        Download download(network_.get(), request);
        QVERIFY(runUntilStopped(download));
        QCOMPARE(download.state(), Download::State::Failed);
        QVERIFY2(download.errorMessage().contains("could not connect"), qPrintable(download.errorMessage()));
    }

    void too_little_disk_space_is_refused_before_the_first_byte() {
        DownloadRequest request = requestFor(server_->fileUrl(), goodSha());
        request.expectedBytes = qint64(1) << 55; // 32 PB
        Download download(network_.get(), request);
        QVERIFY(runUntilStopped(download));
        QCOMPARE(download.state(), Download::State::Failed);
        QVERIFY2(download.errorMessage().contains("not enough disk space"),
                 qPrintable(download.errorMessage()));
        QCOMPARE(server_->requests.size(), 0);
    }

    void a_size_announced_beyond_the_free_space_is_refused() {
        server_->faults.announcedTotal = qint64(1) << 55;
        Download download(network_.get(), requestFor(server_->fileUrl(), goodSha()));
        QVERIFY(runUntilStopped(download));
        QCOMPARE(download.state(), Download::State::Failed);
        QVERIFY2(download.errorMessage().contains("not enough disk space"),
                 qPrintable(download.errorMessage()));
        QVERIFY(!QFileInfo::exists(partPath()));
    }

    // Without a known digest the file is taken on its size, and says so.
    void without_a_checksum_only_the_size_is_checked() {
        Download download(network_.get(), requestFor(server_->fileUrl(), {}));
        QVERIFY(runUntilStopped(download));
        QCOMPARE(download.state(), Download::State::Finished);
        QVERIFY(!download.checksumVerified());
        QVERIFY(download.note().contains("checksum unknown"));
        QCOMPARE(fileBytes(finalPath()), server_->content());
    }

    void a_file_already_there_is_verified_not_fetched() {
        QVERIFY(writeBytes(finalPath(), server_->content()));
        Download same(network_.get(), requestFor(server_->fileUrl(), goodSha()));
        QVERIFY(runUntilStopped(same));
        QCOMPARE(same.state(), Download::State::Finished);
        QCOMPARE(server_->requests.size(), 0);

        QVERIFY(writeBytes(finalPath(), "something else"));
        Download other(network_.get(), requestFor(server_->fileUrl(), goodSha()));
        QVERIFY(runUntilStopped(other));
        QCOMPARE(other.state(), Download::State::Failed);
        QVERIFY(other.errorMessage().contains("already exists"));
        QCOMPARE(fileBytes(finalPath()), QByteArray("something else")); // never overwritten
    }

    void bad_requests_fail_before_any_connection_data() {
        QTest::addColumn<QUrl>("url");
        QTest::addColumn<QByteArray>("sha");
        QTest::addColumn<QString>("problem");
        QTest::newRow("ftp") << QUrl("ftp://127.0.0.1/model.gguf") << QByteArray() << "http";
        QTest::newRow("no file name") << QUrl("http://127.0.0.1/files/") << QByteArray() << "names no file";
        QTest::newRow("dot dot") << QUrl("http://127.0.0.1/files/%2E%2E") << QByteArray() << "not a usable";
        QTest::newRow("short sha") << QUrl("http://127.0.0.1/files/a.gguf") << QByteArray("abc")
                                   << "64 hexadecimal";
    }
    void bad_requests_fail_before_any_connection() {
        QFETCH(QUrl, url);
        QFETCH(QByteArray, sha);
        QFETCH(QString, problem);
        Download download(network_.get(), requestFor(url, sha));
        QVERIFY(runUntilStopped(download));
        QCOMPARE(download.state(), Download::State::Failed);
        QVERIFY2(download.errorMessage().contains(problem), qPrintable(download.errorMessage()));
        QCOMPARE(server_->requests.size(), 0);
        QCOMPARE(QDir(dir_->path()).entryList(QDir::Files).size(), 0);
    }

    void content_range_parsing() {
        using hearth::download::parseContentRange;
        QCOMPARE(parseContentRange("bytes 100-199/1000")->first, 100);
        QCOMPARE(parseContentRange("bytes 100-199/1000")->total, 1000);
        QCOMPARE(parseContentRange("bytes 100-199/*")->total, -1);
        QCOMPARE(parseContentRange("bytes */1000")->first, -1);
        QVERIFY(!parseContentRange("bytes 200-100/1000"));
        QVERIFY(!parseContentRange("bytes 100-1000/1000"));
        QVERIFY(!parseContentRange("bytes -1-5/10"));
        QVERIFY(!parseContentRange("bytes 1-99999999999999999999/*"));
        QVERIFY(!parseContentRange("items 1-2/3"));
        QVERIFY(!parseContentRange("bytes */*"));
    }
};

QTEST_GUILESS_MAIN(TestDownloader)
#include "test_downloader.moc"
