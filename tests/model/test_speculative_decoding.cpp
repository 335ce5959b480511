// Speculative decoding: a reply with drafted tokens verified in one forward pass is plain
// decoding's reply. Greedy: token for token, with either drafter, on every test model and kernel
// tier. Sampling: the same distribution of tokens (a chi-square test that a wrong acceptance
// rule fails), under a grammar as well. The cache after rejected drafts holds what plain decoding's holds,
// and the next turn reuses it. A draft model that cannot draft is refused with a message, and the reply
// decodes plainly. The engine's metrics count what was drafted and accepted, and a runtime
// loads a draft model once for all its conversations.
#include "engine/error.h"
#include "engine/forward/compute_device.h"
#include "engine/grammar/gbnf_parser.h"
#include "engine/runtime/engine_runtime.h"
#include "engine/session/chat_session.h"
#include "engine/session/draft_prompt_lookup.h"
#include "kernels/kernel_table.h"
#include "tests/model/model_fixture.h"
#include <QTemporaryDir>
#include <QTest>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

using namespace hearth;

namespace {

constexpr int32_t kContext = 512;

// A conversation whose reply is likely to repeat what came before: an earlier answer and a
// request to tell it again, so that prompt lookup finds the assistant's opening and its words.
std::vector<engine::ChatTurn> repeating_conversation() {
    return {{chat::Role::User, "Tell me a story."},
            {chat::Role::Assistant, "Once upon a time, there was a little girl named Lily. She liked to play "
                                    "with her red ball in the park. One day, Lily saw a big dog."},
            {chat::Role::User, "Tell me the story again."}};
}

struct Reply {
    std::string text;
    engine::TurnStats stats;
    std::vector<int32_t> cached; // the cache's tokens after the reply
};

Reply run_reply(engine::ChatSession& session, const std::vector<engine::ChatTurn>& turns,
                const engine::GenerationOptions& options) {
    Reply r;
    r.stats = session.reply(turns, options, [&](std::string_view piece) { r.text += piece; });
    r.cached = session.cache().tokens();
    return r;
}

engine::GenerationOptions greedy(int max_tokens) {
    engine::GenerationOptions options;
    options.sampling.temperature = 0;
    options.max_tokens = max_tokens;
    return options;
}

engine::SpeculationOptions lookup(int ngram = 3, int max_draft = 8) {
    engine::SpeculationOptions s;
    s.drafter = engine::SpeculationOptions::Drafter::PromptLookup;
    s.lookup_ngram = ngram;
    s.max_draft = max_draft;
    return s;
}

// Lower-case words and spaces, then a full stop: most of the vocabulary masked out at every step
// (the stories begin "Once upon a time"), and the reply ends at the stop.
std::shared_ptr<const engine::Grammar> lower_case_sentence() {
    return std::make_shared<const engine::Grammar>(
        engine::parse_gbnf(R"(root ::= [a-z ]+ ".")", "lower case"));
}

engine::SpeculationOptions draft_model(const std::string& name, int max_draft = 6) {
    engine::SpeculationOptions s;
    s.drafter = engine::SpeculationOptions::Drafter::DraftModel;
    s.draft_model_path = test::testdata("models/" + name + ".gguf");
    s.max_draft = max_draft;
    return s;
}

// Greedy speculation equals plain decoding except at a near-tie: a verify pass computes its rows
// in a batch, as a prefill does, and plain decoding one row at a time, and the two round apart
// (with quantized weights, a batch quantizes its activations otherwise). Where the top two logits
// are closer than the two roundings differ, either may win: as in the golden tests, the outputs
// agree up to the first near-tie.
constexpr float kNearTie = 0.05f;

// The first index where the two token sequences differ (or one ends before the other), -1 if none.
int32_t first_divergence(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    const size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return static_cast<int32_t>(i);
    return a.size() == b.size() ? -1 : static_cast<int32_t>(n);
}

// The gap between the two largest logits after `tokens`, and the near-tie bound for it.
struct TopTwo {
    float gap;
    float near_tie = kNearTie;
};
TopTwo top_two_gap(engine::Inference& inference, std::span<const int32_t> tokens) {
    auto cache = inference.new_cache(kContext);
    const auto logits = inference.eval(*cache, tokens);
    std::vector<float> sorted(logits.begin(), logits.end());
    std::partial_sort(sorted.begin(), sorted.begin() + 2, sorted.end(), std::greater<>());
    return {sorted[0] - sorted[1]};
}

// The largest difference between the two caches' rows, over every layer, part and position,
// relative to the larger magnitude of the row (so that F16's rounding reads the same at any scale).
double largest_row_difference(const engine::KvCache& a, const engine::KvCache& b) {
    std::vector<float> ra(static_cast<size_t>(a.kv_width())), rb(ra.size());
    double worst = 0;
    for (auto part : {engine::KvCache::Part::Keys, engine::KvCache::Part::Values})
        for (int32_t layer = 0; layer < a.n_layer(); ++layer)
            for (int32_t pos = 0; pos < a.size(); ++pos) {
                a.read_row_f32(part, layer, pos, ra.data());
                b.read_row_f32(part, layer, pos, rb.data());
                float scale = 1e-3f;
                for (size_t i = 0; i < ra.size(); ++i)
                    scale = std::max({scale, std::fabs(ra[i]), std::fabs(rb[i])});
                for (size_t i = 0; i < ra.size(); ++i)
                    worst = std::max(worst, static_cast<double>(std::fabs(ra[i] - rb[i]) / scale));
            }
    return worst;
}

bool same_row_bytes(const engine::KvCache& a, const engine::KvCache& b) {
    for (auto part : {engine::KvCache::Part::Keys, engine::KvCache::Part::Values}) {
        std::vector<unsigned char> ra(a.row_bytes(part)), rb(ra.size());
        for (int32_t layer = 0; layer < a.n_layer(); ++layer)
            for (int32_t pos = 0; pos < a.size(); ++pos) {
                a.read_row(part, layer, pos, ra.data());
                b.read_row(part, layer, pos, rb.data());
                if (ra != rb) return false;
            }
    }
    return true;
}

// The critical value of chi-square with `df` degrees of freedom at p = 0.001 (Wilson-Hilferty).
double chi_square_critical(int df) {
    const double z = 3.0902; // the standard normal's 0.999 quantile
    const double c = 2.0 / (9.0 * df);
    return df * std::pow(1.0 - c + z * std::sqrt(c), 3.0);
}

// Two samples of equal size: the chi-square statistic of their counts, categories with fewer
// than 10 together pooled into one; returns {statistic, degrees of freedom}.
std::pair<double, int> two_sample_chi_square(const std::map<int32_t, int>& a,
                                             const std::map<int32_t, int>& b) {
    std::map<int32_t, std::pair<int, int>> both;
    for (const auto& [id, n] : a)
        both[id].first += n;
    for (const auto& [id, n] : b)
        both[id].second += n;
    double statistic = 0;
    int categories = 0;
    int pooled_a = 0, pooled_b = 0;
    const auto add = [&](int x, int y) {
        statistic += double(x - y) * (x - y) / (x + y);
        ++categories;
    };
    for (const auto& [id, counts] : both) {
        if (counts.first + counts.second < 10) {
            pooled_a += counts.first;
            pooled_b += counts.second;
        } else {
            add(counts.first, counts.second);
        }
    }
    if (pooled_a + pooled_b > 0) add(pooled_a, pooled_b);
    return {statistic, categories - 1};
}

} // namespace

class TestSpeculativeDecoding : public QObject {
    Q_OBJECT
private slots:
    void cleanupTestCase() { kernels::force_isa(kernels::Isa::Scalar); }

    void prompt_lookup_finds_what_followed() {
        const std::vector<int32_t> history{5, 6, 7, 8, 9, 1, 6, 7, 8, 2, 3, 6, 7};
        std::vector<int32_t> out(3);
        // "6 7" last occurred before "8 2 3"; with n = 3, "3 6 7" never did, so n = 2 answers.
        QCOMPARE(engine::draft_by_prompt_lookup(history, 3, out), 3);
        QCOMPARE(out, (std::vector<int32_t>{8, 2, 3}));
        // Near the end, fewer tokens followed than asked for.
        const std::vector<int32_t> short_tail{4, 9, 4};
        QCOMPARE(engine::draft_by_prompt_lookup(short_tail, 1, out), 2);
        QCOMPARE(out[0], 9);
        QCOMPARE(out[1], 4);
        const std::vector<int32_t> unseen{1, 2, 3};
        QCOMPARE(engine::draft_by_prompt_lookup(unseen, 4, out), 0);
    }

    // Greedy: the reply and the cache it leaves are plain decoding's, token for token.
    void greedy_equals_plain_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("draft");
        QTest::addColumn<int>("isa");
        const std::pair<const char*, const char*> pairs[] = {{"stories260K", "stories260K-Q4_0"},
                                                             {"stories260K-Q8_0", "stories260K-Q4_0"},
                                                             {"stories260K-Q4_K_M", "stories260K-Q4_0"},
                                                             {"tiny-qwen2", "tiny-qwen2-Q8_0"},
                                                             {"tiny-qwen3", "tiny-qwen3"},
                                                             {"tiny-llama3", "tiny-llama3-Q4_K_M"},
                                                             {"tiny-gemma2", "tiny-gemma2"},
                                                             {"tiny-gemma3", "tiny-gemma3-Q8_0"},
                                                             {"tiny-phi3", "tiny-phi3"},
                                                             {"tiny-gpt2", "tiny-gpt2"},
                                                             {"tiny-qwen3moe", "tiny-qwen3moe-Q8_0"}};
#if defined(__SANITIZE_ADDRESS__)
        // Under ASan, which looks for memory errors rather than rounding, the best tier this CPU
        // runs only (every tier's kernels are checked under ASan by test_kernel_ops; the
        // instrumented scalar tier alone took most of the suite's time limit).
        kernels::Isa best = kernels::Isa::Scalar;
        for (kernels::Isa isa : kernels::kIsaTiers)
            if (kernels::kernels_for(isa) != nullptr) best = isa;
#endif
        for (kernels::Isa isa : kernels::kIsaTiers) {
#if defined(__SANITIZE_ADDRESS__)
            if (isa != best) continue;
#endif
            for (const auto& [model, draft] : pairs)
                QTest::addRow("%s/%s", model, kernels::isa_name(isa).data()) << model << draft << int(isa);
        }
    }
    void greedy_equals_plain() {
        QFETCH(QString, model);
        QFETCH(QString, draft);
        QFETCH(int, isa);
        const auto tier = static_cast<kernels::Isa>(isa);
        if (kernels::kernels_for(tier) == nullptr)
            QSKIP(qPrintable(QString::fromStdString(kernels::isa_unavailable_reason(tier))));
        kernels::force_isa(tier);
        test::LoadedModel loaded = test::load_model(model.toStdString(), 16);
        const auto turns = repeating_conversation();
        engine::ChatSession plain_session(*loaded.inference, kContext);
        // 48 tokens, fewer where learned positions end before (GPT-2's 128).
        const int kTokens =
            std::min<int>(48, loaded.inference->position_limit() -
                                  static_cast<int>(plain_session.prompt_tokens(turns, greedy(1)).size()) - 1);
        const Reply plain = run_reply(plain_session, turns, greedy(kTokens));
        QVERIFY(plain.stats.generated_tokens > 0);

        for (const auto& speculation :
             {lookup(1), lookup(3), lookup(4, 16), draft_model(draft.toStdString())}) {
            engine::GenerationOptions options = greedy(kTokens);
            options.speculation = speculation;
            engine::ChatSession session(*loaded.inference, kContext);
            const Reply spec = run_reply(session, turns, options);
            QVERIFY2(spec.stats.speculation_error.empty(), spec.stats.speculation_error.c_str());
            const int32_t divergence = first_divergence(spec.cached, plain.cached);
            if (divergence >= 0) {
                // Only a near-tie may flip (kNearTie); the replies agree up to it.
                const auto [gap, near_tie] =
                    top_two_gap(*loaded.inference, std::span(plain.cached).first(size_t(divergence)));
                qInfo(
                    "the replies part at token %d, where the top two logits are %.4f apart (near-tie: %.4f)",
                    divergence, gap, near_tie);
                QVERIFY2(gap < near_tie,
                         qPrintable(QString("a gap of %1, a near-tie below %2").arg(gap).arg(near_tie)));
                continue;
            }
            QCOMPARE(spec.text, plain.text);
            QCOMPARE(spec.stats.generated_tokens, plain.stats.generated_tokens);
            QCOMPARE(spec.stats.stop_reason, plain.stats.stop_reason);
            QVERIFY(spec.stats.accepted_tokens <= spec.stats.drafted_tokens);
            if (speculation.drafter == engine::SpeculationOptions::Drafter::DraftModel)
                QVERIFY(spec.stats.drafted_tokens > 0);
            qInfo("%s, %s: %d drafted, %d accepted in %d verify passes", qPrintable(model),
                  speculation.drafter == engine::SpeculationOptions::Drafter::DraftModel ? "draft model"
                                                                                         : "prompt lookup",
                  spec.stats.drafted_tokens, spec.stats.accepted_tokens, spec.stats.verify_passes);
        }
    }

    // On a Vulkan device (lavapipe where there is no GPU), the whole model or half its layers: the
    // verify pass's rows come back from the device, and the cut-back cache's device rows are
    // written over by the next pass. Greedy replies equal plain decoding's there too.
    void greedy_equals_plain_on_device_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("whole");
        for (const char* model : {"stories260K", "tiny-qwen2-Q8_0", "tiny-llama3-Q4_K_M"})
            for (bool whole : {true, false})
                QTest::addRow("%s/%s", model, whole ? "whole model" : "half the layers") << model << whole;
    }
    void greedy_equals_plain_on_device() {
        QFETCH(QString, model);
        QFETCH(bool, whole);
        if (!engine::vulkan_built())
            QSKIP("this build has no Vulkan backend (libvulkan-dev or glslc missing)");
        if (engine::gpu_devices().empty())
            QSKIP("no Vulkan device on this machine (not even lavapipe, mesa-vulkan-drivers)");
        auto model_file = engine::Model::load(test::testdata("models/" + model.toStdString() + ".gguf"));
        engine::InferenceOptions device_options{2, 16};
        device_options.device = {engine::ComputeDevice::Kind::Vulkan, -1};
        device_options.n_gpu_layers =
            whole ? model_file->hparams().n_layer : model_file->hparams().n_layer / 2;
        engine::Inference inference(model_file, device_options);
        QVERIFY(inference.n_gpu_layers() > 0);
        const auto turns = repeating_conversation();
        engine::ChatSession plain_session(inference, kContext);
        const Reply plain = run_reply(plain_session, turns, greedy(32));
        for (const auto& speculation : {lookup(2), draft_model(model.toStdString())}) {
            engine::GenerationOptions options = greedy(32);
            options.speculation = speculation;
            options.speculation.adaptive = false;
            engine::ChatSession session(inference, kContext);
            const Reply spec = run_reply(session, turns, options);
            QVERIFY2(spec.stats.speculation_error.empty(), spec.stats.speculation_error.c_str());
            qInfo("%d drafted, %d accepted", spec.stats.drafted_tokens, spec.stats.accepted_tokens);
            const int32_t divergence = first_divergence(spec.cached, plain.cached);
            if (divergence >= 0) {
                const auto [gap, near_tie] =
                    top_two_gap(inference, std::span(plain.cached).first(size_t(divergence)));
                qInfo(
                    "the replies part at token %d, where the top two logits are %.4f apart (near-tie: %.4f)",
                    divergence, gap, near_tie);
                if (model == "tiny-llama3-Q4_K_M" && !whole)
                    QEXPECT_FAIL(
                        "",
                        "known: with half the layers on the device, the CPU layer's keys of a verify pass's "
                        "rows round 2 F16 steps from plain decoding's (a batch against single rows), and "
                        "this "
                        "random model grows that into a 0.12 gap of the logits 12 tokens later",
                        Continue);
                QVERIFY2(gap < near_tie,
                         qPrintable(QString("a gap of %1, a near-tie below %2").arg(gap).arg(near_tie)));
                continue;
            }
            QCOMPARE(spec.text, plain.text);
        }
    }

    // After drafts were rejected, the cache holds plain decoding's tokens and rows, nothing past
    // them, and the next turn reuses it as it would plain decoding's. The rows: within the cache
    // type's rounding, or of a prefill's difference from decoding (a verify pass computes its rows
    // in a batch as a prefill does; with quantized weights a batch quantizes its activations
    // differently from a single row).
    void rollback_leaves_plain_cache_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("cache_type");
        for (const char* model : {"stories260K", "tiny-qwen2-Q8_0", "tiny-gemma3-Q8_0", "tiny-qwen3"})
            QTest::addRow("%s/f16", model) << model << int(kernels::TensorType::F16);
        // Q8_0 blocks need a head size of 32 or more.
        for (const char* model : {"tiny-qwen3", "tiny-qwen3moe-Q8_0"})
            QTest::addRow("%s/q8_0", model) << model << int(kernels::TensorType::Q8_0);
    }
    void rollback_leaves_plain_cache() {
        QFETCH(QString, model);
        QFETCH(int, cache_type);
        const auto type = static_cast<kernels::TensorType>(cache_type);
        auto model_file = engine::Model::load(test::testdata("models/" + model.toStdString() + ".gguf"));
        engine::Inference inference(model_file, engine::InferenceOptions{2, 16, {type, type}});
        auto turns = repeating_conversation();
        constexpr int kTokens = 40;

        engine::ChatSession plain_session(inference, kContext);
        engine::ChatSession spec_session(inference, kContext);
        engine::GenerationOptions spec_options = greedy(kTokens);
        // A draft model of another quantization: its drafts are mostly right, sometimes not. The
        // random models mostly repeat a token: drafts of the last token, then of another.
        spec_options.speculation = draft_model("stories260K-Q4_0", 8);
        if (model != "stories260K") {
            spec_options.speculation.drafter = engine::SpeculationOptions::Drafter::Custom;
            spec_options.speculation.custom = [](std::span<const int32_t> history, std::span<int32_t> out) {
                for (size_t i = 0; i < out.size(); ++i)
                    out[i] = i % 3 == 2 ? (history.back() + 1) % 512 : history.back();
                return static_cast<int32_t>(out.size());
            };
        }
        spec_options.speculation.adaptive = false;
        for (int turn = 0; turn < 2; ++turn) {
            const Reply plain = run_reply(plain_session, turns, greedy(kTokens));
            const Reply spec = run_reply(spec_session, turns, spec_options);
            qInfo("turn %d: %d drafted, %d accepted", turn, spec.stats.drafted_tokens,
                  spec.stats.accepted_tokens);
            QVERIFY(spec.stats.drafted_tokens > spec.stats.accepted_tokens); // some were rejected
            QCOMPARE(spec.text, plain.text);
            QCOMPARE(spec.cached, plain.cached);
            QCOMPARE(spec.stats.reused_tokens, plain.stats.reused_tokens);
            QCOMPARE(spec.stats.computed_tokens, plain.stats.computed_tokens);
            // The verify pass computes its rows in a batch, as a prefill does, plain decoding one
            // row at a time: the same tokens prefilled at once are the yardstick of that rounding.
            auto prefilled = inference.new_cache(kContext);
            inference.eval(*prefilled, plain.cached);
            const double difference = largest_row_difference(spec_session.cache(), plain_session.cache());
            const double prefill_difference = largest_row_difference(*prefilled, plain_session.cache());
            // F16 rounds to 2^-11 of a value; Q8_0 to half a step of 1/127 of its block's largest.
            const double rounding = type == kernels::TensorType::F16 ? 4 * std::ldexp(1.0, -11) : 2.0 / 127;
            const double bound = std::max(rounding, 2 * prefill_difference);
            qInfo("largest difference of a row from plain decoding's: %.3g of its scale, a prefill's %.3g "
                  "(bound %.3g), bytes %s",
                  difference, prefill_difference, bound,
                  same_row_bytes(spec_session.cache(), plain_session.cache()) ? "equal" : "differ");
            QVERIFY2(difference <= bound, qPrintable(QString::number(difference)));
            qInfo("bytes equal to a prefill's: %s",
                  same_row_bytes(spec_session.cache(), *prefilled) ? "yes" : "no");
            turns.push_back({chat::Role::Assistant, plain.text});
            turns.push_back({chat::Role::User, "And then what happened?"});
        }
    }

    // A verify pass scores each drafted token as decoding it alone does, bit for bit, where every
    // matrix has the kernel of a few rows (Q4_K and Q6_K repacked: tiny-llama3-Q4_K_M; AMX's
    // tiles start at 8 rows, this pass has 7) and the attention takes the kernels that give each
    // position decode's bits (test_attention_as_decode): head sizes 32, 48 (soft-capped, windows
    // of 8), 64 (windows of 8) and 8. Greedy speculation then cannot flip even a near-tie.
    void verify_rows_are_decode_bits_data() {
        QTest::addColumn<int>("isa");
        QTest::addColumn<QString>("model");
        for (kernels::Isa isa : kernels::kIsaTiers)
            for (const char* model : {"tiny-llama3-Q4_K_M", "tiny-gemma2", "tiny-gemma3", "stories260K",
                                      "stories260K-Q4_0", "stories260K-Q8_0", "stories260K-Q4_K_M",
                                      "tiny-qwen2-Q8_0", "tiny-gemma3-Q8_0", "tiny-qwen3moe-Q8_0"})
                QTest::addRow("%s/%s", model, kernels::isa_name(isa).data()) << int(isa) << QString(model);
    }
    void verify_rows_are_decode_bits() {
        QFETCH(int, isa);
        QFETCH(QString, model);
        const auto tier = static_cast<kernels::Isa>(isa);
        if (kernels::kernels_for(tier) == nullptr)
            QSKIP(qPrintable(QString::fromStdString(kernels::isa_unavailable_reason(tier))));
        kernels::force_isa(tier);
        test::LoadedModel loaded = test::load_model(model.toStdString(), 16);
        const int32_t n_vocab = loaded.inference->n_vocab();
        std::vector<int32_t> prompt;
        for (int32_t i = 0; i < 40; ++i)
            prompt.push_back(3 + (i * 37) % (n_vocab - 3));
        auto batched = loaded.inference->new_cache(64);
        auto single = loaded.inference->new_cache(64);
        loaded.inference->eval(*batched, prompt);
        loaded.inference->eval(*single, prompt);
        const std::vector<int32_t> pass{300, 301, 17, 450, 9, 88, 123}; // the pending token and 6 drafted
        std::vector<float> rows;
        loaded.inference->eval(*batched, pass, &rows);
        for (size_t r = 0; r < pass.size(); ++r) {
            const auto logits = loaded.inference->eval(*single, std::span<const int32_t>(&pass[r], 1));
            QVERIFY2(std::memcmp(logits.data(), rows.data() + r * size_t(n_vocab),
                                 sizeof(float) * size_t(n_vocab)) == 0,
                     qPrintable(QString("row %1 differs from its decode step").arg(r)));
        }
    }

    // A verify pass cut back by hand: the rows it keeps are the rows of the same tokens evaluated
    // in a batch without the rejected ones, byte for byte, and the cut rows are gone.
    void cut_verify_pass_equals_batch_without_rejected() {
        test::LoadedModel loaded = test::load_model("stories260K", 16);
        const std::vector<int32_t> prompt{1, 403, 407, 261, 378, 434, 500, 290, 260, 1, 402};
        auto a = loaded.inference->new_cache(64);
        auto b = loaded.inference->new_cache(64);
        loaded.inference->eval(*a, prompt);
        loaded.inference->eval(*b, prompt);
        std::vector<float> rows;
        const std::vector<int32_t> pass{300, 301, 302, 303, 304, 305}; // the pending token and 5 drafted
        loaded.inference->eval(*a, pass, &rows);
        a->truncate(static_cast<int32_t>(prompt.size()) + 3); // 2 of the drafted accepted
        loaded.inference->eval(*b, std::span<const int32_t>(pass).first(3), &rows);
        QCOMPARE(a->tokens(), b->tokens());
        QVERIFY(same_row_bytes(*a, *b));
        // The next pass writes over the cut rows: the same logits as from the uncut cache.
        const std::vector<int32_t> next{310, 311};
        const auto logits_a = loaded.inference->eval(*a, next);
        const std::vector<float> from_a(logits_a.begin(), logits_a.end());
        const auto from_b = loaded.inference->eval(*b, next);
        QVERIFY(std::equal(from_a.begin(), from_a.end(), from_b.begin(), from_b.end()));
    }

    // Sampling: the tokens of a speculative reply follow plain sampling's distribution, every
    // setting applied. Two samples of replies over disjoint seeds, compared token position by
    // position with a chi-square test at p = 0.001; a rule that accepted every drafted token
    // fails it (drafts here are accepted about half the time).
    // Under a grammar too: each drafted token is verified against the grammar's masked
    // distribution (a draw under the grammar, accepted when it is the drafted token).
    void sampled_tokens_follow_plain_distribution_data() {
        QTest::addColumn<bool>("under_grammar");
        QTest::newRow("free") << false;
        QTest::newRow("grammar") << true;
    }
    void sampled_tokens_follow_plain_distribution() {
        QFETCH(bool, under_grammar);
        test::LoadedModel loaded = test::load_model("stories260K", 16);
        const auto turns = repeating_conversation();
#if defined(__SANITIZE_ADDRESS__)
        const int kSeeds = under_grammar ? 500 : 1000; // under ASan: the same rule, a smaller sample
#else
        const int kSeeds = under_grammar ? 1500 : 3000;
#endif
        constexpr int kTokens = 4;
        engine::GenerationOptions options;
        if (under_grammar) options.grammar = lower_case_sentence();
        options.max_tokens = kTokens;
        options.sampling.temperature = 0.9f;
        options.sampling.top_k = 12;
        options.sampling.top_p = 0.97f;
        options.sampling.min_p = 0.02f;
        options.sampling.repeat_penalty = 1.2f;
        engine::GenerationOptions spec_options = options;
        // A draft model of another quantization drafts the likeliest tokens: the rule both accepts
        // and replaces them.
        spec_options.speculation = draft_model("stories260K-Q4_0", 4);
        spec_options.speculation.adaptive = false;

        engine::ChatSession session(*loaded.inference, kContext);
        const int32_t prompt_size = static_cast<int32_t>(session.prompt_tokens(turns, options).size());
        std::vector<std::map<int32_t, int>> plain_counts(kTokens), spec_counts(kTokens);
        int drafted = 0, accepted = 0;
        const auto tally = [&](const engine::GenerationOptions& o, uint64_t seed,
                               std::vector<std::map<int32_t, int>>& counts) {
            engine::GenerationOptions seeded = o;
            seeded.sampling.seed = seed;
            std::vector<int32_t> reply;
            const engine::TurnStats stats = session.reply(turns, seeded, {});
            const auto& cached = session.cache().tokens();
            // The reply's tokens: those cached after the prompt; the last one is not evaluated, and
            // an end of generation is not in the reply (counted as -1).
            for (size_t i = static_cast<size_t>(prompt_size); i < cached.size(); ++i)
                reply.push_back(cached[i]);
            for (int i = 0; i < kTokens; ++i)
                counts[static_cast<size_t>(i)]
                      [i < static_cast<int>(reply.size()) ? reply[static_cast<size_t>(i)] : -1]++;
            drafted += stats.drafted_tokens;
            accepted += stats.accepted_tokens;
        };
        for (int s = 0; s < kSeeds; ++s) {
            tally(options, 1000003ull * s + 1, plain_counts);
            tally(spec_options, 1000003ull * s + 2, spec_counts);
        }
        qInfo("speculative replies: %d tokens drafted, %d accepted", drafted, accepted);
        // The last position's token is never cached (it needs no logits): positions before it.
        for (int i = 0; i + 1 < kTokens; ++i) {
            const auto [statistic, df] = two_sample_chi_square(plain_counts[static_cast<size_t>(i)],
                                                               spec_counts[static_cast<size_t>(i)]);
            qInfo("token %d: chi-square %.1f with %d degrees of freedom (critical %.1f)", i + 1, statistic,
                  df, chi_square_critical(df));
            QVERIFY(df >= 2);
            QVERIFY2(statistic < chi_square_critical(df), qPrintable(QString("token %1").arg(i + 1)));
        }
        QVERIFY(accepted > drafted / 10);     // the acceptance branch ran
        QVERIFY(accepted < drafted * 9 / 10); // and the residual one
    }

    // Greedy under a grammar: drafts are cut where the grammar refuses them, and the reply is
    // plain decoding's under the same grammar, token for token; the draft model's drafts are used.
    void greedy_under_a_grammar_equals_plain() {
        test::LoadedModel loaded = test::load_model("stories260K", 16);
        const auto turns = repeating_conversation();
        engine::GenerationOptions base = greedy(40);
        base.grammar = lower_case_sentence();
        engine::ChatSession plain_session(*loaded.inference, kContext);
        const Reply plain = run_reply(plain_session, turns, base);
        QVERIFY(plain.stats.generated_tokens > 0);
        for (const char c : plain.text)
            QVERIFY2((c >= 'a' && c <= 'z') || c == ' ' || c == '.', plain.text.c_str());
        for (const auto& speculation : {lookup(2), draft_model("stories260K-Q8_0")}) {
            engine::GenerationOptions options = base;
            options.speculation = speculation;
            engine::ChatSession session(*loaded.inference, kContext);
            const Reply spec = run_reply(session, turns, options);
            QVERIFY(spec.stats.speculative);
            QVERIFY2(spec.stats.speculation_error.empty(), spec.stats.speculation_error.c_str());
            QCOMPARE(spec.text, plain.text);
            QCOMPARE(spec.cached, plain.cached);
            QCOMPARE(spec.stats.stop_reason, plain.stats.stop_reason);
            if (speculation.drafter == engine::SpeculationOptions::Drafter::DraftModel) {
                QVERIFY(spec.stats.drafted_tokens > 0);
                QVERIFY(spec.stats.accepted_tokens > 0);
            }
            qInfo("under the grammar, %s: %d drafted, %d accepted in %d verify passes",
                  speculation.drafter == engine::SpeculationOptions::Drafter::DraftModel ? "draft model"
                                                                                         : "prompt lookup",
                  spec.stats.drafted_tokens, spec.stats.accepted_tokens, spec.stats.verify_passes);
        }
    }

    // A draft model that cannot draft: refused with a message naming both files, and the reply
    // is plain decoding's.
    void unusable_draft_falls_back_to_plain_data() {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("draft");
        QTest::addColumn<QString>("expected");
        QTest::newRow("another vocabulary") << "stories260K"
                                            << "models/llama-2-tiny-random.gguf"
                                            << "vocabularies";
        QTest::newRow("larger than the target") << "tiny-qwen2"
                                                << "models/stories260K.gguf"
                                                << "larger";
        QTest::newRow("damaged") << "stories260K"
                                 << "damaged"
                                 << "";
        QTest::newRow("missing") << "stories260K"
                                 << "missing"
                                 << "";
    }
    void unusable_draft_falls_back_to_plain() {
        QFETCH(QString, target);
        QFETCH(QString, draft);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        std::string draft_path = test::testdata(draft.toStdString());
        if (draft == "damaged") {
            // The first half of a real file: the tensors' data runs past its end.
            const std::string whole = test::read_file(test::testdata("models/stories260K-Q8_0.gguf"));
            draft_path = dir.filePath("damaged-draft.gguf").toStdString();
            std::ofstream(draft_path, std::ios::binary)
                .write(whole.data(), static_cast<std::streamsize>(whole.size() / 2));
        } else if (draft == "missing") {
            draft_path = dir.filePath("no-such-draft.gguf").toStdString();
        }
        test::LoadedModel loaded = test::load_model(target.toStdString(), 16);
        const auto turns = repeating_conversation();
        engine::ChatSession plain_session(*loaded.inference, kContext);
        const Reply plain = run_reply(plain_session, turns, greedy(24));

        engine::GenerationOptions options = greedy(24);
        options.speculation.drafter = engine::SpeculationOptions::Drafter::DraftModel;
        options.speculation.draft_model_path = draft_path;
        engine::ChatSession session(*loaded.inference, kContext);
        for (int turn = 0; turn < 2; ++turn) { // refused again, not half-loaded, on the next reply
            const Reply spec = run_reply(session, turns, options);
            const QString message = QString::fromStdString(spec.stats.speculation_error);
            qInfo("%s", qPrintable(message));
            QVERIFY(message.contains(QString::fromStdString(draft_path)));
            if (!expected.isEmpty()) {
                QVERIFY(message.contains(expected));
                QVERIFY(message.contains(QString::fromStdString(loaded.model->path())));
            }
            QCOMPARE(spec.text, plain.text);
            QCOMPARE(spec.stats.drafted_tokens, 0);
        }
    }

    // Drafts that never pass: speculation pauses, so that few verify passes carry drafts.
    void failing_drafts_pause_speculation() {
        engine::SpeculationOptions options = lookup(1, 8);
        engine::SpeculativeDecoder decoder(options, nullptr);
        const std::vector<int32_t> history{7, 8, 7, 8, 7};
        int passes_with_drafts = 0;
        for (int i = 0; i < 400; ++i) {
            const auto drafted = decoder.draft(history, {}, 16);
            if (drafted.empty()) continue;
            ++passes_with_drafts;
            decoder.record(static_cast<int32_t>(drafted.size()), 0);
        }
        qInfo("%d of 400 passes carried drafts", passes_with_drafts);
        QVERIFY(passes_with_drafts > 0);
        QVERIFY(passes_with_drafts <= 400 / 10);
        // Drafts that pass: never paused, and the length grows to the most allowed.
        // (The first judgement asks for one plain step, to time plain decoding.)
        engine::SpeculativeDecoder good(options, nullptr);
        int good_plain_steps = 0;
        for (int i = 0; i < 100; ++i) {
            const auto drafted = good.draft(history, {}, 16);
            if (drafted.empty()) {
                ++good_plain_steps;
                good.record_plain(0.010);
                continue;
            }
            good.record(static_cast<int32_t>(drafted.size()), static_cast<int32_t>(drafted.size()));
        }
        QVERIFY(good_plain_steps <= 4);
        QCOMPARE(good.draft_length(), 8);
        // Drafts that half pass but make a step slower than plain decoding's: paused too.
        engine::SpeculativeDecoder slow(options, nullptr);
        slow.record_plain(0.010);
        int slow_passes = 0;
        for (int i = 0; i < 400; ++i) {
            const auto drafted = slow.draft(history, {}, 16);
            if (drafted.empty()) {
                slow.record_plain(0.010);
                continue;
            }
            ++slow_passes;
            // Two tokens per pass (one accepted, one more) in 0.05 s: 0.025 s a token.
            slow.record(2, 1, 0.050);
        }
        QVERIFY(slow_passes <= 400 / 10);
        // Drafting so slow that a pass would lose even with every drafted token accepted (3
        // tokens at best in 0.04 s against 0.01 s a plain step): paused after the first
        // judgement, stopped for good after the second, never tried again as a paused drafter is.
        engine::SpeculativeDecoder hopeless(options, nullptr);
        hopeless.record_plain(0.010);
        int hopeless_passes = 0;
        for (int i = 0; i < 2000; ++i) {
            const auto drafted = hopeless.draft(history, {}, 16);
            if (drafted.empty()) continue;
            ++hopeless_passes;
            hopeless.record(2, 2, 0.040);
        }
        QCOMPARE(hopeless_passes, 8);
        // And as fast per token as plain decoding, or faster: never paused, but for the first
        // step and one every 8 judgements (of 4 passes), plain, that keep plain decoding's time
        // current.
        engine::SpeculativeDecoder fast(options, nullptr);
        fast.record_plain(0.010);
        int plain_steps = 0;
        for (int i = 0; i < 100; ++i) {
            if (fast.draft(history, {}, 16).empty()) {
                ++plain_steps;
                fast.record_plain(0.010);
                continue;
            }
            fast.record(2, 1, 0.015);
        }
        QCOMPARE(plain_steps, 4);
        // A drafter that always drafts, never timed but by the first step, which goes plain: its
        // first judgement finds speculation slower (0.025 s a token against 0.010) and pauses,
        // the one after the pause stops it.
        engine::SpeculativeDecoder untimed(options, nullptr);
        int untimed_passes = 0;
        for (int i = 0; i < 200; ++i) {
            if (untimed.draft(history, {}, 16).empty()) {
                untimed.record_plain(0.010);
                continue;
            }
            ++untimed_passes;
            untimed.record(2, 1, 0.050);
        }
        QCOMPARE(untimed_passes, 8);
    }

    // A draft model's prior price is its bytes over the target's where that is less than its
    // parameters over the target's: stories260K's Q8_0 has its parameters and a third of its
    // bytes. And a draft none of whose tokens passes in its first judgement (2 passes for a draft
    // not yet shown to pay) stops for the reply, where a drafter without a model (lookup) only
    // pauses.
    void a_draft_that_never_passes_stops() {
        test::LoadedModel target = test::load_model("stories260K", 16);
        auto draft =
            engine::DraftModel::load(test::testdata("models/stories260K-Q8_0.gguf"), *target.inference, 64);
        QCOMPARE(draft->model().info().parameters, target.model->info().parameters);
        QVERIFY(draft->cost_ratio() < 0.5);
        QVERIFY(draft->cost_ratio() > 0.1);
        engine::SpeculationOptions with_model = draft_model("stories260K-Q8_0", 4);
        const std::vector<int32_t> history{1, 7, 8};
        // The drafts are judged, not the model's proposals: record() says none passed.
        for (const bool has_model : {true, false}) {
            engine::SpeculationOptions options = has_model ? with_model : lookup(1, 4);
            engine::SpeculativeDecoder decoder(options, has_model ? draft.get() : nullptr);
            int passes = 0, passes_late = 0;
            for (int i = 0; i < 2000; ++i) {
                if (has_model) {
                    if (decoder.draft(history, history, 16).empty()) {
                        decoder.record_plain(0.010);
                        continue;
                    }
                } else if (decoder.draft(std::vector<int32_t>{7, 8, 7, 8, 7}, {}, 16).empty()) {
                    decoder.record_plain(0.010);
                    continue;
                }
                ++passes;
                if (i >= 1000) ++passes_late;
                decoder.record(1, 0, 0.012);
            }
            qInfo("%s: %d passes, %d in the second half", has_model ? "draft model" : "lookup", passes,
                  passes_late);
            if (has_model) {
                QCOMPARE(passes, 2);
            } else {
                QVERIFY(passes > 8);
                QVERIFY(passes_late > 0);
            }
        }
    }

    // After a pause for not paying, the first pass is a probe: when none of its drafts passes the
    // next pause starts at once, twice as long, rather than after a window of 4 such passes. A
    // probe that passes drafting goes on.
    void a_failed_probe_pauses_again_at_once() {
        const engine::SpeculationOptions options = lookup(1, 4);
        const std::vector<int32_t> history{7, 8, 7, 8, 7};
        for (const bool probe_passes : {false, true}) {
            engine::SpeculativeDecoder decoder(options, nullptr);
            std::vector<int> pass_at; // the draft() calls that drafted
            bool paused_once = false;
            for (int i = 0; i < 300; ++i) {
                if (decoder.draft(history, {}, 16).empty()) {
                    decoder.record_plain(0.010);
                    continue;
                }
                pass_at.push_back(i);
                paused_once = paused_once || pass_at.size() > 4;
                // Drafts fail (and are slower than plain steps) until the first pause; after it
                // they fail again, or pass as fast as plain steps.
                if (probe_passes && paused_once)
                    decoder.record(1, 1, 0.010);
                else
                    decoder.record(1, 0, 0.012);
            }
            QVERIFY(pass_at.size() >= 5);
            // The first step plain (to time it), then a window of 4 passes, then a pause of 32.
            QCOMPARE(pass_at[0], 1);
            QCOMPARE(pass_at[3], 4);
            QCOMPARE(pass_at[4], 4 + 32 + 1);
            if (!probe_passes) {
                // Each probe alone, the pauses between them doubling: 64, then 128.
                QCOMPARE(pass_at.size(), size_t{7});
                QCOMPARE(pass_at[5], pass_at[4] + 64 + 1);
                QCOMPARE(pass_at[6], pass_at[5] + 128 + 1);
            } else {
                QCOMPARE(pass_at[5], pass_at[4] + 1);
                QVERIFY(pass_at.size() > 200);
            }
        }
    }

    // Bad luck judged on the decaying counts: a drafter right most of the time whose 4 passes of
    // one window all fail is not paused (a pause would cost its 32 tokens at plain speed).
    void a_window_of_bad_luck_does_not_pause() {
        const engine::SpeculationOptions options = lookup(1, 4);
        const std::vector<int32_t> history{7, 8, 7, 8, 7};
        engine::SpeculativeDecoder decoder(options, nullptr);
        int passes = 0, plain_steps = 0;
        for (int i = 0; i < 60; ++i) {
            const auto drafted = decoder.draft(history, {}, 16);
            if (drafted.empty()) {
                ++plain_steps;
                decoder.record_plain(0.010);
                continue;
            }
            ++passes;
            // The fourth window (passes 13-16) fails whole; the others pass whole.
            const bool unlucky = passes > 12 && passes <= 16;
            const auto k = static_cast<int32_t>(drafted.size());
            decoder.record(k, unlucky ? 0 : k, 0.010 + 0.002 * k);
        }
        // The first step, and one more every 8 judgements to time plain decoding: no pause.
        QVERIFY(plain_steps <= 2);
        QCOMPARE(decoder.draft_length(), 4);
    }

    // A draft model that stopped for never paying is tried again in the next reply only after a
    // wait (32 tokens, then 64, ...); until it pays it is judged after 2 passes rather than 4; once
    // it pays, the record is cleared.
    void a_draft_that_failed_a_reply_waits_in_the_next() {
        test::LoadedModel target = test::load_model("stories260K", 16);
        auto draft =
            engine::DraftModel::load(test::testdata("models/stories260K-Q8_0.gguf"), *target.inference, 64);
        const engine::SpeculationOptions options = draft_model("stories260K-Q8_0", 4);
        const std::vector<int32_t> history{1, 7, 8};
        // One reply: the draft() calls that drafted nothing before the first pass, and the passes.
        const auto reply = [&](int32_t accepted_each) {
            engine::SpeculativeDecoder decoder(options, draft.get());
            int waited = 0, passes = 0;
            for (int i = 0; i < 400; ++i) {
                if (decoder.draft(history, history, 16).empty()) {
                    decoder.record_plain(0.010);
                    if (passes == 0) ++waited;
                    continue;
                }
                ++passes;
                decoder.record(1, accepted_each, accepted_each > 0 ? 0.0105 : 0.012);
            }
            return std::pair{waited, passes};
        };
        QCOMPARE(reply(0), (std::pair{1, 2})); // a first plain step to time, then 2 passes
        QCOMPARE(draft->failed_replies(), 1);
        QVERIFY(!draft->follows_whole_history());
        QCOMPARE(reply(0), (std::pair{32, 2}));
        QCOMPARE(reply(0), (std::pair{64, 2}));
        QCOMPARE(draft->failed_replies(), 3);
        const auto paying = reply(1);
        QCOMPARE(paying.first, 128);
        QVERIFY(paying.second > 100);
        QCOMPARE(draft->failed_replies(), 0);
        QVERIFY(draft->follows_whole_history());
        // A draft shown to pay waits for nothing, and a reply where it fails is judged on 4 passes.
        QCOMPARE(reply(0), (std::pair{1, 4}));
    }

    // A draft not yet shown to pay reads what its cache already shares with the history, then
    // only the last tokens; once it pays it catches up on all of it; one tried again after
    // failing a reply reads the short view again, until it pays again.
    void a_draft_not_shown_to_pay_reads_only_the_last_tokens() {
        test::LoadedModel target = test::load_model("stories260K", 16);
        auto draft =
            engine::DraftModel::load(test::testdata("models/stories260K-Q8_0.gguf"), *target.inference, 128);
        constexpr int32_t kShortView = engine::DraftModel::kStartTokens + engine::DraftModel::kRecentTokens;
        std::vector<int32_t> history{1};
        for (int32_t i = 0; i < 59; ++i)
            history.push_back(300 + (i * 7) % 150);
        std::array<int32_t, 2> out{};
        QVERIFY(!draft->follows_whole_history());
        QCOMPARE(draft->propose(history, out), 2);
        QCOMPARE(draft->cached_tokens(), kShortView + 1); // the view, and the first drafted token
        draft->record_reply(true);
        QVERIFY(draft->follows_whole_history());
        QCOMPARE(draft->propose(history, out), 2);
        QCOMPARE(draft->cached_tokens(), 61); // the history, and the first drafted token
        draft->record_reply(false);
        QVERIFY(!draft->follows_whole_history());
        // The next reply: 40 tokens later; the draft's cache shares the first 60 with it.
        for (int32_t i = 0; i < 40; ++i)
            history.push_back(320 + (i * 11) % 150);
        QCOMPARE(draft->propose(history, out), 2);
        QCOMPARE(draft->cached_tokens(), 60 + engine::DraftModel::kRecentTokens + 1);
        // A history that shares only its first token (another conversation) keeps the start.
        std::vector<int32_t> other{1};
        for (int32_t i = 0; i < 50; ++i)
            other.push_back(260 + (i * 13) % 200);
        QCOMPARE(draft->propose(other, out), 2);
        QCOMPARE(draft->cached_tokens(), kShortView + 1);
        draft->record_reply(true);
        QCOMPARE(draft->propose(history, out), 2);
        QCOMPARE(draft->cached_tokens(), static_cast<int32_t>(history.size()) + 1);
    }

    // The draft length weighs what a pass costs: each drafted token right 80% of the time (and
    // judged once those before it passed), against passes whose drafted rows cost 0.45 of a plain
    // step each (a CPU whose decode is compute-bound, as the ymm tiers' at 2 threads) or 0.02
    // (memory-bound). Where rows are dear the acceptance rule alone (draft what would have
    // passed, and one more), judged on windows of 4 passes, drafts 2.9 a pass and gains 1.12
    // times; capped at the length that gives the most tokens a second and judged on decaying
    // sums, 1.9 and 1.26 times. Where rows are cheap the cap leaves the rule be (2.8, 2.57 times).
    void draft_length_follows_what_a_pass_costs() {
        const std::vector<int32_t> history{7};
        // A drafter with a guess for every place it is asked (the judging below decides).
        engine::SpeculationOptions options;
        options.drafter = engine::SpeculationOptions::Drafter::Custom;
        options.max_draft = 8;
        options.custom = [](std::span<const int32_t>, std::span<int32_t> out) {
            std::fill(out.begin(), out.end(), 7);
            return static_cast<int32_t>(out.size());
        };
        for (const double row_cost : {0.45, 0.02}) {
            engine::SpeculativeDecoder decoder(options, nullptr);
            std::mt19937 random(42);
            std::bernoulli_distribution passes(0.8);
            constexpr double kPlain = 0.010;
            double seconds = 0;
            int64_t tokens = 0, passes_timed = 0, drafted_total = 0;
            for (int i = 0; i < 3000; ++i) {
                const auto drafted = decoder.draft(history, {}, 16);
                if (drafted.empty()) {
                    decoder.record_plain(kPlain);
                    seconds += kPlain;
                    ++tokens;
                    continue;
                }
                const auto k = static_cast<int32_t>(drafted.size());
                int32_t accepted = 0;
                while (accepted < k && passes(random))
                    ++accepted;
                const double pass = kPlain * (1 + row_cost * k);
                decoder.record(k, accepted, pass);
                seconds += pass;
                tokens += accepted + 1;
                if (i >= 1000) {
                    ++passes_timed;
                    drafted_total += k;
                }
            }
            const double speedup = tokens * kPlain / seconds;
            const double mean_drafted =
                static_cast<double>(drafted_total) / std::max<int64_t>(1, passes_timed);
            qInfo("rows at %.2f of a step: x%.2f, %.2f drafted a pass", row_cost, speedup, mean_drafted);
            if (row_cost > 0.1) {
                QVERIFY(speedup > 1.24);
                QVERIFY(mean_drafted < 2.4);
            } else {
                QVERIFY(speedup > 2.4);
                QVERIFY(mean_drafted > 2.6);
            }
        }
    }

    // The engine's live figures: the reply's verify passes, drafted and accepted tokens as its
    // TurnStats has them, and the totals since start summing every reply.
    void metrics_count_what_was_drafted() {
        test::LoadedModel loaded = test::load_model("stories260K", 16);
        engine::EngineMetrics metrics;
        engine::ChatSession session(*loaded.inference, kContext, &metrics);
        engine::GenerationOptions options = greedy(32);
        options.speculation = lookup(2, 6);
        const Reply first = run_reply(session, repeating_conversation(), options);
        QVERIFY(first.stats.speculative);
        QVERIFY(first.stats.drafted_tokens > 0);
        engine::EngineMetricsSnapshot s = metrics.snapshot();
        QVERIFY(s.speculative);
        QCOMPARE(s.verify_passes, int64_t{first.stats.verify_passes});
        QCOMPARE(s.drafted_tokens, int64_t{first.stats.drafted_tokens});
        QCOMPARE(s.accepted_tokens, int64_t{first.stats.accepted_tokens});
        QCOMPARE(s.drafted_tokens_total, s.drafted_tokens);
        QCOMPARE(first.stats.tokens_per_verify_pass(),
                 double(first.stats.accepted_tokens + first.stats.verify_passes) / first.stats.verify_passes);

        auto turns = repeating_conversation();
        turns.push_back({chat::Role::Assistant, first.text});
        turns.push_back({chat::Role::User, "Tell me the story again."});
        const Reply second = run_reply(session, turns, options);
        s = metrics.snapshot();
        QCOMPARE(s.drafted_tokens, int64_t{second.stats.drafted_tokens});
        QCOMPARE(s.drafted_tokens_total, int64_t{first.stats.drafted_tokens} + second.stats.drafted_tokens);
        QCOMPARE(s.accepted_tokens_total,
                 int64_t{first.stats.accepted_tokens} + second.stats.accepted_tokens);
        QCOMPARE(s.verify_passes_total, int64_t{first.stats.verify_passes} + second.stats.verify_passes);

        const Reply plain = run_reply(session, repeating_conversation(), greedy(8));
        s = metrics.snapshot();
        QVERIFY(!plain.stats.speculative);
        QVERIFY(!s.speculative);
        QCOMPARE(s.drafted_tokens, int64_t{0});
        QCOMPARE(s.drafted_tokens_total, int64_t{first.stats.drafted_tokens} + second.stats.drafted_tokens);
    }

    // A runtime loads a draft model named by path once, for every conversation; one it cannot
    // load leaves a message naming it and the model, and the reply decodes plainly.
    void the_runtime_shares_its_draft_model() {
        engine::EngineRuntime runtime;
        engine::RuntimeConfig config;
        config.threads = 1;
        config.context_length = kContext;
        runtime.configure(config);
        runtime.load(test::testdata("models/stories260K.gguf"));
        const std::string draft = test::testdata("models/stories260K-Q8_0.gguf");
        const auto first = runtime.speculation_draft(draft);
        QCOMPARE(runtime.speculation_draft(draft).get(), first.get());

        engine::RuntimeRequest request;
        request.conversation = repeating_conversation();
        request.options = greedy(24);
        request.options.speculation = draft_model("stories260K-Q8_0");
        for (const char* id : {"a", "b"}) {
            request.conversation_id = id;
            const engine::TurnStats stats = runtime.run(request, {}).stats;
            QVERIFY2(stats.speculation_error.empty(), stats.speculation_error.c_str());
            QVERIFY(stats.speculative);
            QVERIFY(stats.drafted_tokens > 0);
        }
        QCOMPARE(runtime.speculation_draft(draft).get(), first.get()); // not loaded again

        QTemporaryDir dir;
        const std::string damaged = dir.filePath("damaged.gguf").toStdString();
        std::ofstream(damaged, std::ios::binary) << "GGUF and nothing of a model";
        request.conversation_id = "c";
        request.options.speculation.draft_model_path = damaged;
        const engine::TurnStats stats = runtime.run(request, {}).stats;
        QVERIFY(!stats.speculative);
        QVERIFY(stats.generated_tokens > 0);
        const QString message = QString::fromStdString(stats.speculation_error);
        QVERIFY2(message.contains(QString::fromStdString(damaged)), qPrintable(message));
        QVERIFY2(message.contains(QString::fromStdString(test::testdata("models/stories260K.gguf"))),
                 qPrintable(message));
    }
};

QTEST_MAIN(TestSpeculativeDecoding)
#include "test_speculative_decoding.moc"
