// hearth-cli download, run as a user would: the real binary against the loopback
// server, including a run killed mid-file and a second run that resumes it.
#include "tests/download/download_test_helpers.h"
#include "tests/download/loopback_http_server.h"
#include "tests/support/test_support.h"
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using hearth::test::LoopbackHttpServer;
using namespace hearth::test;

namespace {

struct CliResult {
    int status = -1; // -1: crashed or hung
    QString err;
};

QString cliPath() {
    return QString::fromStdString(bin_dir() + "/hearth-cli");
}

void startCli(QProcess& process, const QStringList& args) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("no_proxy", "127.0.0.1,localhost"); // loopback never through a proxy
    process.setProcessEnvironment(environment);
    process.start(cliPath(), QStringList{"download"} + args);
}

// Runs hearth-cli with the event loop turning, so the in-process server answers it.
CliResult runCli(const QStringList& args) {
    QProcess process;
    startCli(process, args);
    QSignalSpy finished(&process, &QProcess::finished);
    if (!finished.wait(120000)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardError())};
}

} // namespace

class TestDownloadCli : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> dir_;
    std::unique_ptr<LoopbackHttpServer> server_;

    QString finalPath() const { return dir_->filePath("model.gguf"); }
    QString partPath() const { return dir_->filePath("model.gguf.part"); }
    QString goodSha() const { return QString::fromLatin1(sha256Hex(server_->content())); }

private slots:
    void init() {
        dir_ = std::make_unique<QTemporaryDir>();
        QVERIFY(dir_->isValid());
        server_ = std::make_unique<LoopbackHttpServer>(patternedBytes(3 << 20));
        QVERIFY(server_->listen());
    }
    void cleanup() {
        server_.reset();
        dir_.reset();
    }

    void downloads_verifies_and_exits_zero() {
        const CliResult r =
            runCli({server_->fileUrl().toString(), "--sha256", goodSha(), "-o", dir_->path()});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(fileBytes(finalPath()), server_->content());
        QVERIFY(!QFileInfo::exists(partPath()));
        QVERIFY2(r.err.contains("3.1 MB of 3.1 MB (100%)"), qPrintable(r.err)); // progress on stderr
        QVERIFY2(r.err.contains("SHA-256 verified"), qPrintable(r.err));
    }

    void a_checksum_mismatch_exits_two() {
        const QString wrong = QString(64, QLatin1Char('0'));
        const CliResult r = runCli({server_->fileUrl().toString(), "--sha256", wrong, "-o", dir_->path()});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("checksum mismatch"), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(finalPath()));
    }

    void not_found_exits_two() {
        const CliResult r = runCli(
            {server_->urlOf("/files/missing.gguf").toString(), "--sha256", goodSha(), "-o", dir_->path()});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("404"), qPrintable(r.err));
    }

    void bad_arguments_exit_two() {
        QCOMPARE(runCli({server_->fileUrl().toString(), "-o", dir_->path()}).status, 2); // no --sha256
        QCOMPARE(runCli({server_->fileUrl().toString(), "--sha256", "xyz"}).status, 2);
        QCOMPARE(runCli({"--sha256", goodSha()}).status, 2); // no URL
        QCOMPARE(server_->requests.size(), 0);
    }

    // A run killed mid-file leaves NAME.part; the next run sends Range from exactly
    // its size and delivers the verified file.
    void resumes_what_a_killed_run_left() {
        server_->faults.chunkBytes = 32 * 1024;
        server_->faults.chunkIntervalMsecs = 10;
        const QStringList args{server_->fileUrl().toString(), "--sha256", goodSha(), "-o", dir_->path()};
        QProcess first;
        startCli(first, args);
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(partPath()).size() >= 256 * 1024, 60000);
        first.kill();
        QVERIFY(first.waitForFinished(10000));
        const qint64 kept = QFileInfo(partPath()).size();
        QVERIFY(kept > 0 && kept < server_->content().size());
        QVERIFY(!QFileInfo::exists(finalPath()));

        server_->faults.chunkBytes = 0;
        const CliResult second = runCli(args);
        QVERIFY2(second.status == 0, qPrintable(second.err));
        QCOMPARE(server_->requests.last().range, "bytes=" + QByteArray::number(kept) + "-");
        QCOMPARE(server_->requests.last().status, 206);
        QVERIFY2(second.err.contains("resuming at"), qPrintable(second.err));
        QCOMPARE(fileBytes(finalPath()), server_->content());
    }

    // The server drops the connection once; the CLI reconnects on its own.
    void reconnects_after_a_drop() {
        server_->faults.dropAtByte = 1 << 20;
        const CliResult r =
            runCli({server_->fileUrl().toString(), "--sha256", goodSha(), "-o", dir_->path()});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("reconnecting"), qPrintable(r.err));
        // Qt may itself repeat the plain GET once after the drop (test_downloader says when);
        // the CLI's own reconnect is the ranged request that ends it.
        const auto& requests = server_->requests;
        QVERIFY(requests.size() == 2 || requests.size() == 3);
        QCOMPARE(requests.last().range, "bytes=" + QByteArray::number(1 << 20) + "-");
        QCOMPARE(requests.last().status, 206);
        QCOMPARE(fileBytes(finalPath()), server_->content());
    }
};

QTEST_GUILESS_MAIN(TestDownloadCli)
#include "test_download_cli.moc"
