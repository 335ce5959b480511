// hearth-bench as a real subprocess: with --lookup, each tg test is also measured as a greedy
// reply, plain and speculative, and the acceptance line gives the rates, the drafted and
// accepted tokens and the tokens per verify pass; a draft model drafts too, one that cannot is an
// error naming both files; a bad speculation flag is refused with hearth-cli's words and status 2;
// --mmproj times an image projector's encoding.
#include "tests/support/test_support.h"
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

using namespace hearth::test;

namespace {
struct BenchRun {
    int status = -1; // -1: it did not finish
    QString out, err;
};

BenchRun runBench(const QStringList& args) {
    QProcess process;
    process.start(QString::fromStdString(bin_dir() + "/hearth-bench"), args);
    BenchRun run;
    if (!process.waitForFinished(300000)) return run;
    run.status = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

QString stories() {
    return QString::fromStdString(testdata("models/stories260K.gguf"));
}
} // namespace

class TestHearthBenchCli : public QObject {
    Q_OBJECT
private slots:
    void lookupPrintsTheAcceptanceLine() {
        const BenchRun run = runBench({"-m", stories(), "-p", "0", "-n", "48", "-r", "2", "-t", "1",
                                       "--lookup", "2", "--draft-max", "6"});
        QVERIFY2(run.status == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains("| tg48 |"), qPrintable(run.out)); // the plain test still runs
        static const QRegularExpression line(QStringLiteral(
            "tg48 speculative \\(prompt lookup \\(2 tokens\\), up to 6 drafted; [^)]*\\): ([0-9.]+) t/s "
            "against "
            "([0-9.]+) t/s plain, speed-up ([0-9.]+)x; acceptance ([0-9.]+)% \\((\\d+) of (\\d+) drafted\\), "
            "([0-9.]+) tokens per verify pass; first reply ([0-9.]+)x"));
        const QRegularExpressionMatch m = line.match(run.out);
        QVERIFY2(m.hasMatch(), qPrintable(run.out));
        QVERIFY(m.captured(1).toDouble() > 0);
        QVERIFY(m.captured(2).toDouble() > 0);
        const int accepted = m.captured(5).toInt(), drafted = m.captured(6).toInt();
        QVERIFY2(drafted > 0, qPrintable(run.out));
        QVERIFY(accepted <= drafted);
        QVERIFY(qAbs(m.captured(4).toDouble() - 100.0 * accepted / drafted) <= 0.051);
        QVERIFY(m.captured(7).toDouble() >= 1.0); // a verify pass gives at least its own token
        QVERIFY(m.captured(8).toDouble() > 0);
    }

    void jsonCarriesTheSpeculationFigures() {
        const BenchRun run = runBench(
            {"-m", stories(), "-p", "0", "-n", "32", "-r", "1", "-t", "1", "-o", "json", "--lookup", "3"});
        QVERIFY2(run.status == 0, qPrintable(run.err));
        static const QRegularExpression spec(QStringLiteral("\\{\"test\":\"tg32\\+spec\"[^\n]*\n"));
        const QRegularExpressionMatch m = spec.match(run.out);
        QVERIFY2(m.hasMatch(), qPrintable(run.out));
        const QString json = m.captured(0);
        QVERIFY2(json.contains("\"acceptance_rate\":") && json.contains("\"tokens_per_verify_pass\":"),
                 qPrintable(json));
        QVERIFY2(!json.contains("\"drafted\":0,"), qPrintable(json));
    }

    // --mmproj alone times an image projector's encoding: one line naming the projector, where
    // its tower ran and the times; a damaged file is an error naming it.
    void anImageProjectorsEncodingIsTimed() {
        const QString mmproj = QString::fromStdString(testdata("vision/mmproj-tiny-gemma3-f16.gguf"));
        const BenchRun run = runBench({"--mmproj", mmproj, "-t", "1", "-r", "2"});
        QVERIFY2(run.status == 0, qPrintable(run.err));
        static const QRegularExpression line(QStringLiteral(
            "image encode: .*mmproj-tiny-gemma3-f16\\.gguf \\(gemma3\\), (\\d+) image positions of "
            "(\\d+), tower on 1 threads: mean ([0-9.]+) s, best ([0-9.]+) s over 2 runs"));
        const QRegularExpressionMatch m = line.match(run.out);
        QVERIFY2(m.hasMatch(), qPrintable(run.out));
        QVERIFY(m.captured(1).toInt() > 0 && m.captured(2).toInt() > 0);
        QVERIFY(m.captured(4).toDouble() <= m.captured(3).toDouble());

        const QString damaged = QString::fromStdString(make_temp_dir("bench-mmproj")) + "/damaged.gguf";
        QFile file(damaged);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("GGUF and then nothing a projector has");
        file.close();
        const BenchRun bad = runBench({"--mmproj", damaged});
        QCOMPARE(bad.status, 1);
        QVERIFY2(bad.err.contains(damaged), qPrintable(bad.err));
    }

    void badSpeculationFlagsAreRefused() {
        const BenchRun bad = runBench({"-m", stories(), "--lookup", "9"});
        QCOMPARE(bad.status, 2);
        QVERIFY2(bad.err.contains("--lookup expects 1 to 4"), qPrintable(bad.err));
        const BenchRun both = runBench({"-m", stories(), "--lookup", "2", "--draft", stories()});
        QCOMPARE(both.status, 2);
        QVERIFY2(both.err.contains("exclude each other"), qPrintable(both.err));
    }

    // A draft model that cannot draft for the model is an error naming both, before any test.
    void anUnusableDraftIsAnError() {
        const QString other = QString::fromStdString(testdata("models/llama-2-tiny-random.gguf"));
        const BenchRun run = runBench({"-m", stories(), "-p", "0", "-n", "8", "-r", "1", "--draft", other});
        QCOMPARE(run.status, 1);
        QVERIFY2(run.err.contains(other) && run.err.contains(stories()) && run.err.contains("vocabularies"),
                 qPrintable(run.err));
        QVERIFY2(!run.out.contains("| tg8 |"), qPrintable(run.out));
    }

    // A usable draft model (tiny-qwen2: stories260K's vocabulary, fewer parameters) drafts.
    void aDraftModelDrafts() {
        const BenchRun run =
            runBench({"-m", stories(), "-p", "0", "-n", "32", "-r", "1", "-t", "1", "--draft",
                      QString::fromStdString(testdata("models/tiny-qwen2.gguf"))});
        QVERIFY2(run.status == 0, qPrintable(run.err));
        static const QRegularExpression line(
            QStringLiteral("tg32 speculative \\(draft model [^;]*; [^)]*\\): .*"
                           "\\((\\d+) of (\\d+) drafted\\)"));
        const QRegularExpressionMatch m = line.match(run.out);
        QVERIFY2(m.hasMatch(), qPrintable(run.out));
        QVERIFY(m.captured(2).toInt() > 0);
    }
};

QTEST_GUILESS_MAIN(TestHearthBenchCli)
#include "test_hearth_bench_cli.moc"
