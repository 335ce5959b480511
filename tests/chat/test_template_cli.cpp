// `hearth-cli template`: prints exactly the rendering, takes the template and the
// BOS/EOS texts from a GGUF, and exits with status 2 on a template error.
#include "tests/support/test_support.h"
#include <QProcess>
#include <QTest>
#include <filesystem>
#include <nlohmann/json.hpp>

using nlohmann::ordered_json;

namespace {

struct CliResult {
    int exit_code = -1;
    QByteArray out;
    QByteArray err;
};

CliResult run_cli(const QStringList& arguments) {
    QProcess process;
    process.start(QString::fromStdString(hearth::test::bin_dir() + "/hearth-cli"),
                  QStringList{"template"} + arguments);
    CliResult result;
    if (!process.waitForFinished(60'000)) {
        process.kill();
        process.waitForFinished();
        return result;
    }
    result.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

QString write_temp(const std::string& name, const std::string& bytes) {
    static const std::string dir = hearth::test::make_temp_dir("hearth-template-cli");
    std::string path = dir + "/" + name;
    hearth::test::write_file(path, bytes);
    return QString::fromStdString(path);
}

QString testdata(const std::string& relative) {
    return QString::fromStdString(hearth::test::testdata(relative));
}

const char* const kHiMessages = R"([{"role": "user", "content": "Hi"}])";

} // namespace

class TestTemplateCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY2(std::filesystem::exists(hearth::test::bin_dir() + "/hearth-cli"),
                 "hearth-cli is not built; build the hearth-cli target first");
    }

    // --template with a golden case: the output is the reference rendering, byte for byte.
    void renders_template_file_exactly() {
        auto golden = ordered_json::parse(hearth::test::read_file(
            hearth::test::testdata("templates/Qwen-Qwen2.5-7B-Instruct.expected.json")));
        for (const auto& test_case : golden["cases"]) {
            QString messages = write_temp("golden.json", test_case["messages"].dump());
            QStringList args = {"--template", testdata("templates/Qwen-Qwen2.5-7B-Instruct.jinja"),
                                "--messages", messages};
            if (test_case["add_generation_prompt"].get<bool>()) args << "--add-generation-prompt";
            CliResult result = run_cli(args);
            QCOMPARE(result.exit_code, 0);
            QCOMPARE(result.out, QByteArray::fromStdString(test_case["expected"].get<std::string>()));
        }
    }

    void bos_and_eos_options() {
        QString tpl = write_temp("bos.jinja", "{{ bos_token }}|{{ messages[0].content }}|{{ eos_token }}\n");
        CliResult result = run_cli({"--template", tpl, "--messages", write_temp("hi.json", kHiMessages),
                                    "--bos", "[B]", "--eos", "[E]"});
        QCOMPARE(result.exit_code, 0);
        QCOMPARE(result.out, QByteArray("[B]|Hi|[E]")); // Jinja drops the template's one trailing newline
    }

    // -m: the GGUF's own tokenizer.chat_template (Qwen2's adds a default system prompt).
    void model_template() {
        CliResult result = run_cli({"-m", testdata("vocab/ggml-vocab-qwen2.gguf"), "--messages",
                                    write_temp("hi.json", kHiMessages), "--add-generation-prompt"});
        QCOMPARE(result.exit_code, 0);
        QCOMPARE(result.out, QByteArray("<|im_start|>system\nYou are a helpful assistant<|im_end|>\n"
                                        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"));
    }

    // -m: bos_token defaults to the text of the model's BOS token; --bos overrides it.
    void model_bos_token() {
        QString messages = write_temp("hi.json", kHiMessages);
        CliResult result = run_cli({"-m", testdata("vocab/ggml-vocab-phi-3.gguf"), "--messages", messages});
        QCOMPARE(result.exit_code, 0);
        QCOMPARE(result.out, QByteArray("<s><|user|>\nHi<|end|>\n<|assistant|>\n"));
        result =
            run_cli({"-m", testdata("vocab/ggml-vocab-phi-3.gguf"), "--messages", messages, "--bos", "BOS"});
        QCOMPARE(result.exit_code, 0);
        QVERIFY(result.out.startsWith("BOS<|user|>"));
    }

    // A model without a template gets ChatML.
    void model_without_template() {
        CliResult result = run_cli({"-m", testdata("vocab/ggml-vocab-llama-spm.gguf"), "--messages",
                                    write_temp("hi.json", kHiMessages), "--add-generation-prompt"});
        QCOMPARE(result.exit_code, 0);
        QCOMPARE(result.out, QByteArray("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"));
    }

    void broken_template_exits_2() {
        QString tpl = write_temp("broken.jinja", "line one\n{% for m in messages %}{{ m.content }");
        CliResult result = run_cli({"--template", tpl, "--messages", write_temp("hi.json", kHiMessages)});
        QCOMPARE(result.exit_code, 2);
        QVERIFY(result.out.isEmpty());
        QVERIFY2(result.err.contains("broken.jinja:2:"), result.err.constData());
    }

    void raise_exception_exits_2() {
        QString tpl = write_temp("raise.jinja", "{{ raise_exception('No system role, please') }}");
        CliResult result = run_cli({"--template", tpl, "--messages", write_temp("hi.json", kHiMessages)});
        QCOMPARE(result.exit_code, 2);
        QVERIFY(result.out.isEmpty());
        QVERIFY2(result.err.contains("No system role, please"), result.err.constData());
    }

    // Gemma's template has no system role: the CLI shows Jinja2's error, as Jinja2 would
    // (the chat app folds the system prompt instead; see test_template_capabilities).
    void gemma_system_message_is_an_error_as_in_jinja2() {
        const QString messages =
            write_temp("system.json",
                       R"([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}])");
        CliResult result =
            run_cli({"--template", testdata("templates/google-gemma-2-2b-it.jinja"), "--messages", messages});
        QCOMPARE(result.exit_code, 2);
        QVERIFY(result.out.isEmpty());
        QVERIFY2(result.err.contains("System role not supported"), result.err.constData());
        CliResult plain = run_cli({"--template", testdata("templates/google-gemma-2-2b-it.jinja"),
                                   "--messages", write_temp("hi.json", kHiMessages)});
        QCOMPARE(plain.exit_code, 0);
        QVERIFY2(plain.out.contains("<start_of_turn>user\nHi<end_of_turn>"), plain.out.constData());
    }

    void bad_arguments_exit_2() {
        QString messages = write_temp("hi.json", kHiMessages);
        QCOMPARE(run_cli({"--messages", messages}).exit_code, 2); // neither -m nor --template
        QCOMPARE(run_cli({"--template", testdata("templates/Qwen-Qwen2.5-7B-Instruct.jinja")}).exit_code, 2);
        CliResult not_json = run_cli({"--template", testdata("templates/Qwen-Qwen2.5-7B-Instruct.jinja"),
                                      "--messages", write_temp("bad.json", "[{\"role\": ")});
        QCOMPARE(not_json.exit_code, 2);
        QVERIFY2(not_json.err.contains("bad.json"), not_json.err.constData());
    }
};

QTEST_MAIN(TestTemplateCli)
#include "test_template_cli.moc"
