#pragma once
// Runs the real hearth-cli from build/bin, as the command-line suites do.
#include "tests/support/test_support.h"
#include <QByteArray>
#include <QByteArrayList>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <string>
#include <vector>

namespace hearth::test {

struct CliRun {
    int status; // exit status; -1 when it crashed or timed out
    QString out, err;
};

// A file of ../shared/testdata/models, and token ids as `logits --tokens` takes them.
inline QString model(const char* name) {
    return QString::fromStdString(testdata(std::string("models/") + name));
}
inline QString joined(const std::vector<int32_t>& ids) {
    QStringList words;
    for (int32_t id : ids)
        words << QString::number(id);
    return words.join(' ');
}

inline CliRun run_cli(const QStringList& args) {
    QProcess p;
    p.start(QString::fromStdString(bin_dir() + "/hearth-cli"), args);
    if (!p.waitForFinished(300000)) return {-1, {}, "timed out"};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

// A run with bytes on stdin and bytes back, for output compared byte for byte.
struct CliBytesRun {
    int status = -1; // exit status; -1 when it did not start, crashed or timed out
    QByteArray out, err;
};

inline CliBytesRun run_cli_bytes(const QStringList& args, const QByteArray& input = {}) {
    QProcess process;
    process.start(QString::fromStdString(bin_dir() + "/hearth-cli"), args);
    CliBytesRun run;
    if (!process.waitForStarted(10000)) {
        run.err = "hearth-cli did not start (is it built?): " + process.errorString().toUtf8();
        return run;
    }
    process.write(input);
    process.closeWriteChannel();
    process.waitForFinished(60000);
    run.status = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

// The line `hearth-cli tokenize` prints for these ids.
inline QByteArray ids_line(const std::vector<int32_t>& ids) {
    QByteArrayList parts;
    for (const int32_t id : ids)
        parts << QByteArray::number(id);
    return parts.join(' ') + '\n';
}

} // namespace hearth::test
