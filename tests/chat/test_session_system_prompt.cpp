// A chat session over a template without a system role (Gemma 2's, given as the
// template override on stories260K): the app's system prompt does not make the
// reply fail; it is in the first user turn, and a context shift keeps that turn.
#include "engine/session/chat_session.h"
#include "tests/model/model_fixture.h"
#include <QTest>

using namespace hearth;

namespace {

engine::GenerationOptions gemma_options() {
    engine::GenerationOptions options;
    options.template_override = test::read_file(test::testdata("templates/google-gemma-2-2b-it.jinja"));
    options.max_tokens = 4;
    options.sampling.temperature = 0; // greedy
    return options;
}

engine::ChatTurn turn(chat::Role role, const std::string& content) {
    return {role, content, nlohmann::ordered_json::object()};
}

} // namespace

class TestSessionSystemPrompt : public QObject {
    Q_OBJECT

    test::LoadedModel stories_;

private slots:
    void initTestCase() { stories_ = test::load_model("stories260K", 16); }

    void the_system_prompt_goes_into_the_first_user_turn() {
        engine::ChatSession session(*stories_.inference, 128);
        const std::vector<engine::ChatTurn> chat = {turn(chat::Role::System, "Tell short stories."),
                                                    turn(chat::Role::User, "A cat?")};
        const std::string text = session.render(chat, gemma_options());
        QVERIFY2(text.find("<start_of_turn>user\nTell short stories.\n\nA cat?<end_of_turn>\n") !=
                     std::string::npos,
                 text.c_str());
        QCOMPARE(text.find("system"), std::string::npos);

        std::string reply;
        const engine::TurnStats stats =
            session.reply(chat, gemma_options(), [&](std::string_view piece) { reply += piece; });
        QVERIFY(stats.generated_tokens > 0);
        QCOMPARE(stats.prompt_tokens,
                 static_cast<int32_t>(session.prompt_tokens(chat, gemma_options()).size()));
    }

    void a_context_shift_keeps_the_folded_system_prompt() {
        engine::ChatSession session(*stories_.inference, 128);
        const engine::GenerationOptions options = gemma_options();
        const std::vector<engine::ChatTurn> first = {
            turn(chat::Role::System, "Tell short stories about a cat."), turn(chat::Role::User, "Once?")};
        std::vector<engine::ChatTurn> chat = first;
        bool shifted = false;
        for (int i = 0; i < 12 && !shifted; ++i) {
            std::string reply;
            const engine::TurnStats stats =
                session.reply(chat, options, [&](std::string_view piece) { reply += piece; });
            if (stats.context_shifted()) {
                shifted = true;
                // The tokens kept at the start spell the whole first user turn, system prompt included.
                const std::vector<int32_t> tokens = session.prompt_tokens(chat, options);
                QVERIFY(stats.n_keep > 0 && stats.n_keep <= static_cast<int32_t>(tokens.size()));
                const std::string kept = stories_.model->tokenizer().decode(
                    std::span<const int32_t>(tokens.data(), static_cast<size_t>(stats.n_keep)), true);
                QVERIFY2(kept.find("<start_of_turn>user\nTell short stories about a cat.\n\nOnce?") !=
                             std::string::npos,
                         kept.c_str());
            }
            chat.push_back(turn(chat::Role::Assistant, reply.empty() ? std::string("Yes.") : reply));
            chat.push_back(turn(chat::Role::User, "And then what happened to the cat?"));
        }
        QVERIFY2(shifted, "the conversation never filled the context");
    }
};

QTEST_MAIN(TestSessionSystemPrompt)
#include "test_session_system_prompt.moc"
