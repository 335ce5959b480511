// Function calls parsed back from what each family's REAL chat template writes: an assistant
// message with tool_calls is rendered by the template (Gemma's and Phi's, which have no tool
// syntax, get the calls as text in their wire format), the reply the model would have written is
// cut out of the rendering, and the family's parser must give the same calls back. Also the
// parsers on their own: text around calls, text that only looks like a call, several calls.
#include "engine/chat/chat_template.h"
#include "engine/tools/tool_call_json.h"
#include "engine/tools/tool_call_parser.h"
#include "engine/tools/tool_prompt.h"
#include "tests/support/test_support.h"
// QCOMPARE of two json values looks through qCompare's overloads, qfloat16's among them, which
// must then be a complete type: <QTest> alone only declares it.
#include <QTest>
#include <QtCore/qfloat16.h>

using hearth::chat::ChatMessage;
using hearth::chat::ChatTemplate;
using hearth::chat::RenderOptions;
using hearth::chat::Role;
using namespace hearth::engine;
using json = nlohmann::ordered_json;

namespace {

ChatTemplate golden_template(const std::string& stem) {
    const std::string path = hearth::test::testdata("templates/" + stem + ".jinja");
    return ChatTemplate(hearth::test::read_file(path), path);
}

std::string template_source(const std::string& stem) {
    return hearth::test::read_file(hearth::test::testdata("templates/" + stem + ".jinja"));
}

json weather_tools() {
    return json::parse(R"([
        {"type": "function", "function": {"name": "get_weather", "description": "The weather in a city",
         "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                        "required": ["city"]}}},
        {"type": "function", "function": {"name": "get_time", "description": "The local time",
         "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}}}}])");
}

std::vector<ToolCall> sample_calls(size_t n, ToolFamily family) {
    std::vector<ToolCall> calls = {{"get_weather", R"({"city":"Paris","days":3})", "call_w"},
                                   {"get_time", R"({"zone":"Europe/Paris"})", "call_t"}};
    if (family == ToolFamily::Mistral) { // its template takes nine letters and digits only
        calls[0].id = "abcDEF123";
        calls[1].id = "xyz789QRS";
    }
    calls.resize(n);
    return calls;
}

json openai_tool_calls(const std::vector<ToolCall>& calls) {
    json list = json::array();
    for (const ToolCall& call : calls)
        list.push_back(
            json{{"id", call.id},
                 {"type", "function"},
                 {"function", json{{"name", call.name}, {"arguments", json::parse(call.arguments)}}}});
    return list;
}

// What follows the generation prompt in `with`, up to the first end-of-turn text.
std::string reply_in(const std::string& with, const std::string& prompt) {
    size_t common = 0;
    while (common < with.size() && common < prompt.size() && with[common] == prompt[common])
        ++common;
    std::string reply = with.substr(common);
    for (const char* end : {"<|im_end|>", "<|eot_id|>", "</s>", "<end_of_turn>", "<|end|>"})
        if (const size_t at = reply.find(end); at != std::string::npos) reply.resize(at);
    return reply;
}

void compare_calls(const std::vector<ToolCall>& got, const std::vector<ToolCall>& wanted, bool ids_kept) {
    QCOMPARE(got.size(), wanted.size());
    for (size_t i = 0; i < got.size(); ++i) {
        QCOMPARE(got[i].name, wanted[i].name);
        QCOMPARE(json::parse(got[i].arguments), json::parse(wanted[i].arguments));
        if (ids_kept) QCOMPARE(got[i].id, wanted[i].id);
    }
}

} // namespace

class TestToolCallParsers : public QObject {
    Q_OBJECT

private slots:
    void family_is_told_by_the_template_data() {
        QTest::addColumn<QString>("stem");
        QTest::addColumn<int>("family");
        QTest::newRow("qwen 2.5") << "Qwen-Qwen2.5-7B-Instruct" << int(ToolFamily::Hermes);
        QTest::newRow("qwen 3") << "Qwen-Qwen3-0.6B" << int(ToolFamily::Hermes);
        QTest::newRow("llama 3.2") << "meta-llama-Llama-3.2-3B-Instruct" << int(ToolFamily::Llama3);
        QTest::newRow("mistral nemo") << "mistralai-Mistral-Nemo-Instruct-2407" << int(ToolFamily::Mistral);
        QTest::newRow("gemma 2") << "google-gemma-2-2b-it" << int(ToolFamily::FencedJson);
        QTest::newRow("phi 3.5") << "microsoft-Phi-3.5-mini-instruct" << int(ToolFamily::FencedJson);
    }
    void family_is_told_by_the_template() {
        QFETCH(QString, stem);
        QFETCH(int, family);
        QCOMPARE(int(tool_family_for_template(template_source(stem.toStdString()))), family);
        QCOMPARE(int(tool_family_for_template(hearth::chat::default_chatml_template())),
                 int(ToolFamily::Hermes));
    }

    void templates_with_tool_syntax_are_found_by_rendering_data() {
        QTest::addColumn<QString>("stem");
        QTest::addColumn<bool>("renders");
        QTest::newRow("qwen 2.5") << "Qwen-Qwen2.5-7B-Instruct" << true;
        QTest::newRow("llama 3.2") << "meta-llama-Llama-3.2-3B-Instruct" << true;
        QTest::newRow("mistral nemo") << "mistralai-Mistral-Nemo-Instruct-2407" << true;
        QTest::newRow("gemma 2") << "google-gemma-2-2b-it" << false;
        QTest::newRow("phi 3.5") << "microsoft-Phi-3.5-mini-instruct" << false;
    }
    void templates_with_tool_syntax_are_found_by_rendering() {
        QFETCH(QString, stem);
        QFETCH(bool, renders);
        QCOMPARE(template_renders_tools(golden_template(stem.toStdString())), renders);
    }

    // The template writes the calls; the parser reads them back.
    void calls_rendered_by_the_real_template_parse_back_data() {
        QTest::addColumn<QString>("stem");
        QTest::addColumn<int>("calls");
        QTest::newRow("qwen 2.5, two calls") << "Qwen-Qwen2.5-7B-Instruct" << 2;
        QTest::newRow("qwen 3, two calls") << "Qwen-Qwen3-0.6B" << 2;
        QTest::newRow("llama 3.2, one call") << "meta-llama-Llama-3.2-3B-Instruct" << 1;
        QTest::newRow("mistral nemo, two calls") << "mistralai-Mistral-Nemo-Instruct-2407" << 2;
        QTest::newRow("gemma 2, two calls as text") << "google-gemma-2-2b-it" << 2;
        QTest::newRow("phi 3.5, one call as text") << "microsoft-Phi-3.5-mini-instruct" << 1;
    }
    void calls_rendered_by_the_real_template_parse_back() {
        QFETCH(QString, stem);
        QFETCH(int, calls);
        const ChatTemplate chat_template = golden_template(stem.toStdString());
        const ToolFamily family = tool_family_for_template(template_source(stem.toStdString()));
        const std::vector<ToolCall> wanted = sample_calls(static_cast<size_t>(calls), family);

        std::vector<ChatMessage> conversation = {
            ChatMessage{Role::User, "What is the weather in Paris?", json::object()},
            ChatMessage{Role::Assistant, "", json{{"tool_calls", openai_tool_calls(wanted)}}}};
        RenderOptions options;
        options.bos_token = "<s>";
        options.eos_token = "</s>";
        const bool native = template_renders_tools(chat_template);
        if (native)
            options.extra_context["tools"] = weather_tools();
        else
            conversation = conversation_with_tools_as_text(conversation, family, weather_tools());

        const std::string with = chat_template.render_conversation(conversation, options);
        RenderOptions prompt_options = options;
        prompt_options.add_generation_prompt = true;
        const std::string prompt = chat_template.render_conversation(
            std::span(conversation).first(conversation.size() - 1), prompt_options);
        const std::string reply = reply_in(with, prompt);
        QVERIFY2(!reply.empty(), with.c_str());

        const ToolCallReply parsed = parse_tool_calls(family, reply);
        // Nothing of the calls is left in the text (Qwen 3 writes an empty <think> block before them).
        std::string rest = parsed.content;
        if (const size_t think = rest.find("<think>\n\n</think>"); think != std::string::npos)
            rest.erase(think, 17);
        QVERIFY2(trim_whitespace(rest).empty(), (reply + " -> content: " + parsed.content).c_str());
        compare_calls(parsed.calls, wanted, family == ToolFamily::Mistral);
        if (!native) // the tools were listed for the model in the prompt
            QVERIFY(with.find("get_weather") != std::string::npos &&
                    with.find("get_time") != std::string::npos);
    }

    void tool_results_render_in_every_template_data() {
        QTest::addColumn<QString>("stem");
        for (const char* stem : {"Qwen-Qwen2.5-7B-Instruct", "meta-llama-Llama-3.2-3B-Instruct",
                                 "mistralai-Mistral-Nemo-Instruct-2407", "google-gemma-2-2b-it",
                                 "microsoft-Phi-3.5-mini-instruct"})
            QTest::newRow(stem) << stem;
    }
    // user → assistant call → tool result → (generation prompt): the result's text is in the prompt.
    void tool_results_render_in_every_template() {
        QFETCH(QString, stem);
        const ChatTemplate chat_template = golden_template(stem.toStdString());
        const ToolFamily family = tool_family_for_template(template_source(stem.toStdString()));
        const std::vector<ToolCall> call = sample_calls(1, family);
        std::vector<ChatMessage> conversation = {
            ChatMessage{Role::User, "What is the weather in Paris?", json::object()},
            ChatMessage{Role::Assistant, "", json{{"tool_calls", openai_tool_calls(call)}}},
            ChatMessage{Role::Tool, "sunny, 24 degrees", json{{"tool_call_id", call[0].id}}}};
        RenderOptions options;
        options.add_generation_prompt = true;
        if (template_renders_tools(chat_template))
            options.extra_context["tools"] = weather_tools();
        else
            conversation = conversation_with_tools_as_text(conversation, family, weather_tools());
        const std::string prompt = chat_template.render_conversation(conversation, options);
        QVERIFY2(prompt.find("sunny, 24 degrees") != std::string::npos, prompt.c_str());
    }

    void hermes_keeps_text_around_calls_and_broken_calls() {
        const ToolCallReply reply = parse_hermes_tool_calls(
            "Let me look.\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>\n"
            "<tool_call>{not json}</tool_call>");
        QCOMPARE(reply.calls.size(), size_t(1));
        QCOMPARE(reply.calls[0].name, std::string("get_time"));
        QCOMPARE(reply.calls[0].arguments, std::string("{}"));
        QVERIFY(reply.content.find("Let me look.") == 0);
        QVERIFY(reply.content.find("<tool_call>{not json}</tool_call>") != std::string::npos);
        // A reply cut off before its closing tag still names a whole call.
        QCOMPARE(
            parse_hermes_tool_calls("<tool_call>{\"name\": \"a\", \"arguments\": {\"x\": 1}}").calls.size(),
            size_t(1));
        QCOMPARE(parse_hermes_tool_calls("no calls here").content, std::string("no calls here"));
    }

    void llama3_reads_bare_json_and_the_python_tag() {
        const ToolCallReply two = parse_llama3_tool_calls(
            R"({"name": "a", "parameters": {"x": 1}}; {"name": "b", "parameters": {}})");
        QCOMPARE(two.calls.size(), size_t(2));
        QCOMPARE(json::parse(two.calls[0].arguments), json::parse(R"({"x": 1})"));
        const ToolCallReply tagged =
            parse_llama3_tool_calls(R"(<|python_tag|>{"name": "get_time", "parameters": {"zone": "UTC"}})");
        QCOMPARE(tagged.calls.size(), size_t(1));
        QCOMPARE(tagged.calls[0].name, std::string("get_time"));
        const ToolCallReply code = parse_llama3_tool_calls("<|python_tag|>print(1 + 1)");
        QCOMPARE(code.calls.size(), size_t(1));
        QCOMPARE(code.calls[0].name, std::string("python"));
        QCOMPARE(json::parse(code.calls[0].arguments).at("code"), json("print(1 + 1)"));
        // JSON that is not a call is content.
        QCOMPARE(parse_llama3_tool_calls(R"({"answer": 42})").calls.size(), size_t(0));
        QCOMPARE(parse_llama3_tool_calls(R"({"answer": 42})").content, std::string(R"({"answer": 42})"));
    }

    void mistral_keeps_the_models_ids() {
        const ToolCallReply reply = parse_mistral_tool_calls(
            R"(Sure.[TOOL_CALLS][{"name": "a", "arguments": {"x": "y"}, "id": "abcDEF123"}])");
        QCOMPARE(reply.content, std::string("Sure."));
        QCOMPARE(reply.calls.size(), size_t(1));
        QCOMPARE(reply.calls[0].id, std::string("abcDEF123"));
        QCOMPARE(parse_mistral_tool_calls("[TOOL_CALLS] oops").content, std::string("[TOOL_CALLS] oops"));
        // The marker is a control token that decodes to no text: the array alone is the calls.
        const ToolCallReply bare =
            parse_mistral_tool_calls(R"( [{"name": "a", "arguments": {}, "id": "abcDEF123"}])");
        QCOMPARE(bare.calls.size(), size_t(1));
        QVERIFY(bare.content.empty());
        QCOMPARE(parse_mistral_tool_calls("[1, 2] is a list").content, std::string("[1, 2] is a list"));
    }

    void fenced_blocks_hold_json_or_a_python_call() {
        const ToolCallReply json_block = parse_fenced_json_tool_calls(
            "I'll check.\n```json\n{\"name\": \"get_time\", \"arguments\": {}}\n```");
        QCOMPARE(json_block.calls.size(), size_t(1));
        QCOMPARE(json_block.content, std::string("I'll check.\n"));
        const ToolCallReply code = parse_fenced_json_tool_calls(
            "```tool_code\nprint(get_weather(city=\"Paris\", days=3, metric=True))\n```");
        QCOMPARE(code.calls.size(), size_t(1));
        QCOMPARE(code.calls[0].name, std::string("get_weather"));
        QCOMPARE(json::parse(code.calls[0].arguments),
                 json::parse(R"({"city": "Paris", "days": 3, "metric": true})"));
        // Other code blocks are the reply's text.
        const std::string python = "Here:\n```python\nprint('hi')\n```";
        QCOMPARE(parse_fenced_json_tool_calls(python).content, python);
        QCOMPARE(parse_fenced_json_tool_calls(python).calls.size(), size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestToolCallParsers)
#include "test_tool_call_parsers.moc"
