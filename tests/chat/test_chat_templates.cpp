// Real chat templates rendered byte for byte as the reference Jinja2 renders them
// (../shared/testdata/templates/*.expected.json), whitespace control as templates use it, plus
// the ChatML default.
#include "engine/chat/chat_template.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <filesystem>
#include <nlohmann/json.hpp>

using hearth::chat::ChatMessage;
using hearth::chat::ChatTemplate;
using hearth::chat::RenderOptions;
using hearth::chat::Role;
using hearth::chat::TemplateError;
using nlohmann::ordered_json;

namespace {

// The date the golden files were rendered with: 2024-07-26.
std::tm fixed_date() {
    std::tm date{};
    date.tm_year = 2024 - 1900;
    date.tm_mon = 6;
    date.tm_mday = 26;
    date.tm_hour = 12;
    date.tm_isdst = -1;
    std::mktime(&date); // fills in the weekday and the day of the year
    return date;
}

RenderOptions golden_options(const ordered_json& golden, const ordered_json& test_case) {
    RenderOptions options;
    options.bos_token = golden.value("bos_token", "<s>");
    options.eos_token = golden.value("eos_token", "</s>");
    options.add_generation_prompt = test_case.value("add_generation_prompt", false);
    options.clock = fixed_date;
    return options;
}

} // namespace

class TestChatTemplates : public QObject {
    Q_OBJECT

private slots:
    void golden_data() {
        QTest::addColumn<QString>("template_path");
        QTest::addColumn<QString>("golden_path");
        QTest::addColumn<int>("case_index");
        namespace fs = std::filesystem;
        std::vector<fs::path> goldens;
        for (const auto& entry : fs::directory_iterator(hearth::test::testdata("templates")))
            if (entry.path().string().ends_with(".expected.json")) goldens.push_back(entry.path());
        std::sort(goldens.begin(), goldens.end());
        QVERIFY2(goldens.size() >= 9, "the shared template goldens are missing");
        for (const fs::path& golden_path : goldens) {
            std::string stem = golden_path.filename().string();
            stem.resize(stem.size() - std::string(".expected.json").size());
            fs::path template_path = golden_path.parent_path() / (stem + ".jinja");
            auto golden = ordered_json::parse(hearth::test::read_file(golden_path.string()));
            for (size_t i = 0; i < golden["cases"].size(); ++i) {
                std::string row = stem + "/" + golden["cases"][i]["name"].get<std::string>();
                QTest::newRow(row.c_str())
                    << QString::fromStdString(template_path.string())
                    << QString::fromStdString(golden_path.string()) << static_cast<int>(i);
            }
        }
    }

    void golden() {
        QFETCH(QString, template_path);
        QFETCH(QString, golden_path);
        QFETCH(int, case_index);
        auto golden = ordered_json::parse(hearth::test::read_file(golden_path.toStdString()));
        const ordered_json& test_case = golden["cases"][static_cast<size_t>(case_index)];
        ChatTemplate chat_template(hearth::test::read_file(template_path.toStdString()),
                                   template_path.toStdString());
        RenderOptions options = golden_options(golden, test_case);
        if (test_case.contains("error")) {
            std::string expected_error = test_case["error"].get<std::string>();
            try {
                std::string text = chat_template.render(test_case["messages"], options);
                QFAIL(("expected the error '" + expected_error + "' but rendered: " + text).c_str());
            } catch (const TemplateError& e) {
                QVERIFY2(std::string(e.what()).find(expected_error) != std::string::npos, e.what());
                QVERIFY(e.raised_by_template());
                QCOMPARE(e.problem(), expected_error);
            }
            return;
        }
        std::string rendered;
        try {
            rendered = chat_template.render(test_case["messages"], options);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        QCOMPARE(QString::fromStdString(rendered),
                 QString::fromStdString(test_case["expected"].get<std::string>()));
    }

    // Whitespace control as chat templates write it, on a conversation: "-" on block and output
    // tags (stripping across newlines, both ways), Hugging Face's trim_blocks (the newline after
    // a block tag goes) and lstrip_blocks (the indentation before a block or comment tag that
    // starts its line goes, not before an output tag or mid-line), "+" switching either off,
    // comments and {% set %} lines that leave nothing, and the one trailing newline dropped. The
    // expected text is what Jinja2 3.1 renders with trim_blocks and lstrip_blocks, as
    // apply_chat_template does. (Every construct alone: test_jinja_language.)
    void whitespace_control_data() {
        QTest::addColumn<QString>("source");
        QTest::addColumn<bool>("add_generation_prompt");
        QTest::addColumn<QString>("expected");
        const auto row = [](const char* name, const char* source, bool add_generation_prompt,
                            const char* expected) {
            QTest::newRow(name) << QString::fromUtf8(source) << add_generation_prompt
                                << QString::fromUtf8(expected);
        };
        row("minus on a for loop and its body",
            "{%- for message in messages %}\n    {{- '<|' + message.role + '|>\\n' + message.content + "
            "'<|end|>\\n' }}\n{%- endfor %}\n{%- if add_generation_prompt %}\n    {{- '<|assistant|>\\n' "
            "}}\n{%- endif %}\n",
            false, "<|system|>\nBe brief.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\nHello.<|end|>\n");
        row("minus on a for loop and its body (generation prompt)",
            "{%- for message in messages %}\n    {{- '<|' + message.role + '|>\\n' + message.content + "
            "'<|end|>\\n' }}\n{%- endfor %}\n{%- if add_generation_prompt %}\n    {{- '<|assistant|>\\n' "
            "}}\n{%- endif %}\n",
            true,
            "<|system|>\nBe "
            "brief.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\nHello.<|end|>\n<|assistant|>\n");
        row("trim_blocks drops the newline after a block tag",
            "{% for message in messages %}\n[{{ message.role }}]\n{% endfor %}\nend", false,
            "[system]\n[user]\n[assistant]\nend");
        row("lstrip_blocks drops the indentation of a block tag",
            "{% for message in messages %}\n    {% if message.role == 'user' %}\n    U: {{ message.content "
            "}}\n    {% endif %}\n{% endfor %}",
            false, "    U: Hi\n");
        row("output tags keep their indentation and newline",
            "{% for message in messages %}\n  {{ message.content }}\n{% endfor %}", false,
            "  Be brief.\n  Hi\n  Hello.\n");
        row("minus after a tag strips newlines and indentation",
            "{% for message in messages -%}\n\n    {{ message.role }}\n{% endfor %}", false,
            "system\nuser\nassistant\n");
        row("minus before a tag strips back over lines",
            "{% for message in messages %}{{ message.content }}   \n\n  {%- if not loop.last %}|{% endif "
            "%}\n{% endfor %}",
            false, "Be brief.|Hi|Hello.");
        row("set on its own line leaves nothing",
            "{% set sep = ' / ' %}\n{% for message in messages %}\n    {% set text = message.content | trim "
            "%}\n{{ text }}{{ sep if not loop.last }}\n{% endfor %}",
            false, "Be brief. / \nHi / \nHello.\n");
        row("comments on their own lines leave nothing",
            "{# a comment #}\n{% for message in messages %}\n    {#- inside -#}\n    {{ message.role }}\n{% "
            "endfor %}",
            false, "system\nuser\nassistant\n");
        row("plus keeps a block tag's indentation",
            "{% for message in messages %}\n    {%+ if true %}{{ message.role }}{% endif %}\n{% endfor %}",
            false, "    system    user    assistant");
        row("lstrip only where the tag starts the line",
            "{% for message in messages %}x {% if true %}{{ message.role }}{% endif %}\n{% endfor %}", false,
            "x systemx userx assistant");
        row("lstrip not after an output tag on its line",
            "{% for message in messages %}{{ message.role }}  {% if not loop.last %}|{% endif %}\n{% endfor "
            "%}",
            false, "system  |user  |assistant  ");
        row("bos and an indented generation prompt",
            "{{- bos_token }}\n{%- for message in messages %}\n    {%- if message.role == 'system' %}\n      "
            "  {{- '<<SYS>>\\n' + message.content + '\\n<</SYS>>\\n\\n' }}\n    {%- else %}\n        {{- '[' "
            "+ message.role + '] ' + message.content + eos_token }}\n    {%- endif %}\n{%- endfor %}\n{%- if "
            "add_generation_prompt %}\n    {{- '[assistant] ' }}\n{%- endif %}",
            false, "<s><<SYS>>\nBe brief.\n<</SYS>>\n\n[user] Hi</s>[assistant] Hello.</s>");
        row("bos and an indented generation prompt (generation prompt)",
            "{{- bos_token }}\n{%- for message in messages %}\n    {%- if message.role == 'system' %}\n      "
            "  {{- '<<SYS>>\\n' + message.content + '\\n<</SYS>>\\n\\n' }}\n    {%- else %}\n        {{- '[' "
            "+ message.role + '] ' + message.content + eos_token }}\n    {%- endif %}\n{%- endfor %}\n{%- if "
            "add_generation_prompt %}\n    {{- '[assistant] ' }}\n{%- endif %}",
            true, "<s><<SYS>>\nBe brief.\n<</SYS>>\n\n[user] Hi</s>[assistant] Hello.</s>[assistant] ");
        row("a trailing newline is dropped",
            "{% for message in messages %}{{ message.role }}\n{% endfor %}\n", false,
            "system\nuser\nassistant\n");
        row("plus after a tag keeps its newline",
            "{% for message in messages +%}\n{{ message.role }}\n{% endfor %}", false,
            "\nsystem\n\nuser\n\nassistant\n");
    }
    void whitespace_control() {
        QFETCH(QString, source);
        QFETCH(bool, add_generation_prompt);
        QFETCH(QString, expected);
        const ChatTemplate chat_template(source.toStdString(), "whitespace.jinja");
        const std::vector<ChatMessage> messages = {
            {Role::System, "Be brief.", {}}, {Role::User, "Hi", {}}, {Role::Assistant, "Hello.", {}}};
        RenderOptions options;
        options.bos_token = "<s>";
        options.eos_token = "</s>";
        options.add_generation_prompt = add_generation_prompt;
        try {
            QCOMPARE(QString::fromStdString(chat_template.render_messages(messages, options)), expected);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
    }

    // Parse once, render many times: a second rendering gives the same text.
    void renders_repeatably() {
        std::string path = hearth::test::testdata("templates/Qwen-Qwen3-0.6B.jinja");
        ChatTemplate chat_template(hearth::test::read_file(path), path);
        auto messages = ordered_json::parse(R"([{"role":"user","content":"Hi"}])");
        RenderOptions options;
        options.add_generation_prompt = true;
        std::string first = chat_template.render(messages, options);
        QCOMPARE(chat_template.render(messages, options), first);
        QVERIFY(first.ends_with("<|im_start|>assistant\n"));
    }

    void chatml_default() {
        ChatTemplate chatml(hearth::chat::default_chatml_template());
        std::vector<ChatMessage> messages = {{Role::System, "Be brief.", {}}, {Role::User, "Hi", {}}};
        RenderOptions options;
        options.add_generation_prompt = true;
        QCOMPARE(QString::fromStdString(chatml.render_messages(messages, options)),
                 QStringLiteral("<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
                                "<|im_start|>assistant\n"));
        options.add_generation_prompt = false;
        QCOMPARE(QString::fromStdString(chatml.render_messages({messages.data(), 1}, options)),
                 QStringLiteral("<|im_start|>system\nBe brief.<|im_end|>\n"));
    }

    // Extra message fields and extra context reach the template (tools with Qwen 2.5).
    void tools_and_extra_fields() {
        std::string path = hearth::test::testdata("templates/Qwen-Qwen2.5-7B-Instruct.jinja");
        ChatTemplate chat_template(hearth::test::read_file(path), path);
        RenderOptions options;
        options.extra_context["tools"] = ordered_json::parse(
            R"([{"type":"function","function":{"name":"get_time","description":"Tells the time — now","parameters":{}}}])");
        ChatMessage call{
            Role::Assistant, "",
            ordered_json::parse(
                R"({"tool_calls":[{"function":{"name":"get_time","arguments":{"zone":"UTC"}}}]})")};
        std::vector<ChatMessage> messages = {{Role::User, "Time?", {}}, call, {Role::Tool, "12:00", {}}};
        std::string text = chat_template.render_messages(messages, options);
        QVERIFY2(
            text.find(
                R"({"type": "function", "function": {"name": "get_time", "description": "Tells the time — now", "parameters": {}}})") !=
                std::string::npos,
            text.c_str());
        QVERIFY2(
            text.find(
                "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"UTC\"}}\n</tool_call>") !=
                std::string::npos,
            text.c_str());
        QVERIFY2(text.find("<|im_start|>user\n<tool_response>\n12:00\n</tool_response><|im_end|>\n") !=
                     std::string::npos,
                 text.c_str());
    }

    // A plain chat leaves `tools` and `documents` undefined, as llama.cpp does and as Jinja2 sees
    // an unset variable: a loop over them runs zero times, and `is defined` is false. (Set to
    // None, the first template failed with "'NoneType' object is not iterable".)
    void tools_and_documents_are_undefined_in_a_plain_chat() {
        ChatTemplate chat_template(
            "{% if tools is not none %}{% for tool in tools %}[{{ tool }}]{% endfor %}{% endif %}"
            "{% for document in documents %}({{ document }}){% endfor %}"
            "{{ tools is defined }} {{ documents is defined }}"
            "{% for m in messages %} <{{ m.role }}>{{ m.content }}{% endfor %}",
            "tools-loop");
        const std::vector<ChatMessage> messages = {{Role::User, "Hi", {}}};
        QCOMPARE(QString::fromStdString(chat_template.render_messages(messages, RenderOptions{})),
                 QStringLiteral("False False <user>Hi"));
        RenderOptions with_tools;
        with_tools.extra_context["tools"] = ordered_json::parse(R"(["clock"])");
        QCOMPARE(QString::fromStdString(chat_template.render_messages(messages, with_tools)),
                 QStringLiteral("[clock]True False <user>Hi"));
    }
};

QTEST_MAIN(TestChatTemplates)
#include "test_chat_templates.moc"
