// hearth-cli generate's reply-shaping flags on a real model: a JSON Schema's replies parse and
// keep to it, prompt lookup gives plain greedy decoding's text, and a bad grammar or a bad flag
// is refused with exit status 2 and the file, line and column.
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace hearth;

namespace {

QString write_file(const QTemporaryDir& dir, const char* name, const QByteArray& text) {
    const QString path = dir.filePath(QString::fromLatin1(name));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size()) return {};
    return path;
}

} // namespace

class TestGenerationFlagsCli : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

private slots:
    void a_json_schemas_replies_parse_and_keep_to_it() {
        const QString schema =
            write_file(dir_, "person.json",
                       R"({"type": "object", "properties": {"name": {"type": "string", "maxLength": 12},
                "age": {"type": "integer"}, "pet": {"enum": ["cat", "dog"]}},
                "required": ["name", "age", "pet"], "additionalProperties": false})");
        QVERIFY(!schema.isEmpty());
        for (int seed = 1; seed <= 5; ++seed) {
            const test::CliRun run = test::run_cli({"generate", "-m", test::model("stories260K.gguf"), "-p",
                                                    "Once upon a time", "-n", "200", "--temp", "1", "--seed",
                                                    QString::number(seed), "--json-schema", schema});
            QVERIFY2(run.status == 0, qPrintable(run.err));
            QJsonParseError error{};
            const QJsonDocument reply = QJsonDocument::fromJson(run.out.toUtf8(), &error);
            QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(run.out));
            const QJsonObject object = reply.object();
            QCOMPARE(object.keys(), (QStringList{"age", "name", "pet"}));
            QVERIFY(object.value("name").isString());
            QVERIFY(object.value("name").toString().size() <= 12);
            QVERIFY2(object.value("age").isDouble() &&
                         object.value("age").toDouble() == std::trunc(object.value("age").toDouble()),
                     qPrintable(run.out));
            QVERIFY(object.value("pet") == QJsonValue("cat") || object.value("pet") == QJsonValue("dog"));
        }
    }

    void prompt_lookup_gives_plain_greedy_text() {
        const QStringList common{"generate",
                                 "-m",
                                 test::model("stories260K.gguf"),
                                 "-p",
                                 "Once upon a time there was a little girl. Once upon a time there was",
                                 "-n",
                                 "60",
                                 "--temp",
                                 "0"};
        const test::CliRun plain = test::run_cli(common);
        QCOMPARE(plain.status, 0);
        for (const char* n : {"1", "3", "4"}) {
            const test::CliRun lookup =
                test::run_cli(common + QStringList{"--lookup", n, "--draft-max", "6"});
            QVERIFY2(lookup.status == 0, qPrintable(lookup.err));
            QCOMPARE(lookup.out, plain.out);
            QVERIFY2(lookup.err.contains("speculative decoding:"), qPrintable(lookup.err));
        }
    }

    void a_bad_grammar_or_flag_is_refused_with_where() {
        const QString grammar = write_file(dir_, "bad.gbnf", "root ::= \"a\" (\n");
        const test::CliRun bad = test::run_cli(
            {"generate", "-m", test::model("stories260K.gguf"), "-p", "x", "-n", "4", "--grammar", grammar});
        QCOMPARE(bad.status, 2);
        QVERIFY2(bad.err.contains(grammar + ": line 2, column 1:"), qPrintable(bad.err));

        const QString schema = write_file(dir_, "bad.json", R"({"type": "object", "minimum": 3})");
        const test::CliRun unsupported = test::run_cli({"generate", "-m", test::model("stories260K.gguf"),
                                                        "-p", "x", "-n", "4", "--json-schema", schema});
        QCOMPARE(unsupported.status, 2);
        QVERIFY2(unsupported.err.contains("minimum"), qPrintable(unsupported.err));

        const test::CliRun both =
            test::run_cli({"generate", "-m", test::model("stories260K.gguf"), "-p", "x", "--lookup", "2",
                           "--draft", test::model("stories260K.gguf")});
        QCOMPARE(both.status, 2);
        const test::CliRun range =
            test::run_cli({"generate", "-m", test::model("stories260K.gguf"), "-p", "x", "--lookup", "9"});
        QCOMPARE(range.status, 2);
        QVERIFY2(range.err.contains("--lookup expects 1 to 4"), qPrintable(range.err));
    }
};

QTEST_GUILESS_MAIN(TestGenerationFlagsCli)
#include "test_generation_flags_cli.moc"
