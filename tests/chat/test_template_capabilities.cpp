// Which chat templates take a system role, found by rendering them, and the
// conversation a chat app gives a template that does not: Gemma 2's raises
// "System role not supported", so the system prompt goes into the first user
// turn. render_messages stays exactly Jinja2's, error included.
#include "engine/chat/chat_template.h"
#include "engine/chat/template_capabilities.h"
#include "tests/support/test_support.h"
#include <QTest>

using hearth::chat::ChatMessage;
using hearth::chat::ChatTemplate;
using hearth::chat::RenderOptions;
using hearth::chat::Role;
using hearth::chat::TemplateError;

namespace {

ChatTemplate golden_template(const std::string& stem) {
    const std::string path = hearth::test::testdata("templates/" + stem + ".jinja");
    return ChatTemplate(hearth::test::read_file(path), path);
}

ChatMessage message(Role role, const char* content) {
    return {role, content, nlohmann::ordered_json::object()};
}

RenderOptions gemma_options() {
    RenderOptions options;
    options.bos_token = "<bos>";
    options.add_generation_prompt = true;
    return options;
}

const std::vector<ChatMessage> kWithSystem = {
    message(Role::System, "You are terse."), message(Role::User, "Name a colour."),
    message(Role::Assistant, "Blue."), message(Role::User, "Another?")};

} // namespace

class TestTemplateCapabilities : public QObject {
    Q_OBJECT

private slots:
    void system_role_is_found_by_rendering_data() {
        QTest::addColumn<QString>("stem");
        QTest::addColumn<bool>("system_role");
        QTest::newRow("gemma 2") << "google-gemma-2-2b-it" << false;
        for (const char* stem :
             {"Qwen-Qwen2.5-7B-Instruct", "Qwen-Qwen3-0.6B", "meta-llama-Llama-3.2-3B-Instruct",
              "HuggingFaceTB-SmolLM3-3B", "ibm-granite-granite-3.3-2B-Instruct",
              "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", "mistralai-Mistral-Nemo-Instruct-2407",
              "microsoft-Phi-3.5-mini-instruct"})
            QTest::newRow(stem) << stem << true;
    }
    void system_role_is_found_by_rendering() {
        QFETCH(QString, stem);
        QFETCH(bool, system_role);
        QCOMPARE(golden_template(stem.toStdString()).takes_system_role(), system_role);
    }

    void a_template_that_drops_system_messages_takes_no_system_role() {
        const ChatTemplate silent(
            "{% for m in messages %}{% if m.role != 'system' %}{{ m.role }}: {{ m.content }}\n"
            "{% endif %}{% endfor %}");
        QVERIFY(!silent.takes_system_role());
        const std::vector<ChatMessage> chat = {message(Role::System, "Be brief."), message(Role::User, "Hi")};
        QCOMPARE(silent.render_messages(chat, {}), std::string("user: Hi\n"));
        QCOMPARE(silent.render_conversation(chat, {}), std::string("user: Be brief.\n\nHi\n"));
        // ChatML renders them.
        QVERIFY(ChatTemplate(hearth::chat::default_chatml_template()).takes_system_role());
        // One that refuses everything tells nothing: assumed to take them.
        QVERIFY(ChatTemplate("{{ raise_exception('never') }}").takes_system_role());
    }

    void gemma_raises_as_jinja2_does() {
        const ChatTemplate gemma = golden_template("google-gemma-2-2b-it");
        try {
            gemma.render_messages(kWithSystem, gemma_options());
            QFAIL("rendered a system message");
        } catch (const TemplateError& e) {
            QVERIFY2(std::string(e.what()).find("System role not supported") != std::string::npos, e.what());
        }
    }

    void gemma_gets_the_system_prompt_in_the_first_user_turn() {
        const ChatTemplate gemma = golden_template("google-gemma-2-2b-it");
        const std::string text = gemma.render_conversation(kWithSystem, gemma_options());
        QCOMPARE(text, std::string("<bos><start_of_turn>user\nYou are terse.\n\nName a colour.<end_of_turn>\n"
                                   "<start_of_turn>model\nBlue.<end_of_turn>\n"
                                   "<start_of_turn>user\nAnother?<end_of_turn>\n<start_of_turn>model\n"));
        // Without a system message nothing changes.
        const std::vector<ChatMessage> plain(kWithSystem.begin() + 1, kWithSystem.end());
        QCOMPARE(gemma.render_conversation(plain, gemma_options()),
                 gemma.render_messages(plain, gemma_options()));
    }

    void templates_with_a_system_role_render_it_unchanged() {
        const ChatTemplate qwen = golden_template("Qwen-Qwen2.5-7B-Instruct");
        QCOMPARE(qwen.render_conversation(kWithSystem, gemma_options()),
                 qwen.render_messages(kWithSystem, gemma_options()));
        QVERIFY(qwen.render_conversation(kWithSystem, gemma_options())
                    .find("<|im_start|>system\nYou are terse.") != std::string::npos);
    }

    void folding() {
        using hearth::chat::fold_system_message;
        // Alone, the system message has nowhere to go.
        QVERIFY(fold_system_message(std::vector<ChatMessage>{message(Role::System, "S")}).empty());
        const auto folded = fold_system_message(kWithSystem);
        QCOMPARE(folded.size(), kWithSystem.size() - 1);
        QCOMPARE(folded[0].role, Role::User);
        QCOMPARE(folded[0].content, std::string("You are terse.\n\nName a colour."));
        QCOMPARE(folded[1].content, std::string("Blue."));
        // An empty system prompt leaves the user's text as it is.
        const auto empty = fold_system_message(
            std::vector<ChatMessage>{message(Role::System, ""), message(Role::User, "Hi")});
        QCOMPARE(empty.size(), size_t{1});
        QCOMPARE(empty[0].content, std::string("Hi"));
        // Only a leading system message is folded.
        const std::vector<ChatMessage> later = {message(Role::User, "Hi"), message(Role::System, "S")};
        QCOMPARE(fold_system_message(later).size(), size_t{2});
    }
};

QTEST_MAIN(TestTemplateCapabilities)
#include "test_template_capabilities.moc"
