// hearth-cli's contracts, run as a user would: the real binary, real files.
#include "engine/model/model.h"
#include "kernels/kernel_table.h"
#include "tests/support/cli_run.h"
#include "tests/support/printed_logits.h"
#include "tests/support/reference_logits.h"
#include "tests/support/test_support.h"
#include <QProcess>
#include <QTest>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

namespace {

using Run = hearth::test::CliRun;
using hearth::test::run_cli;

using hearth::test::joined;
using hearth::test::model;

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

    // `logits` on stories260K along every reference line, on every ISA tier: one line per
    // position from --from on, each a full vector of n_vocab numbers, and those numbers meet the
    // README's accuracy rule against exact math at llama.cpp's golden top-5 ids (RMS at most
    // 1.1x, maximum at most 1.5x llama.cpp's own error).
    void logits_meet_the_reference_rule_data() {
        QTest::addColumn<int>("isa");
        for (hearth::kernels::Isa isa : hearth::kernels::kIsaTiers)
            QTest::newRow(std::string(hearth::kernels::isa_name(isa)).c_str()) << static_cast<int>(isa);
    }
    void logits_meet_the_reference_rule() {
        QFETCH(int, isa);
        const auto tier = static_cast<hearth::kernels::Isa>(isa);
        if (!hearth::kernels::kernels_for(tier)) QSKIP(hearth::kernels::isa_unavailable_reason(tier).c_str());
        const std::string name = "stories260K";
        const QString path = model("stories260K.gguf");
        const int n_vocab = hearth::engine::Model::read_info(path.toStdString()).n_vocab;
        const std::vector<hearth::test::ReferenceLine> lines = hearth::test::read_reference(name);
        hearth::test::TopFiveError error;
        for (const hearth::test::ReferenceLine& line : lines) {
            const int from = static_cast<int>(line.first_predicting_row());
            const Run r = run_cli({"logits", "-m", path, "--tokens", joined(line.teacher_forced_sequence()),
                                   "--from", QString::number(from), "-t", "2", "--isa",
                                   QString::fromStdString(std::string(hearth::kernels::isa_name(tier)))});
            QVERIFY2(r.status == 0, qPrintable(r.err));
            hearth::test::add_printed_logits(r.out, line, n_vocab, error);
            if (QTest::currentTestFailed()) return;
        }
        const hearth::test::LlamaCppError llama_cpp = hearth::test::llama_cpp_error(name);
        qInfo("%s: RMS %.3g (%.2fx llama.cpp's), max %.3g (%.2fx llama.cpp's); %d steps compared",
              name.c_str(), error.rms(), error.rms() / llama_cpp.rms, error.max_abs(),
              error.max_abs() / llama_cpp.max_abs, error.steps());
        QCOMPARE(error.steps(), llama_cpp.steps);
        QVERIFY2(error.rms() <= hearth::test::kRmsRatioLimit * llama_cpp.rms,
                 qPrintable(QString("RMS error %1, llama.cpp's %2").arg(error.rms()).arg(llama_cpp.rms)));
        QVERIFY2(error.max_abs() <= hearth::test::kMaxRatioLimit * llama_cpp.max_abs,
                 qPrintable(QString("max error %1 at %2, llama.cpp's %3")
                                .arg(error.max_abs())
                                .arg(QString::fromStdString(error.worst_at()))
                                .arg(llama_cpp.max_abs)));
    }

    // Bad token ids or a bad --from: exit status 2, nothing on stdout, a message naming the problem.
    void logits_rejects_bad_input_data() {
        QTest::addColumn<QString>("tokens");
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("problem");
        const int n_vocab = hearth::engine::Model::read_info(model("stories260K.gguf").toStdString()).n_vocab;
        const QString past_vocab = QString::number(n_vocab);
        QTest::newRow("id past the vocabulary") << "1 403 " + past_vocab << "0"
                                                << "token id " + past_vocab;
        QTest::newRow("negative id") << "1 -7 403"
                                     << "0"
                                     << "token id -7";
        QTest::newRow("not an integer") << "1 4o3"
                                        << "0"
                                        << "'4o3' is not an integer";
        QTest::newRow("not a whole number") << "1 403.5"
                                            << "0"
                                            << "'403.5' is not an integer";
        QTest::newRow("no ids") << "  "
                                << "0"
                                << "--tokens is empty";
        QTest::newRow("--from past the last") << "1 403 407"
                                              << "3"
                                              << "--from 3";
        QTest::newRow("--from negative") << "1 403 407"
                                         << "-1"
                                         << "--from -1";
        QTest::newRow("--from not an integer") << "1 403 407"
                                               << "one"
                                               << "--from";
    }
    void logits_rejects_bad_input() {
        QFETCH(QString, tokens);
        QFETCH(QString, from);
        QFETCH(QString, problem);
        const Run r =
            run_cli({"logits", "-m", model("stories260K.gguf"), "--tokens", tokens, "--from", from});
        QCOMPARE(r.status, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains(problem), qPrintable(r.err));
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
