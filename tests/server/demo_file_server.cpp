// Not a test: the download tests' loopback HTTP server (Range, 206/416) as a program,
// for demo_download_and_serve.sh. It serves one file at /files/NAME, optionally
// slowly, prints its URL on stdout, and logs every request with its Range header on
// stderr, so a resumed download shows where it picked up.
//
//   demo_file_server FILE [--chunk-bytes N --interval-ms MS]
#include "tests/download/loopback_http_server.h"
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QTimer>
#include <cstdio>

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 2) {
        std::fprintf(stderr, "usage: demo_file_server FILE [--chunk-bytes N --interval-ms MS]\n");
        return 2;
    }
    QFile file(args[1]);
    if (!file.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "demo_file_server: cannot read %s\n", qPrintable(args[1]));
        return 2;
    }
    hearth::test::LoopbackHttpServer server(file.readAll(), QFileInfo(args[1]).fileName());
    const qsizetype chunk = args.indexOf(QStringLiteral("--chunk-bytes"));
    const qsizetype interval = args.indexOf(QStringLiteral("--interval-ms"));
    if (chunk > 0) server.faults.chunkBytes = args.value(chunk + 1).toInt();
    if (interval > 0) server.faults.chunkIntervalMsecs = args.value(interval + 1).toInt();
    if (!server.listen()) {
        std::fprintf(stderr, "demo_file_server: cannot listen on 127.0.0.1\n");
        return 2;
    }
    std::printf("%s\n", qPrintable(server.fileUrl().toString()));
    std::fflush(stdout);

    // The server records requests; print the new ones as they come.
    qsizetype logged = 0;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        for (; logged < server.requests.size(); ++logged) {
            const auto& request = server.requests[logged];
            std::fprintf(stderr, "file server: %s %s Range: %s -> %d\n", request.method.constData(),
                         request.path.constData(),
                         request.range.isEmpty() ? "(none)" : request.range.constData(), request.status);
        }
        std::fflush(stderr);
    });
    poll.start(20);
    return app.exec();
}
