// hearth-cli tokenize: stdin in, ids out, matching the reference vectors; a bad
// model fails with status 2 and a message naming the file.
#include "tests/support/cli_run.h"
#include "tests/tokenizer/tokenizer_test_data.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace hearth;

namespace {

test::CliBytesRun tokenize(const QStringList& args, const QByteArray& input) {
    return test::run_cli_bytes(QStringList{"tokenize"} + args, input);
}

} // namespace

class TestTokenizeCli : public QObject {
    Q_OBJECT

private slots:
    void ids_match_reference_vectors_data() {
        QTest::addColumn<QString>("vocab");
        QTest::addColumn<int>("index");
        for (const char* name : {"llama-spm", "gpt-2", "llama-bpe", "qwen2"}) {
            const size_t count = test::read_vocab_cases(test::vocab_path(name)).size();
            // A few spread over the file: short, whitespace-only, multilingual, long.
            for (const size_t i : {size_t{0}, size_t{5}, count / 2, count - 1})
                QTest::addRow("%s/%zu", name, i) << name << static_cast<int>(i);
        }
    }
    void ids_match_reference_vectors() {
        QFETCH(QString, vocab);
        QFETCH(int, index);
        const std::string path = test::vocab_path(vocab.toStdString());
        const test::VocabCase c = test::read_vocab_cases(path).at(index);
        const test::CliBytesRun run =
            tokenize({"-m", QString::fromStdString(path), "--no-bos"}, QByteArray::fromStdString(c.text));
        QVERIFY2(run.status == 0, run.err.constData());
        QCOMPARE(run.out, test::ids_line(c.ids));
    }

    // The tiny models of testdata/models, whole files: the CLI gives llama.cpp's ids for
    // the prompts of their golden runs, BOS included where the vocabulary adds it.
    void tiny_models_tokenize_as_llama_cpp_data() {
        QTest::addColumn<QString>("stem");
        QTest::addColumn<QByteArray>("prompt");
        QTest::addColumn<QByteArray>("ids");
        for (const char* stem : {"tiny-gemma2", "tiny-gemma3", "tiny-phi3", "tiny-gpt2"}) {
            const QList<QByteArray> lines =
                QByteArray::fromStdString(
                    test::read_file(test::testdata(std::string("golden/") + stem + ".greedy.jsonl")))
                    .split('\n');
            int row = 0;
            for (const QByteArray& line : lines) {
                if (line.trimmed().isEmpty()) continue;
                const QJsonObject golden = QJsonDocument::fromJson(line).object();
                QByteArrayList ids;
                for (const QJsonValue id : golden.value("prompt_tokens").toArray())
                    ids << QByteArray::number(id.toInt());
                QTest::addRow("%s/%d", stem, row++)
                    << stem << golden.value("prompt").toString().toUtf8() << ids.join(' ') + '\n';
            }
        }
    }
    void tiny_models_tokenize_as_llama_cpp() {
        QFETCH(QString, stem);
        QFETCH(QByteArray, prompt);
        QFETCH(QByteArray, ids);
        const test::CliBytesRun run = tokenize(
            {"-m", QString::fromStdString(test::testdata("models/" + stem.toStdString() + ".gguf"))}, prompt);
        QVERIFY2(run.status == 0, run.err.constData());
        QCOMPARE(run.out, ids);
        QVERIFY2(run.err.isEmpty(), run.err.constData()); // no warnings
    }

    void bos_and_special_tokens_follow_the_flags() {
        const std::string path = test::vocab_path("llama-bpe");
        const auto& tok = test::cached_tokenizer(path);
        const QByteArray text = "<|start_header_id|>user<|end_header_id|>";
        const QString model = QString::fromStdString(path);

        const test::CliBytesRun plain = tokenize({"-m", model}, text);
        QCOMPARE(plain.status, 0);
        QCOMPARE(plain.out, test::ids_line(tok.encode(text.toStdString(), true, false)));
        QVERIFY(plain.out.startsWith(QByteArray::number(tok.bos_id()) + ' '));

        const test::CliBytesRun special = tokenize({"--model", model, "--parse-special", "--no-bos"}, text);
        QCOMPARE(special.status, 0);
        QCOMPARE(special.out, test::ids_line(tok.encode(text.toStdString(), false, true)));
        QCOMPARE(special.out.count(' '), 2); // three tokens
    }

    void bad_model_fails_with_status_2() {
        const std::string dir = test::make_temp_dir("hearth-tokenize-cli");
        const std::string bad = dir + "/not-a-model.gguf";
        test::write_file(bad, "this is not a GGUF file");
        const test::CliBytesRun run = tokenize({"-m", QString::fromStdString(bad)}, "Hello");
        QCOMPARE(run.status, 2);
        QVERIFY2(run.err.contains(QByteArray::fromStdString(bad)), run.err.constData());
        QVERIFY(run.out.isEmpty());

        const test::CliBytesRun missing =
            tokenize({"-m", QString::fromStdString(dir + "/missing.gguf")}, "Hello");
        QCOMPARE(missing.status, 2);
        QVERIFY(missing.err.contains("missing.gguf"));
    }

    void missing_model_option_is_a_usage_error() {
        const test::CliBytesRun run = tokenize({}, "Hello");
        QCOMPARE(run.status, 2);
        QVERIFY(run.err.contains("-m"));
    }
};

QTEST_MAIN(TestTokenizeCli)
#include "test_tokenize_cli.moc"
