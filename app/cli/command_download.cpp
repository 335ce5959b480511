// hearth-cli download URL --sha256 HEX [-o DIR]: the app's downloader without the
// window. It resumes NAME.part left in DIR by an earlier run or by the app, prints
// progress on stderr, and exits 0 only once the file is verified (2 otherwise).
#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "app/download/download.h"
#include "app/download/download_file_name.h"
#include "app/download/download_messages.h"
#include "app/download/network_access.h"
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QTimer>
#include <cstdio>
#include <unistd.h>

namespace hearth::cli {
namespace {

using download::Download;

// Progress at most once a second, on one rewritten line on a terminal and as
// separate lines otherwise (a log, a test).
class ProgressPrinter {
public:
    explicit ProgressPrinter(const Download& download) : download_(download), terminal_(isatty(2)) {}

    void progress() {
        if (clock_.isValid() && clock_.elapsed() < 1000) return;
        clock_.start();
        print(download::describeProgress(download_.receivedBytes(), download_.totalBytes(),
                                         download_.bytesPerSecond(), download_.secondsLeft()));
        open_line_ = terminal_;
    }
    void note(const QString& note) {
        if (!note.isEmpty()) print(note);
    }

private:
    void print(const QString& text) {
        if (open_line_) std::fputs("\n", stderr);
        std::fprintf(stderr, terminal_ ? "\r\033[K%s" : "%s\n", qPrintable(text));
        std::fflush(stderr);
        open_line_ = false;
    }

    const Download& download_;
    const bool terminal_;
    bool open_line_ = false;
    QElapsedTimer clock_;
};

int run_download(const std::vector<std::string>& argv) {
    Args args(argv, {"--sha256", "-o", "--output", "--reconnects"}, {});
    if (args.positional().size() != 1) throw ArgError("expects exactly one URL");
    const QByteArray sha256 = QByteArray::fromStdString(args.required("--sha256"));
    if (!download::isSha256Hex(sha256)) throw ArgError("--sha256 expects 64 hexadecimal digits");
    const int reconnects = args.get_int("--reconnects", 3);
    if (reconnects < 0) throw ArgError("--reconnects expects a count of 0 or more");

    int qtArgc = 1;
    char programName[] = "hearth-cli";
    char* qtArgv[] = {programName, nullptr};
    QCoreApplication app(qtArgc, qtArgv);

    download::DownloadRequest request;
    request.url = QUrl(QString::fromStdString(args.positional()[0]), QUrl::StrictMode);
    request.directory =
        QDir(QString::fromStdString(args.value("-o", "--output").value_or("."))).absolutePath();
    request.sha256Hex = sha256;
    request.reconnects = reconnects;

    const auto network = download::makeNetworkAccess();
    Download fetch(network.get(), request);
    ProgressPrinter printer(fetch);
    QObject::connect(&fetch, &Download::progressChanged, [&] { printer.progress(); });
    QObject::connect(&fetch, &Download::noteChanged, [&](const QString& note) { printer.note(note); });
    QObject::connect(&fetch, &Download::stopped, &app, &QCoreApplication::quit);
    // Started from the event loop: a download that fails at once must still find it running.
    QTimer::singleShot(0, &fetch, &Download::start);
    app.exec();

    if (fetch.state() == Download::State::Finished) {
        std::fprintf(stderr, "%s\nsaved %s (%s, SHA-256 verified)\n",
                     qPrintable(download::describeProgress(fetch.receivedBytes(), fetch.totalBytes(), 0, -1)),
                     qPrintable(QDir::toNativeSeparators(fetch.filePath())),
                     qPrintable(download::formatByteCount(fetch.receivedBytes())));
        return kExitOk;
    }
    std::fprintf(stderr, "hearth-cli download: %s\n", qPrintable(fetch.errorMessage()));
    return kExitBadInput;
}

} // namespace
HEARTH_CLI_COMMAND("download", run_download, "download URL --sha256 HEX [-o DIR] [--reconnects N]");
} // namespace hearth::cli
