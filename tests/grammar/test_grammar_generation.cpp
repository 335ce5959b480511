// Generation under a grammar with a real model: for each of a dozen JSON Schemas (nested
// objects, arrays with item bounds, enums and consts, anyOf and oneOf, optional properties,
// type lists, string lengths, a pattern, the date, time, date-time and uuid formats),
// stories260K at temperature 1 with every filter off writes 200 replies, and every one is
// JSON that the schema accepts (judged by a validator apart from the grammar's generator), with
// the properties in the schema's order.
// A grammar that cannot be finished within max_tokens stops there with Length. Schemas the
// converter cannot take are refused with the keyword's JSON pointer and the reason.
#include "engine/grammar/gbnf_parser.h"
#include "engine/grammar/json_schema_grammar.h"
#include "engine/session/chat_session.h"
#include "tests/grammar/json_schema_check.h"
#include "tests/model/model_fixture.h"
#include <QTest>
#include <set>

using namespace hearth;
using nlohmann::json;

namespace {

constexpr int kSamples = 200;

const std::vector<std::pair<const char*, const char*>>& schemas() {
    static const std::vector<std::pair<const char*, const char*>> list{
        {"enum of mixed values", R"({"enum": ["red", "green", "blue", 7, null, true]})"},
        {"flat object",
         R"({"type": "object", "properties": {"name": {"type": "string", "maxLength": 12},
             "age": {"type": "integer"}, "member": {"type": "boolean"}},
             "required": ["name", "age"], "additionalProperties": false})"},
        {"nested objects",
         R"({"type": "object", "properties": {"user": {"type": "object", "properties": {
             "id": {"type": "integer"}, "address": {"type": "object", "properties": {
             "city": {"type": "string", "maxLength": 8}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
             "required": ["city", "zip"], "additionalProperties": false}},
             "required": ["id", "address"], "additionalProperties": false}},
             "required": ["user"], "additionalProperties": false})"},
        {"array of enums",
         R"({"type": "array", "items": {"enum": ["a", "b", "c"]}, "minItems": 2, "maxItems": 5})"},
        {"array of objects",
         R"({"type": "array", "items": {"type": "object", "properties": {"x": {"type": "number"},
             "y": {"type": "number"}}, "required": ["x", "y"], "additionalProperties": false}, "maxItems": 3})"},
        {"anyOf",
         R"({"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 5}, {"type": "null"}]})"},
        {"oneOf",
         R"({"oneOf": [{"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
             "required": ["kind", "r"], "additionalProperties": false},
             {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "integer"}},
             "required": ["kind", "side"], "additionalProperties": false}]})"},
        {"formats",
         R"({"type": "object", "properties": {"day": {"type": "string", "format": "date"},
             "at": {"type": "string", "format": "time"}, "id": {"type": "string", "format": "uuid"},
             "when": {"type": "string", "format": "date-time"}}, "required": ["day", "at", "id", "when"],
             "additionalProperties": false})"},
        {"pattern", R"({"type": "string", "pattern": "^(ab|c\\.d)+-[A-Z]{2,3}\\d?$"})"},
        {"optional properties only",
         R"({"type": "object", "properties": {"a": {"type": "boolean"}, "b": {"type": "null"},
             "c": {"enum": [1, 2, 3]}}, "additionalProperties": false})"},
        {"type list, const, array of short strings",
         R"({"type": "object", "properties": {"v": {"type": ["integer", "boolean"]}, "tag": {"const": "fixed"},
             "tags": {"type": "array", "items": {"type": "string", "maxLength": 4}, "maxItems": 3}},
             "required": ["v", "tag", "tags"], "additionalProperties": false})"},
        {"string lengths", R"({"type": "string", "minLength": 3, "maxLength": 6})"},
    };
    return list;
}

engine::GenerationOptions free_sampling(std::shared_ptr<const engine::Grammar> grammar, uint64_t seed) {
    engine::GenerationOptions options;
    options.sampling.temperature = 1.0f;
    options.sampling.top_k = 0;
    options.sampling.top_p = 1.0f;
    options.sampling.min_p = 0.0f;
    options.sampling.repeat_penalty = 1.0f;
    options.sampling.seed = seed;
    options.max_tokens = 400;
    options.grammar = std::move(grammar);
    return options;
}

std::string schema_error(const char* schema) {
    try {
        engine::json_schema_to_gbnf(std::string(schema), "s.json");
    } catch (const engine::GrammarError& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestGrammarGeneration : public QObject {
    Q_OBJECT
    test::LoadedModel model_;

private slots:
    void initTestCase() { model_ = test::load_model("stories260K", 64); }

    void everyReplyFollowsItsSchema_data() {
        QTest::addColumn<int>("index");
        for (size_t i = 0; i < schemas().size(); ++i)
            QTest::newRow(schemas()[i].first) << static_cast<int>(i);
    }
    void everyReplyFollowsItsSchema() {
        QFETCH(int, index);
        const json schema = json::parse(schemas()[static_cast<size_t>(index)].second);
        const auto grammar = std::make_shared<const engine::Grammar>(engine::parse_gbnf(
            engine::json_schema_to_gbnf(std::string(schemas()[static_cast<size_t>(index)].second)),
            "generated"));
        const nlohmann::ordered_json ordered =
            nlohmann::ordered_json::parse(schemas()[static_cast<size_t>(index)].second);
        engine::ChatSession session(*model_.inference, 512);
        const std::vector<engine::ChatTurn> turns{{chat::Role::User, "Once upon a time"}};
        std::set<std::string> distinct;
        for (int i = 0; i < kSamples; ++i) {
            std::string text;
            const engine::TurnStats stats = session.reply(turns, free_sampling(grammar, 1000 + i),
                                                          [&text](std::string_view piece) { text += piece; });
            QVERIFY2(
                stats.stop_reason == engine::StopReason::EndOfGeneration,
                ("did not finish (" + std::string(engine::stop_reason_name(stats.stop_reason)) + "): " + text)
                    .c_str());
            json value;
            try {
                value = json::parse(text);
            } catch (const json::exception& e) {
                QFAIL(("not JSON: " + text + " (" + e.what() + ")").c_str());
            }
            const std::string why = test::schema_violation(value, schema);
            QVERIFY2(why.empty(), (why + " in " + text).c_str());
            // An object's properties come in the order the schema lists them.
            if (value.is_object() && ordered.contains("properties")) {
                std::vector<std::string> listed;
                for (const auto& [key, property] : ordered["properties"].items())
                    if (value.contains(key)) listed.push_back(key);
                std::vector<std::string> written;
                const nlohmann::ordered_json in_order = nlohmann::ordered_json::parse(text);
                for (const auto& [key, v] : in_order.items())
                    written.push_back(key);
                QVERIFY2(written == listed, text.c_str());
            }
            distinct.insert(text);
        }
        // Sampled, not one fixed answer.
        QVERIFY2(distinct.size() >= 3, qPrintable(QString::number(distinct.size())));
    }

    // 100 "a"s cannot fit in 10 tokens: the reply stops at max_tokens with Length.
    void aGrammarThatCannotFinishStopsAtTheLimit() {
        const auto grammar =
            std::make_shared<const engine::Grammar>(engine::parse_gbnf("root ::= \"a\"{100}\n"));
        engine::ChatSession session(*model_.inference, 512);
        const std::vector<engine::ChatTurn> turns{{chat::Role::User, "Once upon a time"}};
        engine::GenerationOptions options = free_sampling(grammar, 7);
        options.max_tokens = 10;
        std::string text;
        const engine::TurnStats stats =
            session.reply(turns, options, [&text](std::string_view piece) { text += piece; });
        QCOMPARE(stats.stop_reason, engine::StopReason::Length);
        QCOMPARE(stats.generated_tokens, 10);
        QVERIFY(!text.empty());
        QCOMPARE(text.find_first_not_of('a'), std::string::npos);
    }

    void badSchemasSayWhereAndWhy_data() {
        QTest::addColumn<QString>("schema");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not JSON") << "{\"type\": "
                                  << "s.json: not JSON (byte";
        QTest::newRow("unknown type") << "{\"properties\": {\"a\": {\"type\": \"integr\"}}}"
                                      << "s.json: /properties/a/type: unknown type 'integr'";
        QTest::newRow("unsupported keyword") << "{\"type\": \"integer\", \"minimum\": 3}"
                                             << "s.json: /minimum: 'minimum' is not supported";
        QTest::newRow("$ref") << "{\"items\": {\"$ref\": \"#/$defs/x\"}}"
                              << "s.json: /items/$ref: '$ref' is not supported";
        QTest::newRow("required unknown")
            << "{\"properties\": {\"a\": {}}, \"required\": [\"b\"]}"
            << "s.json: /required/0: 'b' is required but not among the properties";
        QTest::newRow("bounds") << "{\"type\": \"array\", \"minItems\": 3, \"maxItems\": 2}"
                                << "s.json: /maxItems: 'maxItems' is below 'minItems'";
        QTest::newRow("negative") << "{\"type\": \"string\", \"maxLength\": -1}"
                                  << "s.json: /maxLength: expected a non-negative integer";
        QTest::newRow("format") << "{\"type\": \"string\", \"format\": \"email\"}"
                                << "s.json: /format: the format 'email' is not supported";
        QTest::newRow("lookahead") << "{\"properties\": {\"p\": {\"pattern\": \"a(?=b)\"}}}"
                                   << "s.json: /properties/p/pattern: pattern, offset 2: lookarounds";
        QTest::newRow("backreference")
            << "{\"pattern\": \"(a)\\\\1\"}"
            << "s.json: /pattern: pattern, offset 5: backreferences are not supported";
        QTest::newRow("empty enum") << "{\"enum\": []}"
                                    << "s.json: /enum: 'enum' must be a non-empty array";
        QTest::newRow("false") << "{\"anyOf\": [false]}"
                               << "s.json: /anyOf/0: the schema 'false' accepts nothing";
    }
    void badSchemasSayWhereAndWhy() {
        QFETCH(QString, schema);
        QFETCH(QString, expected);
        const std::string error = schema_error(schema.toUtf8().constData());
        QVERIFY2(QString::fromStdString(error).contains(expected), error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestGrammarGeneration)
#include "test_grammar_generation.moc"
