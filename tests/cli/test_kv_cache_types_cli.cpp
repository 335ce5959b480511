// --cache-type-k / --cache-type-v on the real hearth-cli: perplexity over a Q8_0 cache within
// 0.5% of the F16 cache's on the models whose head size takes blocks of 32 (tiny-qwen3 and
// tiny-llama3, 64 each), the Q4_0 figure logged and sane; an explicit f16 the same output as the
// default; stories260K (head size 8) refused with a clear message; bad type names exit 2.
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"
#include <QProcess>
#include <QTest>
#include <cmath>

namespace {

using Run = hearth::test::CliRun;
using hearth::test::run_cli;

QString model(const QString& name) {
    return QString::fromStdString(hearth::test::testdata("models/" + name.toStdString()));
}

QStringList perplexity_args(const QString& file, const QString& keys, const QString& values) {
    return {"perplexity",
            "-m",
            model(file),
            "-f",
            QString::fromStdString(hearth::test::testdata("golden/stories.txt")),
            "-c",
            "128",
            "--cache-type-k",
            keys,
            "--cache-type-v",
            values};
}

// The PPL of a finished run, or NaN (with the reason in the test log) when it failed.
double perplexity(const QString& file, const QString& keys, const QString& values) {
    const Run r = run_cli(perplexity_args(file, keys, values));
    const QString last = r.out.trimmed().split('\n').last();
    if (r.status != 0 || !last.startsWith("PPL = ")) {
        qWarning("%s", qPrintable(r.err));
        return NAN;
    }
    return last.mid(6).toDouble();
}

} // namespace

class TestKvCacheTypesCli : public QObject {
    Q_OBJECT

private slots:
    void quantizedCachePerplexity_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("tiny-qwen3") << "tiny-qwen3.gguf";
        QTest::newRow("tiny-llama3") << "tiny-llama3.gguf";
    }
    void quantizedCachePerplexity() {
        QFETCH(QString, file);
        const double f16 = perplexity(file, "f16", "f16");
        const double q8_0 = perplexity(file, "q8_0", "q8_0");
        const double q4_0 = perplexity(file, "q4_0", "q4_0");
        qInfo("%s: PPL f16 %.6g, q8_0 %.6g (%+.3f%%), q4_0 %.6g (%+.3f%%)", qPrintable(file), f16, q8_0,
              100 * (q8_0 / f16 - 1), q4_0, 100 * (q4_0 / f16 - 1));
        QVERIFY(std::isfinite(f16) && f16 > 1);
        QVERIFY2(std::abs(q8_0 - f16) / f16 < 0.005,
                 qPrintable(QString("q8_0 cache %1 against f16 %2").arg(q8_0).arg(f16)));
        // Q4_0 is lossier: only sanity (a broken kernel gives NaN or a far-off figure).
        QVERIFY2(std::isfinite(q4_0) && std::abs(q4_0 - f16) / f16 < 0.25,
                 qPrintable(QString("q4_0 cache %1 against f16 %2").arg(q4_0).arg(f16)));
    }

    // f16, in any case, is the default: the same output to the last digit.
    void explicitF16IsTheDefault() {
        const QString text = QString::fromStdString(hearth::test::testdata("golden/stories.txt"));
        const Run plain = run_cli({"perplexity", "-m", model("stories260K.gguf"), "-f", text, "-c", "128"});
        const Run f16 = run_cli(perplexity_args("stories260K.gguf", "F16", "f16"));
        QCOMPARE(plain.status, 0);
        QCOMPARE(f16.status, 0);
        QCOMPARE(f16.out, plain.out);
    }

    // Blocks of 32 cannot straddle heads: a head size of 8 refuses a quantized cache by name.
    void headSizeNotMultipleOf32Refused() {
        const Run r = run_cli(perplexity_args("stories260K.gguf", "Q8_0", "f16"));
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("multiple of 32") && r.err.contains("q8_0"), qPrintable(r.err));
    }

    void badTypeNamesExit2_data() {
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("value");
        QTest::newRow("k-q5_1") << "--cache-type-k"
                                << "q5_1";
        QTest::newRow("v-empty") << "--cache-type-v"
                                 << "";
        QTest::newRow("v-f32") << "--cache-type-v"
                               << "f32";
    }
    void badTypeNamesExit2() {
        QFETCH(QString, option);
        QFETCH(QString, value);
        const Run r =
            run_cli({"generate", "-m", model("tiny-qwen3.gguf"), "-p", "x", "-n", "1", option, value});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(option) && r.err.contains("f16, q8_0 or q4_0"), qPrintable(r.err));
    }

    // generate over a Q4_0/Q8_0 cache runs to the end.
    void generateOverQuantizedCache() {
        const Run r = run_cli({"generate", "-m", model("tiny-qwen3.gguf"), "-p", "Once upon a time", "-n",
                               "8", "--cache-type-k", "q4_0", "--cache-type-v", "q8_0"});
        QCOMPARE(r.status, 0);
        QVERIFY(!r.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestKvCacheTypesCli)
#include "test_kv_cache_types_cli.moc"
