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
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

QString model(const char* name) {
    return QString::fromStdString(hearth::test::testdata(std::string("models/") + name));
}

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
        for (size_t i = 0; i < 40; ++i)
            expected << QString::number(golden["steps"][i]["token"].get<int>());
        const Run r = run_cli({"generate", "-m", model("stories260K.gguf"), "-p",
                               QString::fromStdString(golden["prompt"].get<std::string>()), "-n", "40",
                               "--temp", "0", "--ids"});
        QCOMPARE(r.status, 0);
        QCOMPARE(r.out.trimmed(), expected.join(' '));
    }

    void generate_streams_text() {
        const Run r = run_cli({"generate", "-m", model("stories260K.gguf"), "-p", "Once upon a time", "-n",
                               "20", "--temp", "0.8", "--seed", "7"});
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.size() > 20);
        // The same seed gives the same text.
        const Run again = run_cli({"generate", "-m", model("stories260K.gguf"), "-p", "Once upon a time",
                                   "-n", "20", "--temp", "0.8", "--seed", "7"});
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
        while (in >> name >> ppl >> plus_minus >> error)
            QTest::newRow(name.c_str()) << QString::fromStdString(name) << ppl;
    }
    void perplexity_matches_llama_cpp() {
        QFETCH(QString, file);
        QFETCH(double, expected);
        const Run r =
            run_cli({"perplexity", "-m", model(file.toUtf8().constData()), "-f",
                     QString::fromStdString(hearth::test::testdata("golden/stories.txt")), "-c", "128"});
        QCOMPARE(r.status, 0);
        const QStringList lines = r.out.trimmed().split('\n');
        QVERIFY(lines.last().startsWith("PPL = "));
        const double ppl = lines.last().mid(6).toDouble();
        QVERIFY2(std::abs(ppl - expected) / expected < 0.005,
                 qPrintable(QString("%1: ours %2, llama.cpp %3").arg(file).arg(ppl).arg(expected)));
    }

    void chat_bench_reports_reuse_as_json_data() {
        QTest::addColumn<int>("turns");
        QTest::addColumn<int>("history");
        QTest::addColumn<int>("reply_tokens");
        QTest::addColumn<bool>("q8");
        QTest::newRow("2 turns") << 2 << 40 << 4 << false;
        QTest::newRow("3 turns, Q8_0 state") << 3 << 60 << 2 << true;
        // More history than stories260K's context of 128: the conversation is shifted.
        QTest::newRow("history beyond the context") << 2 << 300 << 4 << false;
    }
    // The structure and token counts of chat-bench's --json line; its timings are only
    // checked to be numbers (what they are worth depends on the machine).
    void chat_bench_reports_reuse_as_json() {
        QFETCH(int, turns);
        QFETCH(int, history);
        QFETCH(int, reply_tokens);
        QFETCH(bool, q8);
        QStringList args = {"chat-bench",
                            "-m",
                            model("stories260K.gguf"),
                            "--turns",
                            QString::number(turns),
                            "--history",
                            QString::number(history),
                            "--reply-tokens",
                            QString::number(reply_tokens),
                            "--json"};
        if (q8) args << "--q8";
        const Run r = run_cli(args);
        QCOMPARE(r.status, 0);
        const QStringList lines = r.out.trimmed().split('\n');
        QVERIFY(lines.size() > 1); // a table for people, then the JSON line
        const auto j = nlohmann::json::parse(lines.last().toStdString(), nullptr, false);
        QVERIFY2(j.is_object(), qPrintable(lines.last()));

        for (const char* key : {"reuse_speedup", "resume_speedup", "restore_ms", "reprefill_ms", "save_ms"})
            QVERIFY2(j.contains(key) && j[key].is_number(), key); // infinity or NaN would be null
        for (const char* key : {"n_ctx", "history_tokens", "reply_tokens", "resume_tokens", "state_bytes",
                                "after_resume_reused_tokens", "after_resume_computed_tokens"})
            QVERIFY2(j.contains(key) && j[key].is_number_integer(), key);
        QCOMPARE(j["reply_tokens"].get<int>(), reply_tokens);
        QCOMPARE(j["state_format"].get<std::string>(), std::string(q8 ? "q8_0" : "f16"));
        const int n_ctx = j["n_ctx"].get<int>();
        QVERIFY(n_ctx > 0 && n_ctx <= 128); // never past the model's trained context

        // Turn 0 is the history itself, then one row per new turn.
        const auto& rows = j["turns"];
        QVERIFY(rows.is_array());
        QCOMPARE(static_cast<int>(rows.size()), turns + 1);
        for (int i = 0; i <= turns; ++i) {
            const auto& row = rows[static_cast<size_t>(i)];
            for (const char* key : {"turn", "prompt_tokens", "reused_tokens", "computed_tokens"})
                QVERIFY2(row.contains(key) && row[key].is_number_integer(), key);
            for (const char* key : {"ttft_reuse_ms", "ttft_full_ms"})
                QVERIFY2(row.contains(key) && row[key].is_number(), key);
            const int prompt = row["prompt_tokens"].get<int>();
            const int reused = row["reused_tokens"].get<int>();
            const int computed = row["computed_tokens"].get<int>();
            QCOMPARE(row["turn"].get<int>(), i);
            QCOMPARE(reused + computed, prompt);
            QVERIFY(computed >= 1); // at least the last prompt token, for its logits
            QVERIFY(prompt <= n_ctx);
            if (i == 0)
                QCOMPARE(reused, 0); // a fresh conversation has nothing to reuse
            else
                QVERIFY2(reused > 0, qPrintable(QString("turn %1 reused nothing").arg(i)));
        }
        QCOMPARE(j["history_tokens"].get<int>(), rows[0]["prompt_tokens"].get<int>());
        QVERIFY(j["resume_tokens"].get<int>() > 0);
        QVERIFY(j["state_bytes"].get<int64_t>() > 0);
        QVERIFY(j["after_resume_reused_tokens"].get<int>() > 0); // the restored state was used
    }
};

QTEST_GUILESS_MAIN(TestCliCommands)
#include "test_cli_commands.moc"
