// Context shift: dropping a block of the cache and re-rotating the moved keys.
//
// Layer 0's keys depend only on the token and its position, so after a shift they
// must equal the keys a fresh run computes at the new positions, up to F16 rounding
// (the key is rounded to F16, turned back in F32 and rounded again). Deeper layers
// legitimately differ: their keys were computed while the dropped tokens were still
// in view. For those, the test compares the continuation with a fresh run on the
// shifted token sequence, and with a shift that forgets to re-rotate (the control).
// A Q8_0 key cache is turned the same way (widened, turned, rounded back to Q8_0) and lands
// within two Q8_0 steps of the fresh keys.
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/sampling/sampler.h"
#include "engine/session/chat_session.h"
#include "engine/session/engine_metrics.h"
#include "kernels/fp16.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <algorithm>
#include <cmath>
#include <stdexcept>

using namespace hearth;

namespace {

struct Loaded {
    std::shared_ptr<const engine::Model> model;
    std::unique_ptr<engine::Inference> inference;
};

Loaded load(const QString& name) {
    Loaded l;
    l.model = engine::Model::load(test::testdata("models/" + name.toStdString() + ".gguf"));
    l.inference = std::make_unique<engine::Inference>(l.model, engine::InferenceOptions{2, 16});
    return l;
}

// Tokens from a fixed pseudo-random walk over the vocabulary (any ids will do here).
std::vector<int32_t> some_tokens(int n, int32_t n_vocab) {
    std::vector<int32_t> tokens;
    uint32_t state = 12345;
    for (int i = 0; i < n; ++i) {
        state = state * 1664525u + 1013904223u;
        tokens.push_back(static_cast<int32_t>(3 + (state >> 8) % static_cast<uint32_t>(n_vocab - 3)));
    }
    return tokens;
}

float max_abs_key(const engine::KvCache& cache, int32_t layer, int32_t begin, int32_t end) {
    float m = 0;
    for (int32_t pos = begin; pos < end; ++pos)
        for (int32_t i = 0; i < cache.kv_width(); ++i)
            m = std::max(
                m, std::fabs(kernels::fp16_to_fp32(cache.at(engine::KvCache::Part::Keys, layer, pos, i))));
    return m;
}

float max_key_difference(const engine::KvCache& a, const engine::KvCache& b, int32_t layer, int32_t begin,
                         int32_t end) {
    float m = 0;
    for (int32_t pos = begin; pos < end; ++pos)
        for (int32_t i = 0; i < a.kv_width(); ++i)
            m = std::max(m,
                         std::fabs(kernels::fp16_to_fp32(a.at(engine::KvCache::Part::Keys, layer, pos, i)) -
                                   kernels::fp16_to_fp32(b.at(engine::KvCache::Part::Keys, layer, pos, i))));
    return m;
}

std::vector<int32_t> greedy(engine::Inference& inference, engine::KvCache& cache,
                            std::span<const float> logits, int steps) {
    std::vector<int32_t> out;
    for (int i = 0; i < steps; ++i) {
        out.push_back(engine::argmax(logits));
        logits = inference.eval(cache, std::span<const int32_t>(&out.back(), 1));
    }
    return out;
}

} // namespace

class TestKvContextShift : public QObject {
    Q_OBJECT

private slots:
    // A Q8_0 key cache: the moved keys are widened, turned and rounded back to Q8_0, and land
    // within two of its steps (1/127 of a block's largest key each, plus the rotation's error) of
    // the keys computed at their new positions; without the turn they are far off.
    void rotated_quantized_keys_match_fresh_keys_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : {"tiny-llama3", "tiny-qwen3"})
            QTest::newRow(m) << m;
    }
    void rotated_quantized_keys_match_fresh_keys() {
        QFETCH(QString, model);
        Loaded l = load(model);
        engine::Inference inference(
            l.model, engine::InferenceOptions{2, 16, {kernels::TensorType::Q8_0, kernels::TensorType::Q4_0}});
        const int32_t n_keep = 4, n_discard = 10, n = 40, end = n - n_discard;
        const std::vector<int32_t> tokens = some_tokens(n, inference.n_vocab());
        auto shifted = inference.new_cache(64), unrotated = inference.new_cache(64);
        inference.eval(*shifted, tokens);
        inference.eval(*unrotated, tokens);
        inference.shift_context(*shifted, n_keep, n_discard);
        unrotated->discard(n_keep, n_discard);
        std::vector<int32_t> kept(tokens.begin(), tokens.begin() + n_keep);
        kept.insert(kept.end(), tokens.begin() + n_keep + n_discard, tokens.end());
        auto fresh = inference.new_cache(64);
        inference.eval(*fresh, kept);

        const auto keys = [](const engine::KvCache& cache, int32_t pos) {
            std::vector<float> row(static_cast<size_t>(cache.kv_width()));
            cache.read_row_f32(engine::KvCache::Part::Keys, 0, pos, row.data());
            return row;
        };
        float scale = 0, rotated_error = 0, control_error = 0;
        for (int32_t pos = n_keep; pos < end; ++pos) {
            const std::vector<float> want = keys(*fresh, pos), got = keys(*shifted, pos),
                                     control = keys(*unrotated, pos);
            for (size_t i = 0; i < want.size(); ++i) {
                scale = std::max(scale, std::fabs(want[i]));
                rotated_error = std::max(rotated_error, std::fabs(got[i] - want[i]));
                control_error = std::max(control_error, std::fabs(control[i] - want[i]));
            }
        }
        qInfo("Q8_0 layer 0 keys: max |key| %.3g, error after re-rotation %.3g, without it %.3g", scale,
              rotated_error, control_error);
        QVERIFY2(rotated_error <= 2.5f / 127 * scale, "re-rotated Q8_0 keys differ from fresh ones");
        QVERIFY(control_error > 3 * rotated_error);
    }

    void rotated_keys_match_fresh_keys_data() {
        QTest::addColumn<QString>("model");
        // Normal layout; NeoX layout with biases; Llama-3 frequency factors; Q/K norms, head size 32;
        // sliding-window layer 0 (Gemma 2: the global base; Gemma 3: its own local base); Phi-3's
        // LongRoPE short factors.
        for (const char* m : {"stories260K", "tiny-qwen2", "tiny-llama3", "tiny-qwen3", "tiny-gemma2",
                              "tiny-gemma3", "tiny-phi3"})
            QTest::newRow(m) << m;
    }
    void rotated_keys_match_fresh_keys() {
        QFETCH(QString, model);
        Loaded l = load(model);
        const int32_t n_keep = 4, n_discard = 10, n = 40;
        const std::vector<int32_t> tokens = some_tokens(n, l.inference->n_vocab());

        auto shifted = l.inference->new_cache(64);
        l.inference->eval(*shifted, tokens);
        auto unrotated = l.inference->new_cache(64);
        l.inference->eval(*unrotated, tokens);
        l.inference->shift_context(*shifted, n_keep, n_discard);
        unrotated->discard(n_keep, n_discard); // the control: moved, not re-rotated

        std::vector<int32_t> kept(tokens.begin(), tokens.begin() + n_keep);
        kept.insert(kept.end(), tokens.begin() + n_keep + n_discard, tokens.end());
        auto fresh = l.inference->new_cache(64);
        l.inference->eval(*fresh, kept);

        QCOMPARE(shifted->size(), n - n_discard);
        QVERIFY(shifted->tokens() == kept);
        QVERIFY(shifted->dropped() ==
                std::vector<int32_t>(tokens.begin() + n_keep, tokens.begin() + n_keep + n_discard));
        QVERIFY(shifted->logical_tokens() == tokens);

        const int32_t end = n - n_discard;
        const float scale = max_abs_key(*fresh, 0, 0, end);
        const float rotated_error = max_key_difference(*shifted, *fresh, 0, n_keep, end);
        const float control_error = max_key_difference(*unrotated, *fresh, 0, n_keep, end);
        qInfo("layer 0 keys: max |key| %.3g, error after re-rotation %.3g, without it %.3g", scale,
              rotated_error, control_error);
        // Two F16 roundings (relative 2^-11 each) plus float angle error: 2e-3 of the largest key.
        QVERIFY2(rotated_error <= 2e-3f * scale,
                 "re-rotated keys differ from keys computed at the new positions");
        QVERIFY(control_error > 10 * rotated_error);
        // The kept prefix is untouched.
        QVERIFY(max_key_difference(*shifted, *fresh, 0, 0, n_keep) ==
                0.0f); // exact (QCOMPARE on floats is fuzzy)
    }

    // GPT-2's positions are learned embeddings: its keys cannot be turned to new positions.
    void learned_positions_are_not_rotated() {
        Loaded gpt2 = load("tiny-gpt2");
        QVERIFY(!gpt2.inference->can_rotate_keys());
        QVERIFY(load("tiny-gemma3").inference->can_rotate_keys());
        auto cache = gpt2.inference->new_cache(64);
        gpt2.inference->eval(*cache, some_tokens(20, gpt2.inference->n_vocab()));
        bool refused = false;
        try {
            gpt2.inference->shift_context(*cache, 4, 8);
        } catch (const std::logic_error&) {
            refused = true;
        }
        QVERIFY(refused);
    }

    void shift_continues_like_a_fresh_run_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : {"stories260K", "tiny-qwen2", "tiny-llama3"})
            QTest::newRow(m) << m;
    }
    // After a shift, the next logits are those of a run on the kept tokens, to the extent
    // the deeper layers allow: closer than a shift without re-rotation.
    void shift_continues_like_a_fresh_run() {
        QFETCH(QString, model);
        Loaded l = load(model);
        const int32_t n_keep = 8, n_discard = 20, n = 100;
        const std::vector<int32_t> tokens = some_tokens(n, l.inference->n_vocab());
        const int32_t next[] = {tokens[5]};

        auto logits_after = [&](bool rotate) {
            auto cache = l.inference->new_cache(128);
            l.inference->eval(*cache, tokens);
            if (rotate)
                l.inference->shift_context(*cache, n_keep, n_discard);
            else
                cache->discard(n_keep, n_discard);
            auto logits = l.inference->eval(*cache, next);
            return std::vector<float>(logits.begin(), logits.end());
        };
        std::vector<int32_t> kept(tokens.begin(), tokens.begin() + n_keep);
        kept.insert(kept.end(), tokens.begin() + n_keep + n_discard, tokens.end());
        kept.push_back(next[0]);
        auto fresh_cache = l.inference->new_cache(128);
        auto fresh_span = l.inference->eval(*fresh_cache, kept);
        const std::vector<float> fresh(fresh_span.begin(), fresh_span.end());

        auto distance = [&](const std::vector<float>& a) {
            float m = 0;
            for (size_t i = 0; i < a.size(); ++i)
                m = std::max(m, std::fabs(a[i] - fresh[i]));
            return m;
        };
        const float rotated = distance(logits_after(true));
        const float control = distance(logits_after(false));
        qInfo("max logit difference from a fresh run: re-rotated %.4g, not re-rotated %.4g", rotated,
              control);
        QVERIFY(rotated < control);
    }

    // Asked to end at a full context, the same reply stops there: nothing is shifted out, the
    // prompt and the reply fill the context, and the stop reason says why.
    void reply_ends_at_a_full_context_when_asked() {
        Loaded l = load("stories260K");
        const int32_t n_ctx = 128;
        engine::ChatSession session(*l.inference, n_ctx);
        const std::vector<engine::ChatTurn> conversation{{chat::Role::User, "Tell me a story about a dog."}};
        engine::GenerationOptions options;
        options.sampling.temperature = 0;
        options.sampling.repeat_penalty = 1.3f;
        options.max_tokens = 3 * n_ctx;
        options.end_at_full_context = true;
        const engine::TurnStats stats = session.reply(conversation, options, nullptr);
        QVERIFY(!stats.context_shifted());
        QVERIFY(stats.stop_reason == engine::StopReason::ContextFull);
        QCOMPARE(stats.shifted_out_tokens, 0);
        QCOMPARE(stats.first_visible_turn, 0);
        QCOMPARE(stats.prompt_tokens + stats.generated_tokens, n_ctx + 1); // the last token needs no row
        QCOMPARE(session.cache().size(), n_ctx);
    }

    // stories260K has a context of 128: a long reply goes on past it, keeping the system prompt.
    void reply_continues_past_the_context() {
        Loaded l = load("stories260K");
        const int32_t n_ctx = 128;
        engine::ChatSession session(*l.inference, n_ctx);
        std::vector<engine::ChatTurn> conversation{
            {chat::Role::System, "Once upon a time there was a little girl."},
            {chat::Role::User, "Tell me a story about a dog."}};
        engine::GenerationOptions options;
        options.sampling.temperature = 0;       // greedy
        options.sampling.repeat_penalty = 1.3f; // keeps a 260K model from looping on one phrase
        options.max_tokens = 3 * n_ctx;
        const std::vector<int32_t> prompt = session.prompt_tokens(conversation, options);
        int32_t generated_pieces = 0;
        const engine::TurnStats stats =
            session.reply(conversation, options, [&](std::string_view) { ++generated_pieces; });

        qInfo("prompt %d tokens, generated %d, stop %s, n_keep %d, shifted out %d", stats.prompt_tokens,
              stats.generated_tokens, std::string(engine::stop_reason_name(stats.stop_reason)).c_str(),
              stats.n_keep, stats.shifted_out_tokens);
        QVERIFY(stats.context_shifted());
        QVERIFY(stats.stop_reason == engine::StopReason::Length);
        QCOMPARE(stats.generated_tokens, options.max_tokens); // never stopped for the context
        QVERIFY(stats.generated_tokens + stats.prompt_tokens > 2 * n_ctx);
        QVERIFY(generated_pieces > 0);
        QVERIFY(session.cache().size() <= n_ctx);

        // n_keep is the system prompt's tokens, and they are still at the start of the cache.
        QVERIFY(stats.n_keep > 1);
        const std::vector<int32_t>& cached = session.cache().tokens();
        QVERIFY(std::equal(prompt.begin(), prompt.begin() + stats.n_keep, cached.begin()));
        // The cache stands for the whole history: prompt, reply, with one window cut out.
        const std::vector<int32_t> logical = session.cache().logical_tokens();
        QVERIFY(std::equal(prompt.begin(), prompt.end(), logical.begin()));
        QCOMPARE(static_cast<int32_t>(logical.size()),
                 static_cast<int32_t>(prompt.size()) + stats.generated_tokens - 1);

        // Coherence: from the shifted cache, greedy decoding goes on like a fresh run on the
        // same (shifted) token sequence, for the first steps.
        const int32_t next[] = {prompt[1]};
        session.cache().truncate(n_ctx - 8); // room to continue
        auto fresh = l.inference->new_cache(n_ctx + 16);
        l.inference->eval(*fresh, session.cache().tokens());
        const std::vector<int32_t> fresh_tokens =
            greedy(*l.inference, *fresh, l.inference->eval(*fresh, next), 4);
        const std::vector<int32_t> shifted_tokens =
            greedy(*l.inference, session.cache(), l.inference->eval(session.cache(), next), 4);
        qInfo("next tokens: shifted %d %d %d %d, fresh %d %d %d %d", shifted_tokens[0], shifted_tokens[1],
              shifted_tokens[2], shifted_tokens[3], fresh_tokens[0], fresh_tokens[1], fresh_tokens[2],
              fresh_tokens[3]);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(shifted_tokens[static_cast<size_t>(i)], fresh_tokens[static_cast<size_t>(i)]);
    }

    // The engine's live figures are the reply's own (its TurnStats, published from there), and
    // its count of context shifts since start adds up every shift of every reply.
    void engine_metrics_show_the_replys_figures() {
        Loaded l = load("stories260K");
        const int32_t n_ctx = 128;
        engine::EngineMetrics metrics;
        engine::ChatSession session(*l.inference, n_ctx, &metrics);
        std::vector<engine::ChatTurn> conversation{{chat::Role::System, "Once upon a time."},
                                                   {chat::Role::User, "Tell me a story about a cat."}};
        engine::GenerationOptions options;
        options.sampling.temperature = 0;
        options.sampling.repeat_penalty = 1.3f;
        options.max_tokens = 3 * n_ctx;
        int64_t shifts = 0;
        for (int reply = 0; reply < 2; ++reply) {
            const engine::TurnStats stats = session.reply(conversation, options, nullptr);
            shifts += stats.context_shifts;
            const engine::EngineMetricsSnapshot shown = metrics.snapshot();
            qInfo("reply %d: %d context shifts, %d tokens shifted out, %d generated", reply,
                  stats.context_shifts, stats.shifted_out_tokens, stats.generated_tokens);
            QVERIFY(stats.context_shifts > 1); // three contexts' worth of reply
            QVERIFY(!shown.generating);
            QCOMPARE(shown.context_shifts, shifts);
            QCOMPARE(shown.tokens_shifted_out, int64_t{stats.shifted_out_tokens});
            QCOMPARE(shown.tokens_reused, int64_t{stats.reused_tokens});
            QCOMPARE(shown.tokens_computed, int64_t{stats.computed_tokens});
            QCOMPARE(shown.tokens_generated, int64_t{stats.generated_tokens});
            QCOMPARE(shown.prefill_tokens_per_second, stats.prefill_tokens_per_second());
            QCOMPARE(shown.decode_tokens_per_second, stats.decode_tokens_per_second());
            QCOMPARE(shown.time_to_first_token_ms, stats.time_to_first_token * 1000.0);
            QCOMPARE(shown.kv_tokens, int64_t{session.cache().size()});
            QCOMPARE(shown.kv_capacity, int64_t{n_ctx});
            conversation.push_back({chat::Role::Assistant, "The cat sat on the mat."});
            conversation.push_back({chat::Role::User, "And then?"});
        }
    }
};

QTEST_MAIN(TestKvContextShift)
#include "test_kv_context_shift.moc"
