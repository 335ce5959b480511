// A model whose tokenizer.ggml.pre is unknown still loads: hearth-cli info shows
// the warning, and hearth-cli tokenize splits its text with llama.cpp's "default"
// expressions. The model is written with the project's GGUF writer.
#include "tests/support/cli_run.h"
#include "tests/tokenizer/bpe_model_fixture.h"
#include <QTest>

using namespace hearth;

class TestPreTokenizerWarningCli : public QObject {
    Q_OBJECT

private slots:
    void an_unknown_pre_tokenizer_is_reported_and_split_as_default() {
        const std::string dir = test::make_temp_dir("hearth-pre-warning-cli");
        const QString unknown = QString::fromStdString(test::write_bpe_model(dir, "no-such-pre"));
        const QString known = QString::fromStdString(test::write_bpe_model(dir, "gpt-2"));

        const test::CliBytesRun info = test::run_cli_bytes({"info", unknown});
        QVERIFY2(info.status == 0, info.err.constData());
        QVERIFY2(info.out.contains("tokenizer warning: unknown pre-tokenizer 'no-such-pre'"),
                 info.out.constData());
        const test::CliBytesRun clean = test::run_cli_bytes({"info", known});
        QVERIFY2(clean.status == 0, clean.err.constData());
        QVERIFY2(!clean.out.contains("tokenizer warning"), clean.out.constData());

        // "default" cuts digit runs into threes, GPT-2's keeps them whole.
        using Ids = test::BpeDigitIds;
        const test::CliBytesRun split = test::run_cli_bytes({"tokenize", "-m", unknown, "--no-bos"}, "1234");
        QVERIFY2(split.status == 0, split.err.constData());
        QCOMPARE(split.out, test::ids_line({Ids::t123, Ids::digit4}));
        QVERIFY(split.err.contains("unknown pre-tokenizer 'no-such-pre'"));
        const test::CliBytesRun whole = test::run_cli_bytes({"tokenize", "-m", known, "--no-bos"}, "1234");
        QVERIFY2(whole.status == 0, whole.err.constData());
        QCOMPARE(whole.out, test::ids_line({Ids::t1234}));
        QVERIFY(whole.err.isEmpty());
    }
};

QTEST_MAIN(TestPreTokenizerWarningCli)
#include "test_pre_tokenizer_warning_cli.moc"
