// A reply streamed piece by piece with the calls taken out: nothing that may open a call leaks
// as content, content that cannot does go out at once, and what is released adds up to the
// parser's content whatever the pieces. Also the forced-call grammar of each family (it accepts
// the family's own call text for a tool and refuses another name or arguments the schema
// forbids; a schema it cannot take is named) and the call ids each family's template takes.
#include "engine/grammar/gbnf_parser.h"
#include "engine/grammar/grammar_matcher.h"
#include "engine/tools/forced_tool_grammar.h"
#include "engine/tools/tool_call_id.h"
#include "engine/tools/tool_call_parser.h"
#include "engine/tools/tool_call_stream.h"
#include "engine/tools/tool_prompt.h"
#include <QTest>
#include <cctype>

using namespace hearth::engine;
using json = nlohmann::ordered_json;

namespace {

struct Streamed {
    std::vector<std::string> released; // per piece
    std::string content;               // all of it, finish() included
    std::vector<ToolCall> calls;
};

Streamed stream(ToolFamily family, std::string_view text, size_t piece_size) {
    ToolCallStream s(family);
    Streamed out;
    for (size_t i = 0; i < text.size(); i += piece_size) {
        out.released.push_back(s.push(text.substr(i, piece_size)));
        out.content += out.released.back();
    }
    ToolCallReply rest = s.finish();
    out.content += rest.content;
    out.calls = std::move(rest.calls);
    return out;
}

bool grammar_accepts(const std::string& gbnf, const std::string& text) {
    GrammarMatcher matcher(std::make_shared<const Grammar>(parse_gbnf(gbnf)));
    GrammarState state = matcher.start();
    return matcher.advance(state, text) && GrammarMatcher::accepting(state);
}

json tools() {
    return json::parse(R"([
        {"type": "function", "function": {"name": "get_weather",
         "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                        "required": ["city", "days"], "additionalProperties": false}}},
        {"type": "function", "function": {"name": "ping"}}])");
}

} // namespace

class TestToolCallStreaming : public QObject {
    Q_OBJECT

private slots:
    void content_before_a_call_streams_and_the_call_is_held_data() {
        QTest::addColumn<int>("family");
        QTest::addColumn<QString>("text");
        QTest::newRow("hermes")
            << int(ToolFamily::Hermes)
            << "Checking <tt> now.\n<tool_call>\n{\"name\": \"ping\", \"arguments\": {}}\n</tool_call>";
        QTest::newRow("mistral") << int(ToolFamily::Mistral)
                                 << "Checking [x] now.[TOOL_CALLS][{\"name\": \"ping\", \"arguments\": {}}]";
        QTest::newRow("llama3 tag")
            << int(ToolFamily::Llama3)
            << "Checking <|x|> now.<|python_tag|>{\"name\": \"ping\", \"parameters\": {}}";
        QTest::newRow("fenced") << int(ToolFamily::FencedJson)
                                << "Checking `x` now.\n```json\n{\"name\": \"ping\", \"arguments\": {}}\n```";
    }
    void content_before_a_call_streams_and_the_call_is_held() {
        QFETCH(int, family);
        QFETCH(QString, text);
        const std::string reply = text.toStdString();
        const ToolCallReply whole = parse_tool_calls(ToolFamily(family), reply);
        QCOMPARE(whole.calls.size(), size_t(1));
        for (size_t piece : {1, 2, 3, 5, 7, 64}) {
            const Streamed s = stream(ToolFamily(family), reply, piece);
            QCOMPARE(s.content, whole.content);
            QCOMPARE(s.calls, whole.calls);
            std::string released;
            for (const std::string& r : s.released)
                released += r;
            // The plain text went out while streaming; nothing of the call did.
            QVERIFY2(released.find("Checking") == 0, released.c_str());
            QVERIFY2(released.find("ping") == std::string::npos, released.c_str());
            QVERIFY2(released.find("now.") != std::string::npos, released.c_str());
        }
    }

    void a_reply_without_calls_streams_whole() {
        const std::string reply = "A plain answer, with < and [ and { in it: <tool and [TOOL but no call.";
        for (size_t piece : {1, 4, 100}) {
            const Streamed s = stream(ToolFamily::Hermes, reply, piece);
            QCOMPARE(s.content, reply);
            QVERIFY(s.calls.empty());
        }
        // Llama 3's bare JSON: a reply starting with '{' is held whole, and is content if not a call.
        const Streamed json_reply = stream(ToolFamily::Llama3, R"({"answer": 42})", 3);
        for (size_t i = 0; i + 1 < json_reply.released.size(); ++i)
            QVERIFY(json_reply.released[i].empty());
        QCOMPARE(json_reply.content, std::string(R"({"answer": 42})"));
        const Streamed call = stream(ToolFamily::Llama3, R"( {"name": "ping", "parameters": {}})", 2);
        QCOMPARE(call.calls.size(), size_t(1));
        QVERIFY(call.content.find_first_not_of(" ") == std::string::npos);
        // Mistral's marker may decode to no text: a reply opening with an array is held the same way.
        const Streamed mistral = stream(ToolFamily::Mistral, R"([{"name": "ping", "arguments": {}}])", 4);
        QCOMPARE(mistral.calls.size(), size_t(1));
        QVERIFY(mistral.content.empty());
        for (const std::string& r : mistral.released)
            QVERIFY(r.empty());
    }

    // A call goes out as soon as it is closed, while the reply goes on; finish() still has them all.
    void closed_calls_are_taken_while_the_reply_streams_data() {
        QTest::addColumn<int>("family");
        QTest::addColumn<QString>("first");
        QTest::addColumn<QString>("second");
        QTest::newRow("hermes")
            << int(ToolFamily::Hermes)
            << "Sure.\n<tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": 1}}\n</tool_call>"
            << "\n<tool_call>\n{\"name\": \"b\", \"arguments\": {}}\n</tool_call>";
        QTest::newRow("fenced") << int(ToolFamily::FencedJson)
                                << "Sure.\n```json\n{\"name\": \"a\", \"arguments\": {\"x\": 1}}\n```"
                                << "\n```json\n{\"name\": \"b\", \"arguments\": {}}\n```";
        QTest::newRow("mistral") << int(ToolFamily::Mistral)
                                 << "[TOOL_CALLS][{\"name\": \"a\", \"arguments\": {\"x\": 1}}]"
                                 << "[TOOL_CALLS][{\"name\": \"b\", \"arguments\": {}}]";
    }
    void closed_calls_are_taken_while_the_reply_streams() {
        QFETCH(int, family);
        QFETCH(QString, first);
        QFETCH(QString, second);
        ToolCallStream s{ToolFamily(family)};
        const std::string one = first.toStdString();
        const std::string two = second.toStdString();
        std::vector<ToolCall> taken;
        for (size_t i = 0; i < one.size(); ++i) {
            s.push(one.substr(i, 1));
            const std::vector<ToolCall> now = s.take_finished_calls();
            QVERIFY2(now.empty() || i + 1 == one.size(), "a call was taken before it was closed");
            taken.insert(taken.end(), now.begin(), now.end());
        }
        QCOMPARE(taken.size(), size_t(1)); // before any of the second call came
        QCOMPARE(taken[0].name, std::string("a"));
        for (size_t i = 0; i < two.size(); ++i) {
            s.push(two.substr(i, 1));
            const std::vector<ToolCall> now = s.take_finished_calls();
            taken.insert(taken.end(), now.begin(), now.end());
        }
        QCOMPARE(taken.size(), size_t(2));
        const ToolCallReply all = s.finish();
        QCOMPARE(all.calls, taken);
        // Llama 3's bare JSON may go on: its calls come with finish() only.
        ToolCallStream llama(ToolFamily::Llama3);
        llama.push(R"({"name": "a", "parameters": {}})");
        QVERIFY(llama.take_finished_calls().empty());
        QCOMPARE(llama.finish().calls.size(), size_t(1));
    }

    // parallel_tool_calls false: the first call only.
    void at_most_max_calls_are_kept() {
        const std::string two = "<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n"
                                "<tool_call>\n{\"name\": \"b\", \"arguments\": {}}\n</tool_call>";
        ToolCallStream all(ToolFamily::Hermes);
        all.push(two);
        QCOMPARE(all.finish().calls.size(), size_t(2));
        ToolCallStream one(ToolFamily::Hermes, 1);
        one.push(two);
        const ToolCallReply first = one.finish();
        QCOMPARE(first.calls.size(), size_t(1));
        QCOMPARE(first.calls[0].name, std::string("a"));
    }

    void forced_grammar_takes_the_familys_own_call_text_data() {
        QTest::addColumn<int>("family");
        for (ToolFamily f :
             {ToolFamily::Hermes, ToolFamily::Llama3, ToolFamily::Mistral, ToolFamily::FencedJson})
            QTest::newRow(std::string(tool_family_name(f)).c_str()) << int(f);
    }
    void forced_grammar_takes_the_familys_own_call_text() {
        QFETCH(int, family);
        const ToolFamily f = ToolFamily(family);
        const std::string gbnf = forced_tool_call_gbnf(f, tools());
        const auto text = [&](const ToolCall& call) { return tool_calls_as_text(f, std::span(&call, 1)); };
        QVERIFY2(grammar_accepts(gbnf, text({"get_weather", R"({"city":"Oslo","days":2})", {}})),
                 gbnf.c_str());
        QVERIFY(grammar_accepts(gbnf, text({"ping", R"({})", {}})));
        QVERIFY(!grammar_accepts(gbnf, text({"get_wether", R"({"city":"Oslo","days":2})", {}})));
        QVERIFY(!grammar_accepts(gbnf, text({"get_weather", R"({"city":"Oslo","days":"two"})", {}})));
        QVERIFY(!grammar_accepts(gbnf, text({"get_weather", R"({"city":"Oslo"})", {}})));
        // One tool alone: the other's name is refused.
        const std::string only_ping = forced_tool_call_gbnf(f, json::array({tools()[1]}));
        QVERIFY(grammar_accepts(only_ping, text({"ping", R"({})", {}})));
        QVERIFY(!grammar_accepts(only_ping, text({"get_weather", R"({"city":"Oslo","days":2})", {}})));
    }

    void a_schema_the_grammar_cannot_take_is_named() {
        json bad = tools();
        bad[1]["function"]["parameters"] =
            json::parse(R"({"type": "object", "properties": {"n": {"type": "integer", "minimum": 3}}})");
        try {
            forced_tool_call_gbnf(ToolFamily::Hermes, bad);
            QFAIL("a schema with 'minimum' was taken");
        } catch (const GrammarError& e) {
            const std::string message = e.what();
            QVERIFY2(message.find("tools[1].function.parameters") != std::string::npos, message.c_str());
            QVERIFY2(message.find("minimum") != std::string::npos, message.c_str());
        }
    }

    void call_ids_fit_the_template() {
        const std::string mistral = make_tool_call_id(ToolFamily::Mistral, 42);
        QCOMPARE(mistral.size(), size_t(9));
        for (const char c : mistral)
            QVERIFY(std::isalnum(static_cast<unsigned char>(c)));
        const std::string openai = make_tool_call_id(ToolFamily::Hermes, 42);
        QVERIFY(openai.rfind("call_", 0) == 0);
        QCOMPARE(openai.size(), size_t(29));
        QVERIFY(make_tool_call_id(ToolFamily::Hermes, 43) != openai);
    }
};

QTEST_GUILESS_MAIN(TestToolCallStreaming)
#include "test_tool_call_streaming.moc"
