// A model whose tokenizer.ggml.pre is unknown still loads: hearth-cli info shows
// the warning, and hearth-cli tokenize splits its text with llama.cpp's "default"
// expressions. The model is written with the project's GGUF writer.
#include "tests/tokenizer/bpe_model_fixture.h"
#include <QProcess>
#include <QtTest>

using namespace hearth;

namespace {

struct Run {
    int status = -1;
    QByteArray out;
    QByteArray err;
};

Run run_cli(const QStringList& args, const QByteArray& input = {}) {
    QProcess process;
    process.start(QString::fromStdString(test::bin_dir() + "/hearth-cli"), args);
    Run run;
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

QByteArray ids_line(const std::vector<int32_t>& ids) {
    QByteArrayList parts;
    for (const int32_t id : ids)
        parts << QByteArray::number(id);
    return parts.join(' ') + '\n';
}

} // namespace

class TestPreTokenizerWarningCli : public QObject {
    Q_OBJECT

private slots:
    void an_unknown_pre_tokenizer_is_reported_and_split_as_default() {
        const std::string dir = test::make_temp_dir("hearth-pre-warning-cli");
        const QString unknown = QString::fromStdString(test::write_bpe_model(dir, "no-such-pre"));
        const QString known = QString::fromStdString(test::write_bpe_model(dir, "gpt-2"));

        const Run info = run_cli({"info", unknown});
        QVERIFY2(info.status == 0, info.err.constData());
        QVERIFY2(info.out.contains("tokenizer warning: unknown pre-tokenizer 'no-such-pre'"),
                 info.out.constData());
        const Run clean = run_cli({"info", known});
        QVERIFY2(clean.status == 0, clean.err.constData());
        QVERIFY2(!clean.out.contains("tokenizer warning"), clean.out.constData());

        // "default" cuts digit runs into threes, GPT-2's keeps them whole.
        using Ids = test::BpeDigitIds;
        const Run split = run_cli({"tokenize", "-m", unknown, "--no-bos"}, "1234");
        QVERIFY2(split.status == 0, split.err.constData());
        QCOMPARE(split.out, ids_line({Ids::t123, Ids::digit4}));
        QVERIFY(split.err.contains("unknown pre-tokenizer 'no-such-pre'"));
        const Run whole = run_cli({"tokenize", "-m", known, "--no-bos"}, "1234");
        QVERIFY2(whole.status == 0, whole.err.constData());
        QCOMPARE(whole.out, ids_line({Ids::t1234}));
        QVERIFY(whole.err.isEmpty());
    }
};

QTEST_MAIN(TestPreTokenizerWarningCli)
#include "test_pre_tokenizer_warning_cli.moc"
