// The architectures beyond llama and qwen (gemma2, gemma3, phi3, gpt2, qwen3moe) as the engine reads them
// from the tiny test files, and the steps that set each apart: the model picker's list of
// architectures, the traits and hyperparameters read from the metadata (sliding-window layers,
// RoPE bases, soft-caps, experts), the RoPE tables and a rotation of part of each head
// (rope.dimension_count below the head size), LongRoPE's long factors chosen past the original context,
// the learned positions' limit, and the experts' routing: top-k with renormalized weights,
// prefill grouped by expert giving decode's results, and the hits counted in each engine's live
// metrics.
// (Their logits against exact math: test_golden; a partial rotation's: test_partial_rope.)
#include "engine/error.h"
#include "engine/forward/inference.h"
#include "engine/forward/mixture_of_experts.h"
#include "engine/forward/transformer_ops.h"
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_value.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/model/model.h"
#include "engine/session/engine_metrics.h"
#include "engine/session/session_store.h"
#include "kernels/kernel_table.h"
#include "tests/model/longrope_model.h"
#include "tests/model/partial_rope_model.h"
#include "tests/support/test_support.h"
#include <QScopeGuard>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

using namespace hearth;

namespace {

std::string model_path(const std::string& name) {
    return test::testdata("models/" + name + ".gguf");
}

engine::HyperParams hparams_of(const std::string& name) {
    return engine::read_hyperparams(*gguf::GgufFile::open(model_path(name)));
}

// The hyperparameters of tiny-phi3 rotating 24 of its 32 dimensions (partial_rope_model.h).
engine::HyperParams partial_rope_hparams() {
    const std::string path = test::make_temp_dir("hearth-partial-rope") + "/partial.gguf";
    test::write_partial_rope_phi3(path);
    return engine::read_hyperparams(*gguf::GgufFile::open(path));
}

// The logits after every token of `tokens`, evaluated in batches of n_batch rows.
std::vector<float> all_logits(const std::shared_ptr<const engine::Model>& model,
                              const std::vector<int32_t>& tokens, int32_t n_batch, int32_t n_ctx) {
    engine::Inference inference(model, engine::InferenceOptions{2, n_batch});
    auto cache = inference.new_cache(n_ctx);
    std::vector<float> logits;
    inference.eval(*cache, tokens, &logits);
    return logits;
}

std::vector<int32_t> some_tokens(int n, int32_t n_vocab) {
    std::vector<int32_t> tokens;
    for (int i = 0; i < n; ++i)
        tokens.push_back(1 + (i * 37 + 11) % (n_vocab - 1));
    return tokens;
}

double max_difference(const std::vector<float>& a, const std::vector<float>& b) {
    double worst = 0;
    for (size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, double(std::abs(a[i] - b[i])));
    return worst;
}

} // namespace

class TestArchitectures : public QObject {
    Q_OBJECT

private slots:
    // The model picker's list comes from architecture_from_name / supported_architectures: every
    // name it shows is accepted, and every test file's architecture is in it.
    void picker_lists_every_architecture() {
        const std::string listed = engine::supported_architectures();
        for (const char* name : {"llama", "qwen2", "qwen3", "gemma2", "gemma3", "phi3", "gpt2", "qwen3moe"}) {
            QVERIFY2(engine::architecture_from_name(name).has_value(), name);
            QVERIFY2(listed.find(name) != std::string::npos, name);
        }
        QVERIFY(!engine::architecture_from_name("gemma4"));
        for (const char* file : {"tiny-gemma2", "tiny-gemma3", "tiny-phi3", "tiny-gpt2", "tiny-qwen3moe"}) {
            const engine::ModelInfo info = engine::Model::read_info(model_path(file));
            QVERIFY2(listed.find(info.architecture) != std::string::npos, file);
        }
    }

    // What each file declares, as the forward pass will read it.
    void gemma2_hyperparameters() {
        const engine::HyperParams hp = hparams_of("tiny-gemma2");
        QCOMPARE(hp.traits.ffn, engine::FfnKind::GeluGated);
        QVERIFY(hp.traits.post_norms && hp.traits.scale_embeddings && hp.rope_neox);
        QCOMPARE(hp.head_dim, 48); // key_length, not 128 / 4
        QCOMPARE(hp.attn_softcap, 5.0f);
        QCOMPARE(hp.final_softcap, 30.0f);
        QCOMPARE(hp.sliding_window, 8);
        // llama.cpp's Gemma 2 pattern: even layers local.
        QCOMPARE(hp.is_swa, (std::vector<uint8_t>{1, 0}));
        QCOMPARE(hp.attention_scale, 1.0f / std::sqrt(48.0f));
        QCOMPARE(hp.rope_freq_base_swa, hp.rope_freq_base);
        const engine::LayerAttention local = engine::layer_attention(hp, 0),
                                     global = engine::layer_attention(hp, 1);
        QCOMPARE(local.limits.window, int64_t{8});
        QCOMPARE(global.limits.window, int64_t{0});
        QCOMPARE(global.limits.softcap, 5.0f);
    }
    void gemma3_hyperparameters() {
        const engine::HyperParams hp = hparams_of("tiny-gemma3");
        QVERIFY(hp.traits.qk_norm && hp.traits.post_norms);
        QCOMPARE(hp.attn_softcap, 0.0f);
        QCOMPARE(hp.final_softcap, 0.0f);
        QCOMPARE(hp.is_swa, (std::vector<uint8_t>{1, 0})); // the file's sliding_window_pattern
        QCOMPARE(hp.rope_freq_base_swa, 10000.0f);
        QCOMPARE(hp.rope_freq_base, 1000000.0f);
        QCOMPARE(engine::local_rope(hp).freq_base, 10000.0f);
        QCOMPARE(engine::global_rope(hp).freq_base, 1000000.0f);
        QCOMPARE(hp.n_head_kv, 1);
    }
    void phi3_hyperparameters() {
        const engine::HyperParams hp = hparams_of("tiny-phi3");
        QVERIFY(hp.traits.fused_qkv && hp.traits.fused_gate_up && hp.rope_neox);
        // The declared window, on every layer (llama.cpp ignores it).
        QCOMPARE(hp.sliding_window, 2047);
        QCOMPARE(hp.is_swa, (std::vector<uint8_t>{1, 1}));
        const engine::LayerAttention how = engine::layer_attention(hp, 1);
        QCOMPARE(how.limits.window, int64_t{2047});
        const auto model = engine::Model::load(model_path("tiny-phi3"));
        const engine::LayerWeights& l = model->weights().layers[0];
        // Row ranges of the fused matrices: Q, K, V; gate then up.
        QCOMPARE(l.wq.rows, int64_t{hp.q_width()});
        QCOMPARE(l.wk.rows, int64_t{hp.kv_width()});
        QCOMPARE(l.w_gate.rows, int64_t{hp.n_ff});
        QCOMPARE(l.w_up.rows, int64_t{hp.n_ff});
        QVERIFY(l.w_up.data > l.w_gate.data);
    }
    void gpt2_hyperparameters() {
        const engine::HyperParams hp = hparams_of("tiny-gpt2");
        QCOMPARE(hp.traits.norm, engine::NormKind::LayerNorm);
        QCOMPARE(hp.traits.positions, engine::PositionKind::Learned);
        QCOMPARE(hp.traits.ffn, engine::FfnKind::Gelu);
        QCOMPARE(hp.rms_eps, 1e-5f); // attention.layer_norm_epsilon
        const auto model = engine::Model::load(model_path("tiny-gpt2"));
        QCOMPARE(model->weights().n_positions, 128);
        QVERIFY(model->weights().output.data == model->weights().token_embd.data); // tied
    }
    void qwen3moe_hyperparameters() {
        const engine::HyperParams hp = hparams_of("tiny-qwen3moe");
        QCOMPARE(hp.traits.ffn, engine::FfnKind::MixtureOfExperts);
        QCOMPARE(hp.n_expert, 8);
        QCOMPARE(hp.n_expert_used, 2);
        QCOMPARE(hp.n_ff_expert, 64);
        QCOMPARE(hp.head_dim, 64);
        const auto model = engine::Model::load(model_path("tiny-qwen3moe"));
        const engine::LayerWeights& l = model->weights().layers[1];
        QCOMPARE(l.experts.size(), size_t{8});
        QCOMPARE(l.experts[3].w_gate.rows, int64_t{64});
        QCOMPARE(l.experts[3].w_down.rows, int64_t{hp.n_embd});
    }

    // GELU by llama.cpp's tanh approximation, against its formula in double.
    void gelu_is_the_tanh_approximation() {
        for (float x : {-6.0f, -1.5f, -0.3f, 0.0f, 0.2f, 1.0f, 3.7f}) {
            const double xd = x;
            const double want =
                0.5 * xd * (1 + std::tanh(std::sqrt(2 / M_PI) * (xd + 0.044715 * xd * xd * xd)));
            QVERIFY2(std::abs(engine::gelu(x) - want) <= 1e-6 * std::max(1.0, std::abs(want)),
                     qPrintable(QString::number(x)));
        }
    }

    // LayerNorm against its definition in double.
    void layer_norm_matches_its_definition() {
        const std::vector<float> x{0.5f, -1.25f, 3.0f, 2.0f, -0.75f, 0.0f};
        const std::vector<float> w{1.0f, 0.5f, 2.0f, -1.0f, 1.5f, 1.0f},
            b{0.1f, 0.0f, -0.2f, 0.3f, 0.0f, 1.0f};
        std::vector<float> out(x.size());
        engine::layer_norm_rows(x.data(), w.data(), b.data(), 1, 6, 1e-5f, out.data());
        const double mean = std::accumulate(x.begin(), x.end(), 0.0) / 6;
        double var = 0;
        for (float v : x)
            var += (v - mean) * (v - mean);
        var /= 6;
        for (size_t i = 0; i < x.size(); ++i) {
            const double want = (x[i] - mean) / std::sqrt(var + 1e-5) * w[i] + b[i];
            QVERIFY(std::abs(out[i] - want) < 1e-5);
        }
    }

    // RoPE tables with per-pair factors and LongRoPE's attention factor, against their definition:
    // cos/sin(pos * scale * base^(-2i/d) / factor_i) * attn_factor, where d is the number of
    // rotated dimensions: the whole head (tiny-phi3), or part of it (rope.dimension_count below
    // the head size, as Phi-4-mini declares 96 of 128).
    void rope_tables_with_factors_and_attention_factor_data() {
        QTest::addColumn<bool>("partial");
        QTest::newRow("whole head") << false;
        QTest::newRow("24 of 32 dimensions") << true;
    }
    void rope_tables_with_factors_and_attention_factor() {
        QFETCH(bool, partial);
        const engine::HyperParams hp = partial ? partial_rope_hparams() : hparams_of("tiny-phi3");
        QCOMPARE(hp.rope_dim < hp.head_dim, partial);
        const int32_t pairs = hp.rope_dim / 2;
        std::vector<float> factors(static_cast<size_t>(pairs));
        for (int32_t i = 0; i < pairs; ++i)
            factors[static_cast<size_t>(i)] = 1.0f + 0.5f * i;
        const engine::RopeConfig config{10000.0f, 0.5f, 1.19f};
        std::vector<float> table(static_cast<size_t>(3 * hp.rope_dim));
        engine::rope_tables(hp, config, factors.data(), 100, 3, table.data());
        for (int t = 0; t < 3; ++t)
            for (int32_t i = 0; i < pairs; ++i) {
                const double theta =
                    (100 + t) * 0.5 * std::pow(10000.0, -2.0 * i / hp.rope_dim) / factors[size_t(i)];
                const float* cs = table.data() + t * hp.rope_dim + 2 * i;
                QVERIFY2(std::abs(cs[0] - 1.19 * std::cos(theta)) < 1e-4 &&
                             std::abs(cs[1] - 1.19 * std::sin(theta)) < 1e-4,
                         qPrintable(QString("position %1, pair %2").arg(100 + t).arg(i)));
            }
    }

    // A partial rotation turns value i of each head with value i + rope_dim / 2 (NeoX pairs, as
    // phi3 has them) by position * base^(-2i / rope_dim), and leaves the head's last
    // head_dim - rope_dim values as they are.
    void partial_rotation_turns_the_first_dimensions_only() {
        const engine::HyperParams hp = partial_rope_hparams();
        QVERIFY(hp.rope_neox);
        QCOMPARE(hp.rope_dim, int32_t(test::kPartialRopeDims));
        QCOMPARE(hp.head_dim, 32);
        constexpr int32_t kPosition = 7, kHeads = 2;
        std::vector<float> tables(static_cast<size_t>(hp.rope_dim));
        const std::vector<float> no_factors = engine::rope_frequency_factors(hp, {});
        engine::rope_tables(hp, engine::RopeConfig{hp.rope_freq_base}, no_factors.data(), kPosition, 1,
                            tables.data());
        std::vector<float> x(static_cast<size_t>(kHeads * hp.head_dim));
        for (size_t i = 0; i < x.size(); ++i)
            x[i] = std::sin(0.7f * float(i) + 0.3f);
        std::vector<float> rotated = x;
        engine::apply_rope(hp, tables.data(), 1, rotated.data(), kHeads);
        const int32_t pairs = hp.rope_dim / 2;
        for (int32_t h = 0; h < kHeads; ++h) {
            const size_t head = static_cast<size_t>(h * hp.head_dim);
            for (int32_t i = 0; i < pairs; ++i) {
                const double theta = kPosition * std::pow(double(hp.rope_freq_base), -2.0 * i / hp.rope_dim);
                const double x0 = x[head + size_t(i)], x1 = x[head + size_t(i + pairs)];
                QVERIFY2(std::abs(rotated[head + size_t(i)] - (x0 * std::cos(theta) - x1 * std::sin(theta))) <
                                 1e-5 &&
                             std::abs(rotated[head + size_t(i + pairs)] -
                                      (x0 * std::sin(theta) + x1 * std::cos(theta))) < 1e-5,
                         qPrintable(QString("head %1, pair %2").arg(h).arg(i)));
            }
            for (int32_t i = hp.rope_dim; i < hp.head_dim; ++i)
                QCOMPARE(rotated[head + size_t(i)], x[head + size_t(i)]);
        }
    }

    // LongRoPE: a context longer than the original one takes the long factors. A file whose short
    // factors are another's long ones gives, at a short context, bit for bit what the other gives
    // at a long context; at a short context the two files differ (so the factors are used).
    void longrope_switches_to_long_factors_past_the_original_context() {
        const std::string dir = test::make_temp_dir("hearth-longrope");
        const engine::HyperParams hp = hparams_of("tiny-phi3");
        const size_t pairs = static_cast<size_t>(hp.rope_dim / 2);
        std::vector<float> short_factors(pairs), long_factors(pairs);
        for (size_t i = 0; i < pairs; ++i) {
            short_factors[i] = 1.0f + 0.05f * float(i);
            long_factors[i] = 1.0f + 0.9f * float(i);
        }
        constexpr int32_t kOriginal = 32;
        test::write_longrope_phi3(dir + "/a.gguf", short_factors, long_factors, kOriginal, 1.1f);
        test::write_longrope_phi3(dir + "/b.gguf", long_factors, long_factors, kOriginal, 1.1f);
        const auto a = engine::Model::load(dir + "/a.gguf");
        const auto b = engine::Model::load(dir + "/b.gguf");
        QCOMPARE(a->hparams().n_ctx_orig, kOriginal);
        QCOMPARE(a->hparams().rope_attn_factor, 1.1f);
        // 40 tokens: past the original context, as the switch needs.
        const std::vector<int32_t> tokens = some_tokens(40, a->hparams().n_vocab);
        const std::vector<float> a_long = all_logits(a, tokens, 64, 64);
        const std::vector<float> b_short_context = all_logits(b, tokens, 64, kOriginal + 8);
        QVERIFY(std::memcmp(a_long.data(), b_short_context.data(), a_long.size() * sizeof(float)) == 0);
        const std::vector<float> a_short =
            all_logits(a, std::vector<int32_t>(tokens.begin(), tokens.begin() + 30), 64, kOriginal);
        const std::vector<float> b_short =
            all_logits(b, std::vector<int32_t>(tokens.begin(), tokens.begin() + 30), 64, kOriginal);
        QVERIFY(max_difference(a_short, b_short) > 1e-3);
        // The original tiny-phi3 (no factors) differs from a file with factors of 1 only by the
        // attention factor, which scales the rotated Q and K.
        test::write_longrope_phi3(dir + "/ones.gguf", std::vector<float>(pairs, 1.0f),
                                  std::vector<float>(pairs, 1.0f), kOriginal, 1.0f);
        const auto ones = engine::Model::load(dir + "/ones.gguf");
        const auto plain = engine::Model::load(model_path("tiny-phi3"));
        const std::vector<int32_t> few(tokens.begin(), tokens.begin() + 12);
        const std::vector<float> with_ones = all_logits(ones, few, 64, 64),
                                 without = all_logits(plain, few, 64, 64);
        QVERIFY(std::memcmp(with_ones.data(), without.data(), with_ones.size() * sizeof(float)) == 0);
    }

    // Phi-3's window, shrunk to 8 keys in a copy of tiny-phi3: after two windowed layers the last
    // position depends on the last 15 tokens only (each layer reaches 7 keys further back), so a
    // token 20 back changes none of its logits' bits, and one 10 back does; the same file
    // without the window (and the window at the file's 2047, which a 40-token prompt never
    // reaches) lets the early token in.
    void phi3_window_bounds_what_a_position_sees() {
        const std::string dir = test::make_temp_dir("hearth-phi3-window");
        const auto source = gguf::GgufFile::open(model_path("tiny-phi3"));
        const auto write_with_window = [&](const std::string& path, uint32_t window) {
            gguf::GgufWriter writer;
            writer.copy_prefix(*source, "");
            writer.set("phi3.attention.sliding_window", gguf::uint32_value(window));
            writer.copy_tensors(*source);
            writer.write(path);
        };
        write_with_window(dir + "/window8.gguf", 8);
        const auto windowed = engine::Model::load(dir + "/window8.gguf");
        const auto plain = engine::Model::load(model_path("tiny-phi3"));
        QCOMPARE(windowed->hparams().sliding_window, 8);
        const int32_t n_vocab = windowed->hparams().n_vocab;
        const std::vector<int32_t> tokens = some_tokens(40, n_vocab);
        const auto last_logits = [&](const std::shared_ptr<const engine::Model>& model,
                                     std::vector<int32_t> input, int changed_back) {
            if (changed_back > 0) {
                int32_t& token = input[input.size() - 1 - static_cast<size_t>(changed_back)];
                token = 1 + token % (n_vocab - 1);
            }
            const std::vector<float> all = all_logits(model, input, 64, 64);
            return std::vector<float>(all.end() - n_vocab, all.end());
        };
        const std::vector<float> base = last_logits(windowed, tokens, 0);
        const std::vector<float> far_changed = last_logits(windowed, tokens, 20);
        QVERIFY(std::memcmp(base.data(), far_changed.data(), base.size() * sizeof(float)) == 0);
        QVERIFY(max_difference(base, last_logits(windowed, tokens, 10)) > 1e-4);
        QVERIFY(max_difference(last_logits(plain, tokens, 0), last_logits(plain, tokens, 20)) > 1e-4);
        // Past the window, the windowed file is another model; within it, the same one.
        QVERIFY(max_difference(base, last_logits(plain, tokens, 0)) > 1e-4);
        const std::vector<int32_t> first(tokens.begin(), tokens.begin() + 8);
        QVERIFY(max_difference(last_logits(windowed, first, 0), last_logits(plain, first, 0)) < 1e-6);
    }

    // GPT-2's learned positions end at its table: a context past it is refused, not read out of bounds.
    void learned_positions_refuse_a_context_past_their_table() {
        const auto model = engine::Model::load(model_path("tiny-gpt2"));
        engine::Inference inference(model, engine::InferenceOptions{2, 64});
        auto cache = inference.new_cache(200);
        const std::vector<int32_t> tokens = some_tokens(129, model->hparams().n_vocab);
        QVERIFY_THROWS_EXCEPTION(Error, inference.eval(*cache, tokens));
        inference.eval(*cache, std::span<const int32_t>(tokens.data(), 128));
        QCOMPARE(cache->size(), 128);
    }

    // Top k of the router's probabilities, ties to the lower index, weights renormalized.
    void experts_are_the_top_k_renormalized() {
        const std::vector<float> p{0.05f, 0.30f, 0.10f, 0.30f, 0.25f, 0.0f, 0.0f, 0.0f};
        int32_t chosen[3];
        float weights[3];
        engine::choose_experts(p.data(), 1, 8, 3, chosen, weights);
        QCOMPARE(chosen[0], 1);
        QCOMPARE(chosen[1], 3);
        QCOMPARE(chosen[2], 4);
        QVERIFY(std::abs(weights[0] - 0.30f / 0.85f) < 1e-6f);
        QVERIFY(std::abs(weights[2] - 0.25f / 0.85f) < 1e-6f);
        QVERIFY(std::abs(weights[0] + weights[1] + weights[2] - 1.0f) < 1e-6f);
    }

    void prefill_grouped_by_expert_gives_decode_results_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("tiny-qwen3moe") << "tiny-qwen3moe";
        QTest::newRow("tiny-qwen3moe-Q8_0") << "tiny-qwen3moe-Q8_0";
    }
    // A prompt in one batch (tokens grouped by expert, each expert's rows read once) and token by
    // token (only the chosen experts' rows) give the same logits up to the batch's other order of
    // sums (and, quantized, the same activation rounding: per row).
    // On the AMX tier, prefill attention cuts the softmax weights to 16 bits (attention_amx.cpp)
    // where decode's keeps them whole, and Q8_0's rounding of the activations can turn that 2^-15
    // into whole quanta (measured: 0.24 on tiny-qwen3moe-Q8_0's logits, 2e-6 with whole weights).
    // The grouping by experts is what this test is about: there the quantized model runs on the
    // AVX-512 tier, whose prefill and decode attention agree within 5e-7 (the F32 one stays on
    // AMX).
    void prefill_grouped_by_expert_gives_decode_results() {
        QFETCH(QString, model);
        const kernels::Isa tier = kernels::active_kernels().isa;
        const bool quantized = model.endsWith("Q8_0");
        if (quantized && tier == kernels::Isa::Amx) kernels::force_isa(kernels::Isa::Avx512);
        const auto restore = qScopeGuard([tier] { kernels::force_isa(tier); });
        const auto loaded = engine::Model::load(model_path(model.toStdString()));
        const std::vector<int32_t> tokens = some_tokens(24, loaded->hparams().n_vocab);
        const std::vector<float> batched = all_logits(loaded, tokens, 64, 64);
        engine::Inference inference(loaded, engine::InferenceOptions{2, 64});
        auto cache = inference.new_cache(64);
        std::vector<float> one_by_one;
        for (int32_t t : tokens) {
            const std::span<const float> logits = inference.eval(*cache, std::span<const int32_t>(&t, 1));
            one_by_one.insert(one_by_one.end(), logits.begin(), logits.end());
        }
        QCOMPARE(one_by_one.size(), batched.size());
        const double difference = max_difference(batched, one_by_one);
        qInfo("%s: largest difference %g", qPrintable(model), difference);
        QVERIFY(difference < 2e-3);
    }

    // Every token's k choices are counted per layer, by the forward pass that ran them, and the
    // live metrics of the engine it belongs to show them: a second engine in the same process
    // (the window and hearth-cli serve, two tests) counts its own.
    void expert_hits_are_counted_per_engine() {
        const auto loaded = engine::Model::load(model_path("tiny-qwen3moe"));
        const engine::HyperParams& hp = loaded->hparams();
        engine::SessionStoreOptions options;
        options.n_ctx = 128;
        engine::Inference first(loaded, engine::InferenceOptions{2, 8});
        engine::Inference second(loaded, engine::InferenceOptions{2, 8});
        engine::EngineMetrics first_metrics, second_metrics;
        auto first_store = std::make_unique<engine::SessionStore>(first, options, first_metrics);
        engine::SessionStore second_store(second, options, second_metrics);
        // Per layer, the hits summed over its experts; empty when the figures are not of this model.
        const auto hits_per_layer = [&](const engine::EngineMetricsSnapshot& metrics) {
            std::vector<int64_t> sums;
            if (metrics.expert_layers != hp.n_layer || metrics.expert_count != hp.n_expert ||
                metrics.expert_hits.size() != size_t(hp.n_layer * hp.n_expert))
                return sums;
            for (int32_t layer = 0; layer < hp.n_layer; ++layer)
                sums.push_back(std::accumulate(metrics.expert_hits.begin() + layer * hp.n_expert,
                                               metrics.expert_hits.begin() + (layer + 1) * hp.n_expert,
                                               int64_t{0}));
            return sums;
        };
        const auto every_layer = [&](int64_t hits) { return std::vector<int64_t>(size_t(hp.n_layer), hits); };
        QCOMPARE(hits_per_layer(first_metrics.snapshot()), every_layer(0));

        // 22 tokens through the first engine's forward pass: batches of 8, 7, 6 rows, then one.
        auto cache = first.new_cache(64);
        first.eval(*cache, some_tokens(21, hp.n_vocab));
        const int32_t next = 5;
        first.eval(*cache, std::span<const int32_t>(&next, 1));
        const engine::EngineMetricsSnapshot counted = first_metrics.snapshot();
        QCOMPARE(hits_per_layer(counted), every_layer(22 * hp.n_expert_used));
        for (int32_t layer = 0; layer < hp.n_layer; ++layer) // the tokens do not all pick the same experts
            QVERIFY(std::count_if(counted.expert_hits.begin() + layer * hp.n_expert,
                                  counted.expert_hits.begin() + (layer + 1) * hp.n_expert,
                                  [](int64_t hits) { return hits > 0; }) > hp.n_expert_used);
        QCOMPARE(hits_per_layer(second_metrics.snapshot()), every_layer(0));

        // A turn of the second engine, through its session store, counts there alone.
        engine::GenerationOptions greedy;
        greedy.sampling.temperature = 0;
        greedy.max_tokens = 4;
        const std::vector<engine::ChatTurn> conversation = {{chat::Role::User, "Which expert?"}};
        const engine::TurnStats turn =
            second_store
                .run_turn({.conversation_id = "a", .conversation = conversation, .options = greedy}, nullptr)
                .stats;
        QVERIFY(turn.computed_tokens > 0);
        const std::vector<int64_t> second_hits = hits_per_layer(second_metrics.snapshot());
        QVERIFY(second_hits.front() >= int64_t{turn.computed_tokens} * hp.n_expert_used);
        QCOMPARE(second_hits, every_layer(second_hits.front()));
        QCOMPARE(hits_per_layer(first_metrics.snapshot()), every_layer(22 * hp.n_expert_used));

        // Once the engine's sessions are gone, its sink shows no experts; nor does a dense model's.
        first_store.reset();
        QCOMPARE(first_metrics.snapshot().expert_layers, 0);
        QVERIFY(first_metrics.snapshot().expert_hits.empty());
        engine::Inference dense(engine::Model::load(model_path("tiny-gemma3")),
                                engine::InferenceOptions{2, 8});
        QVERIFY(!dense.expert_hits());
        engine::EngineMetrics dense_metrics;
        engine::SessionStore dense_store(dense, options, dense_metrics);
        QCOMPARE(dense_metrics.snapshot().expert_layers, 0);
    }
};

QTEST_GUILESS_MAIN(TestArchitectures)
#include "test_architectures.moc"
