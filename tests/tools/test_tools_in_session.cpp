// Tools through a chat session on a real model (stories260K, with real templates given as the
// template override): GenerationOptions::tools_json reaches the template's `tools` variable
// (Qwen lists them in its system prompt, Llama 3.2 in the first user turn), and a reply under the
// forced-call grammar of the template's family is a call its parser reads back, with arguments
// the tool's schema accepts, for every family.
#include "engine/grammar/gbnf_parser.h"
#include "engine/session/chat_session.h"
#include "engine/tools/forced_tool_grammar.h"
#include "engine/tools/tool_call_parser.h"
#include "tests/grammar/json_schema_check.h"
#include "tests/model/model_fixture.h"
#include <QTest>

using namespace hearth;
using json = nlohmann::ordered_json;

namespace {

const char* kTools = R"([{"type": "function", "function": {"name": "get_time",
    "parameters": {"type": "object", "properties": {"zone": {"type": "string", "enum": ["UTC", "CET"]}},
                   "required": ["zone"], "additionalProperties": false}}}])";

std::string template_source(const std::string& stem) {
    return test::read_file(test::testdata("templates/" + stem + ".jinja"));
}

std::vector<engine::ChatTurn> question() {
    return {engine::ChatTurn{chat::Role::User, "What time is it?", json::object()}};
}

} // namespace

class TestToolsInSession : public QObject {
    Q_OBJECT

    test::LoadedModel stories_;

private slots:
    void initTestCase() { stories_ = test::load_model("stories260K", 16); }

    void tools_json_reaches_the_template_data() {
        QTest::addColumn<QString>("stem");
        QTest::newRow("qwen 2.5") << "Qwen-Qwen2.5-7B-Instruct";
        QTest::newRow("llama 3.2") << "meta-llama-Llama-3.2-3B-Instruct";
        QTest::newRow("mistral nemo") << "mistralai-Mistral-Nemo-Instruct-2407";
    }
    void tools_json_reaches_the_template() {
        QFETCH(QString, stem);
        engine::ChatSession session(*stories_.inference, 128);
        engine::GenerationOptions options;
        options.template_override = template_source(stem.toStdString());
        const std::string without = session.render(question(), options);
        options.tools_json = kTools;
        const std::string with = session.render(question(), options);
        QVERIFY2(without.find("get_time") == std::string::npos, without.c_str());
        QVERIFY2(with.find("get_time") != std::string::npos, with.c_str());
        QVERIFY(with.find("What time is it?") != std::string::npos);
    }

    void a_forced_reply_is_a_call_of_the_family_data() {
        QTest::addColumn<QString>("stem");
        QTest::addColumn<int>("seed");
        for (const char* stem : {"Qwen-Qwen2.5-7B-Instruct", "meta-llama-Llama-3.2-3B-Instruct",
                                 "mistralai-Mistral-Nemo-Instruct-2407", "google-gemma-2-2b-it"})
            for (int seed : {1, 2})
                QTest::newRow((std::string(stem) + " seed " + std::to_string(seed)).c_str()) << stem << seed;
    }
    void a_forced_reply_is_a_call_of_the_family() {
        QFETCH(QString, stem);
        QFETCH(int, seed);
        const std::string source = template_source(stem.toStdString());
        const engine::ToolFamily family = engine::tool_family_for_template(source);
        engine::ChatSession session(*stories_.inference, 128);
        engine::GenerationOptions options;
        options.template_override = source;
        options.max_tokens = 120;
        options.sampling.temperature = 1.0f;
        options.sampling.seed = static_cast<uint64_t>(seed);
        options.grammar = std::make_shared<const engine::Grammar>(
            engine::parse_gbnf(engine::forced_tool_call_gbnf(family, json::parse(kTools))));
        std::string reply;
        const engine::TurnStats stats =
            session.reply(question(), options, [&](std::string_view piece) { reply += piece; });
        QVERIFY2(stats.stop_reason != engine::StopReason::Length, reply.c_str());
        const engine::ToolCallReply parsed = engine::parse_tool_calls(family, reply);
        QCOMPARE(parsed.calls.size(), size_t(1));
        QCOMPARE(parsed.calls[0].name, std::string("get_time"));
        const std::string violation = test::schema_violation(
            nlohmann::json::parse(parsed.calls[0].arguments),
            nlohmann::json::parse(R"({"type": "object", "properties": {"zone": {"type": "string",
                "enum": ["UTC", "CET"]}}, "required": ["zone"], "additionalProperties": false})"));
        QVERIFY2(violation.empty(), (reply + ": " + violation).c_str());
    }
};

QTEST_GUILESS_MAIN(TestToolsInSession)
#include "test_tools_in_session.moc"
