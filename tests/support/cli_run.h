#pragma once
// Runs the real hearth-cli from build/bin, as the command-line suites do.
#include "tests/support/test_support.h"
#include <QProcess>
#include <QString>
#include <QStringList>

namespace hearth::test {

struct CliRun {
    int status; // exit status; -1 when it crashed or timed out
    QString out, err;
};

inline CliRun run_cli(const QStringList& args) {
    QProcess p;
    p.start(QString::fromStdString(bin_dir() + "/hearth-cli"), args);
    if (!p.waitForFinished(300000)) return {-1, {}, "timed out"};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

} // namespace hearth::test
