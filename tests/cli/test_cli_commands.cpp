// hearth-cli's contracts, run as a user would: the real binary, real files.
#include "tests/support/test_support.h"
#include <QProcess>
#include <QtTest>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

namespace {

struct Run {
    int status;
    QString out, err;
};

Run run_cli(const QStringList& args) {
    QProcess p;
    p.start(QString::fromStdString(hearth::test::bin_dir() + "/hearth-cli"), args);
    if (!p.waitForFinished(300000)) return {-1, {}, "timed out"};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

QString model(const char* name) { return QString::fromStdString(hearth::test::testdata(std::string("models/") + name)); }

} // namespace

class TestCliCommands : public QObject {
    Q_OBJECT

private slots:
    void info_describes_a_model() {
        const Run r = run_cli({"info", model("tiny-qwen2.gguf")});
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.contains("architecture: qwen2"));
        QVERIFY(r.out.contains("kv heads:"));
        QVERIFY(r.out.contains("chat template: no"));
    }

    void info_refuses_bad_files_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("problem");
        const std::string real = hearth::test::read_file(model("stories260K.gguf").toStdString());
        QTest::newRow("not a gguf") << QByteArray("hello, this is a text file\n") << "magic";
        QTest::newRow("truncated header") << QByteArray::fromStdString(real.substr(0, 20)) << "";
        QTest::newRow("truncated data") << QByteArray::fromStdString(real.substr(0, real.size() / 2)) << "";
        QTest::newRow("empty") << QByteArray() << "";
    }
    void info_refuses_bad_files() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, problem);
        const std::string dir = hearth::test::make_temp_dir("hearth-cli-test");
        const std::string path = dir + "/broken.gguf";
        hearth::test::write_file(path, bytes.toStdString());
        const Run r = run_cli({"info", QString::fromStdString(path)});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(QString::fromStdString(path)), qPrintable(r.err));
        QVERIFY2(r.err.contains(problem, Qt::CaseInsensitive), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    void info_refuses_a_missing_file() {
        const Run r = run_cli({"info", "/nonexistent/model.gguf"});
        QCOMPARE(r.status, 2);
        QVERIFY(r.err.contains("/nonexistent/model.gguf"));
    }

    void generate_ids_follow_llama_cpp() {
        std::ifstream in(hearth::test::testdata("golden/stories260K.greedy.jsonl"));
        std::string line;
        std::getline(in, line);
        const auto golden = nlohmann::json::parse(line);
        QStringList expected;
        for (size_t i = 0; i < 40; ++i) expected << QString::number(golden["steps"][i]["token"].get<int>());
        const Run r = run_cli({"generate", "-m", model("stories260K.gguf"), "-p",
                               QString::fromStdString(golden["prompt"].get<std::string>()), "-n", "40", "--temp", "0",
                               "--ids"});
        QCOMPARE(r.status, 0);
        QCOMPARE(r.out.trimmed(), expected.join(' '));
    }

    void generate_streams_text() {
        const Run r = run_cli({"generate", "-m", model("stories260K.gguf"), "-p", "Once upon a time", "-n", "20",
                               "--temp", "0.8", "--seed", "7"});
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.size() > 20);
        // The same seed gives the same text.
        const Run again = run_cli({"generate", "-m", model("stories260K.gguf"), "-p", "Once upon a time", "-n", "20",
                                   "--temp", "0.8", "--seed", "7"});
        QCOMPARE(again.out, r.out);
    }

    void generate_rejects_bad_options() {
        const Run r = run_cli({"generate", "-m", model("stories260K.gguf"), "-p", "x", "-n", "many"});
        QCOMPARE(r.status, 2);
        QVERIFY(r.err.contains("-n"));
    }

    // llama.cpp's perplexity protocol on its own numbers, within 0.5%.
    void perplexity_matches_llama_cpp_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<double>("expected");
        std::ifstream in(hearth::test::testdata("golden/perplexity.txt"));
        std::string name, plus_minus;
        double ppl = 0, error = 0;
        while (in >> name >> ppl >> plus_minus >> error) QTest::newRow(name.c_str()) << QString::fromStdString(name) << ppl;
    }
    void perplexity_matches_llama_cpp() {
        QFETCH(QString, file);
        QFETCH(double, expected);
        const Run r = run_cli({"perplexity", "-m", model(file.toUtf8().constData()), "-f",
                               QString::fromStdString(hearth::test::testdata("golden/stories.txt")), "-c", "128"});
        QCOMPARE(r.status, 0);
        const QStringList lines = r.out.trimmed().split('\n');
        QVERIFY(lines.last().startsWith("PPL = "));
        const double ppl = lines.last().mid(6).toDouble();
        QVERIFY2(std::abs(ppl - expected) / expected < 0.005,
                 qPrintable(QString("%1: ours %2, llama.cpp %3").arg(file).arg(ppl).arg(expected)));
    }
};

QTEST_GUILESS_MAIN(TestCliCommands)
#include "test_cli_commands.moc"
