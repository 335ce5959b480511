// A model whose forward pass turns NaN in the middle of a reply (damaged_token_model.h: one
// token's embedding is infinite) ends that reply with an error instead of sampling from NaN
// logits: the pieces streamed before it are what the original model says up to and including
// the damaged token, the cache keeps only the positions computed before it, and the session and
// the store reply again afterwards. A prompt that holds the token fails before any piece.
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/sampling/sampler.h"
#include "engine/session/chat_session.h"
#include "engine/session/engine_metrics.h"
#include "engine/session/session_store.h"
#include "tests/model/damaged_token_model.h"
#include "tests/model/model_fixture.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <algorithm>
#include <cmath>
#include <limits>

using namespace hearth;

namespace {

constexpr int32_t kContext = 256;

engine::GenerationOptions greedy(int32_t max_tokens) {
    engine::GenerationOptions options;
    options.sampling.temperature = 0;
    options.max_tokens = max_tokens;
    return options;
}

const std::vector<engine::ChatTurn> kConversation{{chat::Role::User, "Tell me a story about a cat"}};

struct Reply {
    std::string text;
    std::string error; // empty when the reply ended normally
    engine::TurnStats stats;
};

Reply reply(engine::ChatSession& session, const std::vector<engine::ChatTurn>& conversation,
            int32_t max_tokens) {
    Reply r;
    try {
        r.stats =
            session.reply(conversation, greedy(max_tokens), [&](std::string_view piece) { r.text += piece; });
    } catch (const Error& e) {
        r.error = e.what();
    }
    return r;
}

} // namespace

class TestNonFiniteReply : public QObject {
    Q_OBJECT

    test::LoadedModel original_;
    test::LoadedModel damaged_;
    std::vector<int32_t> prompt_; // kConversation as the session feeds it
    std::vector<int32_t> greedy_; // the original model's greedy reply, up to the damaged token
    int32_t damaged_token_ = -1;  // its last token, the one whose embedding is infinite

private slots:
    void initTestCase() {
        original_ = test::load_model("stories260K", 32);
        engine::ChatSession session(*original_.inference, kContext);
        prompt_ = session.prompt_tokens(kConversation, greedy(1));
        greedy_ = test::greedy_reply_to_damage(*original_.inference, prompt_);
        QVERIFY2(!greedy_.empty(), "no token to damage in the first 40 of the reply");
        damaged_token_ = greedy_.back();

        const std::string path = test::make_temp_dir("hearth-non-finite") + "/damaged.gguf";
        test::write_damaged_token_model(test::testdata("models/stories260K.gguf"), path, damaged_token_);
        damaged_.model = engine::Model::load(path);
        damaged_.inference =
            std::make_unique<engine::Inference>(damaged_.model, engine::InferenceOptions{2, 32});
        qInfo("token %d damaged, reply token %zu", damaged_token_, greedy_.size());
    }

    // The model is damaged for that token only: the load's probe (two BOS tokens) and the prompt
    // compute finite logits, the same as the original's.
    void damage_is_confined_to_the_token() {
        auto original_cache = original_.inference->new_cache(kContext);
        auto damaged_cache = damaged_.inference->new_cache(kContext);
        const std::span<const float> expected = original_.inference->eval(*original_cache, prompt_);
        const std::span<const float> logits = damaged_.inference->eval(*damaged_cache, prompt_);
        QVERIFY(engine::all_finite(logits));
        QVERIFY(std::equal(logits.begin(), logits.end(), expected.begin()));
        const int32_t token = damaged_token_;
        QVERIFY(!engine::all_finite(
            damaged_.inference->eval(*damaged_cache, std::span<const int32_t>(&token, 1))));
        const int32_t bos = damaged_.model->tokenizer().bos_id();
        QVERIFY(bos >= 0);
        const int32_t probe[] = {bos, bos};
        auto probe_cache = damaged_.inference->new_cache(8);
        QVERIFY(engine::all_finite(damaged_.inference->eval(*probe_cache, probe)));
    }

    void all_finite_finds_nan_and_infinities_anywhere() {
        std::vector<float> logits(1000, 1.5f);
        logits[3] = -std::numeric_limits<float>::max();
        logits[4] = std::numeric_limits<float>::denorm_min();
        QVERIFY(engine::all_finite(logits));
        QVERIFY(engine::all_finite({}));
        for (const float bad :
             {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
              std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()})
            for (const size_t at : {size_t{0}, size_t{517}, size_t{999}}) {
                std::vector<float> damaged = logits;
                damaged[at] = bad;
                QVERIFY2(!engine::all_finite(damaged), qPrintable(QString("%1 at %2").arg(bad).arg(at)));
            }
    }

    // The reply stops with the error where the damaged token is fed back; what came before it,
    // the damaged token's own text included, is the original model's reply.
    void reply_stops_with_an_error_and_keeps_its_text() {
        const auto expected_tokens = static_cast<int32_t>(greedy_.size());
        engine::ChatSession original(*original_.inference, kContext);
        const Reply expected = reply(original, kConversation, expected_tokens);
        QVERIFY2(expected.error.empty(), expected.error.c_str());
        QCOMPARE(expected.stats.generated_tokens, expected_tokens);
        QVERIFY(!expected.text.empty());

        engine::EngineMetrics metrics;
        engine::ChatSession session(*damaged_.inference, kContext, &metrics);
        const Reply r = reply(session, kConversation, 100);
        QVERIFY2(r.error.find("NaN or infinite values after " + std::to_string(expected_tokens) +
                              " tokens") != std::string::npos,
                 r.error.c_str());
        QCOMPARE(QString::fromStdString(r.text), QString::fromStdString(expected.text));
        // The cache holds the prompt and the tokens before the damaged one, not the NaN position.
        QCOMPARE(session.cache().size(), static_cast<int32_t>(prompt_.size()) + expected_tokens - 1);
        QVERIFY(!metrics.snapshot().generating);

        // The session still replies: as far as the damaged token, which it samples but never feeds.
        const Reply again = reply(session, kConversation, expected_tokens);
        QVERIFY2(again.error.empty(), again.error.c_str());
        QCOMPARE(QString::fromStdString(again.text), QString::fromStdString(expected.text));
        QCOMPARE(again.stats.reused_tokens, static_cast<int32_t>(prompt_.size()) - 2);
    }

    // Through the store, as the app and the API server run turns: the error, then a reply.
    void store_drops_the_turn_and_replies_again() {
        engine::EngineMetrics metrics;
        engine::SessionStoreOptions options;
        options.n_ctx = kContext;
        engine::SessionStore store(*damaged_.inference, options, metrics);
        std::string text;
        const auto on_piece = [&](std::string_view piece) { text += piece; };
        QVERIFY_THROWS_EXCEPTION(
            Error,
            store.run_turn({.conversation_id = "c", .conversation = kConversation, .options = greedy(100)},
                           on_piece));
        QVERIFY(!text.empty());
        text.clear();
        const engine::TurnResult turn =
            store.run_turn({.conversation_id = "c",
                            .conversation = kConversation,
                            .options = greedy(static_cast<int32_t>(greedy_.size()) - 1)},
                           on_piece);
        QCOMPARE(turn.stats.generated_tokens, static_cast<int32_t>(greedy_.size()) - 1);
        QVERIFY(!text.empty());
    }

    // A prompt that holds the damaged token computes NaN logits at once: the error, no piece.
    void prompt_with_the_token_fails_before_any_piece() {
        engine::ChatSession session(*damaged_.inference, kContext);
        const std::string damaged_text = damaged_.model->tokenizer().decode(greedy_);
        const std::vector<engine::ChatTurn> conversation{
            kConversation.front(), {chat::Role::Assistant, damaged_text}, {chat::Role::User, "And then?"}};
        const std::vector<int32_t> prompt = session.prompt_tokens(conversation, greedy(1));
        QVERIFY2(std::count(prompt.begin(), prompt.end(), damaged_token_) > 0,
                 "the earlier reply's text does not tokenize to the damaged token");
        const Reply r = reply(session, conversation, 20);
        QVERIFY2(r.error.find("NaN or infinite values for the prompt") != std::string::npos, r.error.c_str());
        QVERIFY(r.text.empty());
        QCOMPARE(session.cache().size(), 0);
    }
};

QTEST_MAIN(TestNonFiniteReply)
#include "test_non_finite_reply.moc"
