// Prefix reuse across the turns of a conversation: the logits after reusing the
// cached prefix equal those of a full recompute, and editing or regenerating a
// message reuses exactly the tokens before the change.
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/session/chat_session.h"
#include "engine/session/engine_metrics.h"
#include "tests/model/model_fixture.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <algorithm>
#include <cmath>

using namespace hearth;

namespace {

using Loaded = test::LoadedModel;

Loaded load(const std::string& name) {
    // A small batch so that prompts span several batches and reuse cuts through one.
    return test::load_model(name, 16);
}

// Room for the conversations below without a context shift (positions past the
// trained length are fine for comparing two ways of computing the same thing).
constexpr int32_t kContext = 640;
// The bound for F32 models. Batches of F32 rows sum in llamafile's order and single rows
// in ggml's, as llama.cpp does; a prompt's rows are always computed in batches (a reused
// prefix leaves at least two rows to compute, and no batch of a prompt holds one row alone),
// so a reuse and a full recompute round alike: measured 0 in every case below. (When the last
// row was computed alone, regenerating differed by 1.9e-4 on tiny-qwen3.)
constexpr float kLogitBound = 1e-4f;

engine::GenerationOptions options_for(const QString& template_file, int max_tokens) {
    engine::GenerationOptions options;
    options.sampling.temperature = 0;
    options.max_tokens = max_tokens;
    if (!template_file.isEmpty())
        options.template_override =
            test::read_file(test::testdata("templates/" + template_file.toStdString()));
    return options;
}

int32_t common_prefix(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i])
        ++i;
    return static_cast<int32_t>(i);
}

float max_difference(std::span<const float> a, std::span<const float> b) {
    float m = 0;
    for (size_t i = 0; i < a.size(); ++i)
        m = std::max(m, std::fabs(a[i] - b[i]));
    return m;
}

// Logits of `turns` computed from an empty cache.
std::vector<float> fresh_logits(engine::Inference& inference, const std::vector<engine::ChatTurn>& turns,
                                const engine::GenerationOptions& options) {
    engine::ChatSession fresh(inference, kContext);
    auto prefilled = fresh.prefill(turns, options);
    if (prefilled.stats.reused_tokens != 0) throw std::logic_error("a fresh session reused tokens");
    return {prefilled.logits.begin(), prefilled.logits.end()};
}

std::vector<engine::ChatTurn> long_conversation() {
    return {{chat::Role::System, "You are a kind storyteller."},
            {chat::Role::User, "Tell me about a red ball."},
            {chat::Role::Assistant, "The red ball rolled down the hill."},
            {chat::Role::User, "Who found it?"},
            {chat::Role::Assistant, "A little boy found it by the tree."},
            {chat::Role::User, "What did he do next?"}};
}

void add_model_template_rows() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("template_file");
    for (const char* m : {"stories260K", "tiny-qwen2", "tiny-qwen3"}) {
        QTest::newRow((std::string(m) + "/chatml").c_str()) << m << QString();
        QTest::newRow((std::string(m) + "/qwen2.5").c_str())
            << m << QString("Qwen-Qwen2.5-7B-Instruct.jinja");
    }
}

} // namespace

class TestPrefixReuse : public QObject {
    Q_OBJECT

private slots:
    // A prompt's logits do not depend on how its rows are cut into batches: with 16 rows a
    // batch, 17 and 33 tokens would leave one row alone (summed as a single row is), so the
    // cut moves; the same prompt in one batch of 64 gives the same bits.
    void prompt_logits_do_not_depend_on_batching_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("length");
        for (const char* m : {"stories260K", "tiny-qwen3"})
            for (int length : {2, 16, 17, 18, 33})
                QTest::addRow("%s/%d", m, length) << m << length;
    }
    void prompt_logits_do_not_depend_on_batching() {
        QFETCH(QString, model);
        QFETCH(int, length);
        Loaded small = load(model.toStdString());
        Loaded whole = test::load_model(model.toStdString(), 64);
        std::vector<int32_t> prompt;
        for (int i = 0; i < length; ++i)
            prompt.push_back(1 + (37 * i) % 400);
        auto small_cache = small.inference->new_cache(kContext),
             whole_cache = whole.inference->new_cache(kContext);
        const std::span<const float> a = small.inference->eval(*small_cache, prompt);
        const std::span<const float> b = whole.inference->eval(*whole_cache, prompt);
        const float diff = max_difference(a, b);
        QVERIFY2(diff == 0.0f, qPrintable(QString("logits differ by %1").arg(double(diff))));
    }

    void reuse_matches_full_recompute_data() { add_model_template_rows(); }
    void reuse_matches_full_recompute() {
        QFETCH(QString, model);
        QFETCH(QString, template_file);
        Loaded l = load(model.toStdString());
        const engine::GenerationOptions options = options_for(template_file, 6);
        engine::EngineMetrics metrics;
        engine::ChatSession session(*l.inference, kContext, &metrics);

        std::vector<engine::ChatTurn> turns{{chat::Role::System, "You are a kind storyteller."},
                                            {chat::Role::User, "Tell me about a red ball."}};
        std::string reply;
        const engine::TurnStats first =
            session.reply(turns, options, [&](std::string_view piece) { reply += piece; });
        QCOMPARE(first.reused_tokens, 0);
        QCOMPARE(first.computed_tokens, first.prompt_tokens);

        turns.push_back({chat::Role::Assistant, reply});
        turns.push_back({chat::Role::User, "Who found it?"});
        auto prefilled = session.prefill(turns, options);
        const engine::TurnStats& second = prefilled.stats;
        const std::vector<float> reused(prefilled.logits.begin(), prefilled.logits.end());
        QVERIFY(!second.context_shifted());
        QVERIFY(second.reused_tokens >= first.prompt_tokens - 1); // the whole first prompt, up to a seam
        QCOMPARE(second.computed_tokens, second.prompt_tokens - second.reused_tokens);
        QCOMPARE(metrics.snapshot().tokens_reused, int64_t{second.reused_tokens});
        QCOMPARE(metrics.snapshot().tokens_computed, int64_t{second.computed_tokens});

        const std::vector<float> full = fresh_logits(*l.inference, turns, options);
        const float diff = max_difference(reused, full);
        qInfo("reused %d of %d tokens; max logit difference from a full recompute %g", second.reused_tokens,
              second.prompt_tokens, diff);
        QVERIFY2(diff <= kLogitBound, "logits after reuse differ from a full recompute");
    }

    void regenerate_reuses_all_but_the_last_two_tokens_data() { add_model_template_rows(); }
    void regenerate_reuses_all_but_the_last_two_tokens() {
        QFETCH(QString, model);
        QFETCH(QString, template_file);
        Loaded l = load(model.toStdString());
        const engine::GenerationOptions options = options_for(template_file, 4);
        engine::ChatSession session(*l.inference, kContext);
        const auto turns = long_conversation();
        const engine::TurnStats first = session.reply(turns, options, nullptr);
        // Regenerate: the same conversation again; the last prompt token is evaluated again
        // (its logits were overwritten by the reply's), with the one before it so that it is
        // computed in a batch, as in a full recompute.
        auto again = session.prefill(turns, options);
        QCOMPARE(again.stats.prompt_tokens, first.prompt_tokens);
        QCOMPARE(again.stats.reused_tokens, first.prompt_tokens - 2);
        QCOMPARE(again.stats.computed_tokens, 2);
        const std::vector<float> regenerated(again.logits.begin(), again.logits.end());
        const float diff = max_difference(regenerated, fresh_logits(*l.inference, turns, options));
        float scale = 0;
        for (float x : regenerated)
            scale = std::max(scale, std::fabs(x));
        qInfo("max logit difference from a full recompute %g (largest logit %g)", diff, scale);
        QVERIFY(diff <= kLogitBound);
    }

    void edit_reuses_the_turns_before_it_data() { add_model_template_rows(); }
    void edit_reuses_the_turns_before_it() {
        QFETCH(QString, model);
        QFETCH(QString, template_file);
        Loaded l = load(model.toStdString());
        const engine::GenerationOptions options = options_for(template_file, 4);

        // Each message of the conversation edited in turn, after a reply to the original.
        const auto original = long_conversation();
        for (size_t edited_index : {size_t{1}, size_t{3}, size_t{5}}) {
            engine::ChatSession session(*l.inference, kContext);
            session.reply(original, options, nullptr);
            auto edited = original;
            edited[edited_index].content = "Something else entirely, please.";

            const std::vector<int32_t> old_tokens = session.prompt_tokens(original, options);
            const std::vector<int32_t> new_tokens = session.prompt_tokens(edited, options);
            const std::vector<engine::ChatTurn> before(
                original.begin(), original.begin() + static_cast<ptrdiff_t>(edited_index));
            // The turns before the edit, rendered up to the start of the next message.
            const auto before_tokens = static_cast<int32_t>(session.prompt_tokens(before, options).size());

            auto prefilled = session.prefill(edited, options);
            const engine::TurnStats& stats = prefilled.stats;
            qInfo("edit of message %zu: reused %d, computed %d of %d", edited_index, stats.reused_tokens,
                  stats.computed_tokens, stats.prompt_tokens);
            QCOMPARE(stats.reused_tokens, common_prefix(old_tokens, new_tokens));
            QCOMPARE(stats.computed_tokens, static_cast<int32_t>(new_tokens.size()) - stats.reused_tokens);
            // Everything before the edited message is reused (the generation prompt of the
            // shorter rendering may differ in its last tokens: "assistant" vs "user").
            QVERIFY(stats.reused_tokens >= before_tokens - 4);
            QVERIFY(stats.reused_tokens < static_cast<int32_t>(old_tokens.size()) - 8);
            const std::vector<float> logits(prefilled.logits.begin(), prefilled.logits.end());
            QVERIFY(max_difference(logits, fresh_logits(*l.inference, edited, options)) <= kLogitBound);
        }
    }
};

QTEST_MAIN(TestPrefixReuse)
#include "test_prefix_reuse.moc"
