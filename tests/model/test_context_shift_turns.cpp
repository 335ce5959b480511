// Context shift by whole turns: when a conversation fills the context, the block of
// tokens shifted out after the system prompt ends where a turn starts, so the model
// never sees half a message. Only a turn too long for that is cut in the middle.
//
// Where a turn starts is checked on the text, independently of how the session finds
// it: the tokens left in view right after the cut spell the template's turn header
// ("<|im_start|>" in ChatML, "user: " / "assistant: " in a compact template), and the
// tokens shifted out end with the previous turn's closing text.
#include "engine/session/chat_session.h"
#include "engine/session/context_shift.h"
#include "engine/session/session_store.h"
#include "engine/session/turn_starts.h"
#include "tests/model/model_fixture.h"
#include <QTest>
#include <algorithm>
#include <cmath>
#include <set>

using namespace hearth;

Q_DECLARE_METATYPE(std::vector<int32_t>)

namespace {

// A template whose turns are a line each, so that many fit in stories260K's 128 tokens.
constexpr const char* kCompactTemplate =
    "{% for message in messages %}{{ message['role'] }}: {{ message['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant:{% endif %}";

const std::vector<std::string> kQuestions = {
    "Tell me about a cat.", "What did the cat eat?", "Where did it go?", "Who did it meet?",
    "Was it happy?",        "What happened next?",   "How did it end?",  "Was there a dog?",
    "Did they play?",       "What was the moral?"};
const std::vector<std::string> kAnswers = {
    "The cat was small.", "It ate fish.",    "It went to the park.", "It met a dog.",     "Yes, very happy.",
    "They played.",       "They went home.", "Yes, a big dog.",      "They ran and ran.", "Be kind."};

// The text the tokens stand for, piece by piece (no space dropped at the start).
std::string text_of(const tokenizer::Tokenizer& tok, std::span<const int32_t> tokens) {
    std::string text;
    for (int32_t id : tokens)
        text += tok.token_to_piece(id, true);
    return text;
}

struct TemplateCase {
    std::string source;            // empty: the model's own (ChatML for stories260K)
    std::set<std::string> headers; // what every turn after the first starts with
    std::string turn_end;          // what every turn ends with
};

TemplateCase template_case(const QString& name) {
    if (name == "compact") return {kCompactTemplate, {"user: ", "assistant: "}, "\n"};
    return {"", {"<|im_start|>"}, "<|im_end|>\n"};
}

// True when `text` starts with one of `headers`.
bool starts_a_turn(const std::string& text, const std::set<std::string>& headers) {
    for (const std::string& h : headers)
        if (text.starts_with(h)) return true;
    return false;
}

struct Agreement {
    int agreed = 0; // steps where the cache's next token is the fresh run's
    float max_logit_difference = 0;
};

// Feeds `first` and then a fresh run's greedy tokens to both `cache` and a fresh cache
// holding the same tokens, and compares their predictions step by step.
Agreement follow_a_fresh_run(engine::Inference& inference, engine::KvCache& cache, int32_t first, int steps) {
    auto fresh = inference.new_cache(cache.capacity());
    inference.eval(*fresh, cache.tokens());
    Agreement a;
    int32_t next = first;
    for (int i = 0; i < steps; ++i) {
        const int32_t token[] = {next};
        const std::span<const float> fresh_span = inference.eval(*fresh, token);
        const std::vector<float> expected(fresh_span.begin(), fresh_span.end());
        const std::span<const float> logits = inference.eval(cache, token);
        for (size_t v = 0; v < expected.size(); ++v)
            a.max_logit_difference = std::max(a.max_logit_difference, std::fabs(logits[v] - expected[v]));
        next = engine::argmax(expected);
        if (engine::argmax(logits) == next) ++a.agreed;
    }
    return a;
}

// `turns` rendered with `template_source` and tokenized as the session does a prompt;
// `generation_prompt`: followed by the assistant's header, as a prompt is.
std::vector<int32_t> rendered_tokens(const engine::Model& model, const std::string& template_source,
                                     std::span<const engine::ChatTurn> turns, bool generation_prompt) {
    const auto& tok = model.tokenizer();
    const std::string source = !template_source.empty() ? template_source
                               : !model.chat_template().empty()
                                   ? model.chat_template()
                                   : std::string(chat::default_chatml_template());
    chat::RenderOptions render;
    render.add_generation_prompt = generation_prompt;
    if (tok.bos_id() >= 0) render.bos_token = tok.token_text(tok.bos_id());
    if (tok.eos_id() >= 0) render.eos_token = tok.token_text(tok.eos_id());
    const std::string text = chat::ChatTemplate(source).render_conversation(turns, render);
    std::vector<int32_t> tokens = tok.encode(text, tok.add_bos_by_default(), true);
    if (tokens.size() >= 2 && tokens[0] == tok.bos_id() && tokens[1] == tok.bos_id())
        tokens.erase(tokens.begin());
    return tokens;
}

// The first turn in view as the app's worker found it before the engine did: the conversation
// rendered and tokenized through one more turn at a time, until a turn ends past the tokens
// out of view (system turns aside). A turn ends where the conversation rendered through it
// ends; the last one, where the reply begins. `worker_rendering`: as the worker rendered every
// prefix, with the generation prompt after it, which put each turn's end that many tokens
// into the next turn.
int prefix_rendering_first_visible_turn(const engine::Model& model, const std::string& template_source,
                                        std::span<const engine::ChatTurn> turns,
                                        const engine::TurnStats& stats, bool worker_rendering) {
    if (stats.shifted_out_tokens <= 0) return 0;
    const size_t out_of_view =
        static_cast<size_t>(stats.n_keep) + static_cast<size_t>(stats.shifted_out_tokens);
    int first = 0;
    for (size_t i = 0; i < turns.size(); ++i) {
        if (turns[i].role == chat::Role::System) { // kept by the shift
            if (static_cast<int>(i) == first) ++first;
            continue;
        }
        const bool last = i + 1 == turns.size();
        if (rendered_tokens(model, template_source, turns.first(i + 1), worker_rendering || last).size() >
            out_of_view)
            break;
        first = static_cast<int>(i) + 1;
    }
    return first;
}

} // namespace

class TestContextShiftTurns : public QObject {
    Q_OBJECT

    test::LoadedModel stories_;

    // Checks that the window shifted out of `logical` ([n_keep, n_keep + dropped)) ends
    // where a turn starts, and that what stays in view begins with a turn's header.
    void verify_cut_on_turn_start(const std::vector<int32_t>& logical, int32_t n_keep, int32_t dropped,
                                  const TemplateCase& tc) {
        const auto& tok = stories_.model->tokenizer();
        const auto cut = static_cast<size_t>(n_keep + dropped);
        QVERIFY(cut < logical.size());
        const std::string kept_after = text_of(tok, std::span(logical).subspan(cut));
        const std::string shifted_out = text_of(
            tok, std::span(logical).subspan(static_cast<size_t>(n_keep), static_cast<size_t>(dropped)));
        QVERIFY2(starts_a_turn(kept_after, tc.headers),
                 qPrintable(QString("the view resumes mid-turn: \"%1\"")
                                .arg(QString::fromStdString(kept_after.substr(0, 40)))));
        QVERIFY2(shifted_out.ends_with(tc.turn_end),
                 qPrintable(QString("the shifted-out block ends mid-turn: \"...%1\"")
                                .arg(QString::fromStdString(shifted_out.substr(
                                    shifted_out.size() - std::min<size_t>(40, shifted_out.size()))))));
    }

private slots:
    void initTestCase() { stories_ = test::load_model("stories260K", 16); }

    // The choice itself, on made-up turn starts.
    void discard_ends_on_a_turn_start_data() {
        QTest::addColumn<std::vector<int32_t>>("starts");
        QTest::addColumn<int>("from");
        QTest::addColumn<int>("needed");
        QTest::addColumn<int>("wanted");
        QTest::addColumn<int>("most");
        QTest::addColumn<int>("expected"); // -1: no turn start fits
        const std::vector<int32_t> starts = {10, 30, 45, 80, 120};
        // From 10: the first start at least 25 on is 45 (drop 35).
        QTest::newRow("rounds up to the next turn") << starts << 10 << 5 << 25 << 100 << 35;
        QTest::newRow("exactly on a turn") << starts << 10 << 5 << 20 << 100 << 20;
        // Nothing at least 100 on within 105: the last start at least 5 on is 80 (drop 70).
        QTest::newRow("rounds down when up is too far") << starts << 10 << 5 << 100 << 105 << 70;
        QTest::newRow("wanted beyond every turn") << starts << 10 << 5 << 200 << 200 << 110;
        // The next start (30) is 20 on, more than the 15 allowed.
        QTest::newRow("one turn longer than allowed") << starts << 10 << 5 << 10 << 15 << -1;
        // From 40: 45 is not 10 on, and 80 is more than the 39 allowed.
        QTest::newRow("needed past the first start") << starts << 40 << 10 << 10 << 39 << -1;
        QTest::newRow("needed more than allowed") << starts << 10 << 50 << 50 << 40 << -1;
        QTest::newRow("no turns") << std::vector<int32_t>{} << 10 << 1 << 5 << 50 << -1;
        // A shift already ended at 45: the starts before it are not candidates.
        QTest::newRow("after an earlier shift") << starts << 45 << 1 << 10 << 100 << 35;
    }
    void discard_ends_on_a_turn_start() {
        QFETCH(std::vector<int32_t>, starts);
        QFETCH(int, from);
        QFETCH(int, needed);
        QFETCH(int, wanted);
        QFETCH(int, most);
        QFETCH(int, expected);
        const std::optional<int32_t> discard = engine::discard_to_turn_start(
            static_cast<int32_t>(starts.size()), [&](int32_t i) { return starts.at(static_cast<size_t>(i)); },
            from, needed, wanted, most);
        QCOMPARE(discard.value_or(-1), expected);
    }

    // Every lookup renders and tokenizes the conversation up to a turn: a long
    // conversation costs a logarithmic number of them, not one per turn.
    void discard_looks_up_few_turns() {
        int lookups = 0;
        const auto discard = engine::discard_to_turn_start(
            1000,
            [&](int32_t i) {
                ++lookups;
                return 10 + 7 * i;
            },
            10, 1, 3000, 6000);
        QCOMPARE(discard.value_or(-1), 3003); // 10 + 7 * 429 is the first start 3000 on
        QVERIFY2(lookups <= 12, qPrintable(QString("%1 lookups").arg(lookups)));
    }

    // The first turn in view, on made-up turn starts: the turn that holds the first token
    // after the cut, system turns aside.
    void first_visible_turn_follows_the_cut_data() {
        QTest::addColumn<std::vector<int32_t>>("starts"); // of turns 1..n-1
        QTest::addColumn<int32_t>("prompt_tokens");
        QTest::addColumn<int32_t>("n_keep");
        QTest::addColumn<int32_t>("shifted_out");
        QTest::addColumn<int32_t>("expected");
        // Turns: 0 [0, 10) system, 1 [10, 30), 2 [30, 45), 3 [45, 80), 4 [80, 120).
        const std::vector<int32_t> starts = {10, 30, 45, 80};
        QTest::newRow("nothing shifted out") << starts << 120 << 10 << 0 << 0;
        QTest::newRow("cut on a turn start") << starts << 120 << 10 << 35 << 3;
        QTest::newRow("cut within a turn") << starts << 120 << 10 << 40 << 3;
        QTest::newRow("cut one token into a turn") << starts << 120 << 10 << 21 << 2;
        QTest::newRow("only the system prompt kept before") << starts << 120 << 10 << 1 << 1;
        QTest::newRow("every turn out") << starts << 120 << 10 << 110 << 5;
    }
    void first_visible_turn_follows_the_cut() {
        QFETCH(std::vector<int32_t>, starts);
        QFETCH(int32_t, prompt_tokens);
        QFETCH(int32_t, n_keep);
        QFETCH(int32_t, shifted_out);
        QFETCH(int32_t, expected);
        std::vector<engine::ChatTurn> conversation{{chat::Role::System, "s"}};
        for (size_t i = 0; i < starts.size(); ++i)
            conversation.push_back({i % 2 == 0 ? chat::Role::User : chat::Role::Assistant, "t"});
        const engine::TurnStarts turn_starts(conversation.size(), prompt_tokens,
                                             [&](size_t turn) { return starts.at(turn - 1); });
        QCOMPARE(engine::first_visible_turn(turn_starts, conversation, n_keep, shifted_out), expected);
        if (shifted_out == 0) QCOMPARE(turn_starts.lookups(), 0); // nothing rendered when nothing shifted
    }

    // A system turn in the middle is kept by the shift: the first turn in view is the next.
    void first_visible_turn_skips_system_turns() {
        const std::vector<engine::ChatTurn> conversation{{chat::Role::System, "s"},
                                                         {chat::Role::User, "u"},
                                                         {chat::Role::System, "s"},
                                                         {chat::Role::User, "u"}};
        const std::vector<int32_t> starts = {0, 10, 20, 30};
        const engine::TurnStarts turn_starts(conversation.size(), 40,
                                             [&](size_t turn) { return starts.at(turn); });
        QCOMPARE(engine::first_visible_turn(turn_starts, conversation, 10, 10), 3);
    }

    // A long conversation costs a logarithmic number of lookups, not one per turn.
    void first_visible_turn_looks_up_few_turns() {
        std::vector<engine::ChatTurn> conversation(1000, {chat::Role::User, "u"});
        const engine::TurnStarts turn_starts(conversation.size(), 7000,
                                             [](size_t turn) { return static_cast<int32_t>(7 * turn); });
        QCOMPARE(engine::first_visible_turn(turn_starts, conversation, 0, 3003), 429);
        QVERIFY2(turn_starts.lookups() <= 12, qPrintable(QString("%1 lookups").arg(turn_starts.lookups())));
    }

    // The session store's turn gives the first turn in view that the app's worker once found by
    // rendering every prefix of the conversation: 0 before the conversation overflows the
    // context, and the first turn the shifts left in view after.
    void first_visible_turn_matches_prefix_rendering_data() {
        QTest::addColumn<QString>("template_name");
        QTest::addColumn<int>("n_ctx");
        QTest::newRow("ChatML") << "chatml" << 256;
        QTest::newRow("compact") << "compact" << 128;
    }
    void first_visible_turn_matches_prefix_rendering() {
        QFETCH(QString, template_name);
        QFETCH(int, n_ctx);
        const TemplateCase tc = template_case(template_name);
        engine::EngineMetrics metrics;
        engine::SessionStoreOptions store_options;
        store_options.n_ctx = n_ctx;
        engine::SessionStore store(*stories_.inference, store_options, metrics);
        engine::GenerationOptions options;
        options.sampling.temperature = 0;
        options.max_tokens = 8;
        options.template_override = tc.source;

        std::vector<engine::ChatTurn> conversation{{chat::Role::System, "You tell short stories."}};
        int unshifted = 0, shifted = 0;
        // One turn: the engine's first turn in view, and the prefix rendering's.
        struct FirstInView {
            int engine = 0, prefix_rendering = 0;
        };
        const auto run_turn = [&](const char* what) {
            const engine::TurnStats stats =
                store
                    .run_turn({.conversation_id = "c", .conversation = conversation, .options = options},
                              nullptr)
                    .stats;
            const int expected =
                prefix_rendering_first_visible_turn(*stories_.model, tc.source, conversation, stats, false);
            // For the record: the worker's rendering counted the last turn shifted out as in view.
            const int worker =
                prefix_rendering_first_visible_turn(*stories_.model, tc.source, conversation, stats, true);
            qInfo("%s: %zu turns, %d tokens shifted out after %d kept; first turn in view %d (the worker's "
                  "rendering: %d)",
                  what, conversation.size(), stats.shifted_out_tokens, stats.n_keep, stats.first_visible_turn,
                  worker);
            (stats.shifted_out_tokens > 0 ? shifted : unshifted) += 1;
            return FirstInView{stats.first_visible_turn, expected};
        };
        for (size_t round = 0; round < kQuestions.size(); ++round) {
            conversation.push_back({chat::Role::User, kQuestions[round]});
            const FirstInView first = run_turn("prefill");
            QCOMPARE(first.engine, first.prefix_rendering);
            conversation.push_back({chat::Role::Assistant, kAnswers[round]});
        }
        // Replies longer than the context's free quarter shift while they are generated: half a
        // context long, over turns of the prompt; three contexts long, past all of them.
        conversation.push_back({chat::Role::User, kQuestions[0]});
        options.max_tokens = n_ctx / 2;
        const FirstInView after_half = run_turn("half a context of reply");
        QCOMPARE(after_half.engine, after_half.prefix_rendering);
        QVERIFY(after_half.engine > 0 && after_half.engine < static_cast<int>(conversation.size()));
        conversation.push_back({chat::Role::Assistant, kAnswers[0]});
        conversation.push_back({chat::Role::User, kQuestions[1]});
        options.max_tokens = 3 * n_ctx;
        const FirstInView after_three = run_turn("three contexts of reply");
        QCOMPARE(after_three.engine, after_three.prefix_rendering);
        QCOMPARE(after_three.engine, static_cast<int>(conversation.size()));
        QVERIFY(unshifted > 0);
        QVERIFY(shifted > 0);
    }

    void prefill_shifts_out_whole_turns_data() {
        QTest::addColumn<QString>("template_name");
        QTest::addColumn<int>("n_ctx");
        // ChatML costs stories260K's character-level vocabulary about 40 tokens a turn.
        QTest::newRow("ChatML") << "chatml" << 256;
        QTest::newRow("compact") << "compact" << 128;
    }
    // A conversation grows one question at a time until it has been shifted several
    // times; each shift ends on a turn start, keeps the system prompt, and frees the
    // room the reply needs.
    void prefill_shifts_out_whole_turns() {
        QFETCH(QString, template_name);
        QFETCH(int, n_ctx);
        const TemplateCase tc = template_case(template_name);
        engine::ChatSession session(*stories_.inference, n_ctx);
        engine::GenerationOptions options;
        options.sampling.temperature = 0;
        options.max_tokens = 8;
        options.template_override = tc.source;

        std::vector<engine::ChatTurn> conversation{{chat::Role::System, "You tell short stories."}};
        int shifts = 0;
        int32_t last_shifted_out = 0;
        for (size_t round = 0; round < kQuestions.size(); ++round) {
            conversation.push_back({chat::Role::User, kQuestions[round]});
            const engine::TurnStats stats = session.reply(conversation, options, nullptr);
            conversation.push_back({chat::Role::Assistant, kAnswers[round]});
            if (!stats.context_shifted()) continue;
            ++shifts;
            QVERIFY(stats.shifted_out_tokens > last_shifted_out); // the window only grows
            last_shifted_out = stats.shifted_out_tokens;

            const std::vector<int32_t> logical = session.cache().logical_tokens();
            const std::vector<engine::ChatTurn> asked(conversation.begin(), conversation.end() - 1);
            const std::vector<int32_t> prompt = session.prompt_tokens(asked, options);
            QVERIFY(logical.size() >= prompt.size());
            QVERIFY(std::equal(prompt.begin(), prompt.end(), logical.begin())); // the cache stands for it
            QCOMPARE(session.cache().shift_at(), stats.n_keep);
            verify_cut_on_turn_start(prompt, stats.n_keep, stats.shifted_out_tokens, tc);
            if (QTest::currentTestFailed()) return;
            // The system prompt stays, and the reply had the room it asked for.
            const std::string system_text = text_of(
                stories_.model->tokenizer(), std::span(prompt).first(static_cast<size_t>(stats.n_keep)));
            QVERIFY2(system_text.find("You tell short stories.") != std::string::npos, system_text.c_str());
            QVERIFY(stats.prompt_tokens + std::min(options.max_tokens, n_ctx / 4) <= n_ctx);
        }
        qInfo("%d shifts, %d tokens shifted out", shifts, last_shifted_out);
        QVERIFY(shifts >= 2);
    }

    // A single message longer than what must be dropped cannot be kept whole: the shift
    // falls back to a block of tokens, cutting that message, and the reply still comes.
    void a_turn_too_long_is_cut_as_a_block() {
        const TemplateCase tc = template_case("compact");
        const int32_t n_ctx = 128;
        engine::ChatSession session(*stories_.inference, n_ctx);
        engine::GenerationOptions options;
        options.sampling.temperature = 0;
        options.max_tokens = 8;
        options.template_override = tc.source;
        std::string long_question;
        while (long_question.size() < 300)
            long_question += "The cat sat on the mat. ";
        const std::vector<engine::ChatTurn> conversation{{chat::Role::System, "Be kind."},
                                                         {chat::Role::User, long_question}};
        const engine::TurnStats stats = session.reply(conversation, options, nullptr);
        QVERIFY(stats.context_shifted());
        QVERIFY(stats.stop_reason == engine::StopReason::Length ||
                stats.stop_reason == engine::StopReason::EndOfGeneration);
        QVERIFY(stats.prompt_tokens + std::min(options.max_tokens, n_ctx / 4) <= n_ctx);
        const std::vector<int32_t> prompt = session.prompt_tokens(conversation, options);
        const std::string kept_after =
            text_of(stories_.model->tokenizer(),
                    std::span(prompt).subspan(static_cast<size_t>(stats.n_keep + stats.shifted_out_tokens)));
        QVERIFY2(!starts_a_turn(kept_after, tc.headers), kept_after.c_str());
        QVERIFY(kept_after.ends_with("assistant:"));
    }

    void decoding_shifts_out_whole_turns_data() {
        QTest::addColumn<QString>("template_name");
        QTest::addColumn<int>("n_ctx");
        QTest::newRow("compact") << "compact" << 128; // the trained context
        QTest::newRow("ChatML") << "chatml" << 256;   // room for a few of its longer turns
    }
    // A reply that fills the context (stories260K's trained 128 with the compact template)
    // is shifted while it is generated: the first shift drops whole turns of the history,
    // and decoding goes on past the context like a fresh run on the tokens left in view.
    void decoding_shifts_out_whole_turns() {
        QFETCH(QString, template_name);
        QFETCH(int, n_ctx);
        const TemplateCase tc = template_case(template_name);
        engine::GenerationOptions options;
        options.sampling.temperature = 0;
        options.sampling.repeat_penalty = 1.3f; // keeps a 260K model from looping on one phrase
        options.template_override = tc.source;

        // As many short turns as fit in 3/4 of the context (the reply's quarter stays free),
        // ending on a question.
        engine::ChatSession session(*stories_.inference, n_ctx);
        std::vector<engine::ChatTurn> conversation{{chat::Role::System, "Be kind."},
                                                   {chat::Role::User, kQuestions[0]}};
        for (size_t i = 0;; ++i) {
            std::vector<engine::ChatTurn> longer = conversation;
            longer.push_back({chat::Role::Assistant, kAnswers[i % kAnswers.size()]});
            longer.push_back({chat::Role::User, kQuestions[(i + 1) % kQuestions.size()]});
            if (static_cast<int32_t>(session.prompt_tokens(longer, options).size()) > n_ctx * 3 / 4) break;
            conversation = std::move(longer);
        }
        const std::vector<int32_t> prompt = session.prompt_tokens(conversation, options);
        QVERIFY(conversation.size() >= 4);
        QVERIFY(static_cast<int32_t>(prompt.size()) + n_ctx / 4 <= n_ctx); // no shift before decoding

        // Just past the first shift: the cache fills after n_ctx - prompt tokens.
        options.max_tokens = n_ctx - static_cast<int32_t>(prompt.size()) + 8;
        const engine::TurnStats first = session.reply(conversation, options, nullptr);
        qInfo("%zu turns, prompt %zu tokens, generated %d, n_keep %d, shifted out %d", conversation.size(),
              prompt.size(), first.generated_tokens, first.n_keep, first.shifted_out_tokens);
        QVERIFY(first.stop_reason == engine::StopReason::Length);
        QVERIFY(first.context_shifted());
        QCOMPARE(first.generated_tokens, options.max_tokens);
        const std::vector<int32_t> logical = session.cache().logical_tokens();
        QVERIFY(logical.size() >= prompt.size());
        QVERIFY(std::equal(prompt.begin(), prompt.end(), logical.begin()));
        QVERIFY(first.n_keep + first.shifted_out_tokens < static_cast<int32_t>(prompt.size()));
        verify_cut_on_turn_start(logical, first.n_keep, first.shifted_out_tokens, tc);
        if (QTest::currentTestFailed()) return;

        // Three times the context: it never stops for lack of room, and the kept prefix stays.
        engine::ChatSession long_session(*stories_.inference, n_ctx);
        options.max_tokens = 3 * n_ctx;
        const engine::TurnStats stats = long_session.reply(conversation, options, nullptr);
        QVERIFY(stats.stop_reason == engine::StopReason::Length);
        QCOMPARE(stats.generated_tokens, options.max_tokens);
        QVERIFY(long_session.cache().size() <= n_ctx);
        QVERIFY(
            std::equal(prompt.begin(), prompt.begin() + stats.n_keep, long_session.cache().tokens().begin()));

        // Coherence: fed the same tokens, the shifted cache predicts what a fresh run on the
        // tokens in view predicts, and much better than the same cache with its moved keys
        // turned by the distance they moved (what a shift that skips the re-rotation leaves).
        const int steps = 32;
        engine::KvCache& cache = long_session.cache();
        const int32_t in_view = std::min(cache.size(), n_ctx - steps - 1);
        cache.truncate(in_view);
        const Agreement shifted = follow_a_fresh_run(*stories_.inference, cache, prompt[1], steps);
        cache.truncate(in_view);
        stories_.inference->rotate_keys(cache, stats.n_keep, in_view, stats.shifted_out_tokens);
        const Agreement control = follow_a_fresh_run(*stories_.inference, cache, prompt[1], steps);
        qInfo(
            "agreement with a fresh run over %d steps: %d (max logit difference %.3f); keys not re-rotated: "
            "%d (%.3f)",
            steps, shifted.agreed, shifted.max_logit_difference, control.agreed,
            control.max_logit_difference);
        QVERIFY(shifted.agreed >= steps * 3 / 4);
        QVERIFY(control.agreed < shifted.agreed);
    }
};

QTEST_GUILESS_MAIN(TestContextShiftTurns)
#include "test_context_shift_turns.moc"
