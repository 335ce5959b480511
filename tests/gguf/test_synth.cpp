// The synthetic model shapes, their quantization recipes (checked against the
// layer lists llama.cpp's Q4_K_M rule gives, worked out by hand), and small
// synthesized files read back.
#include "engine/error.h"
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_value.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/synth/synth_recipe.h"
#include "engine/synth/synth_shape.h"
#include "engine/synth/synth_writer.h"
#include "kernels/kernel_table.h"
#include "kernels/reference/reference_kernels.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

using namespace hearth;
using namespace hearth::gguf;
using kernels::TensorType;

Q_DECLARE_METATYPE(hearth::gguf::FileType)

namespace {

std::map<std::string, PlannedTensor> by_name(const std::vector<PlannedTensor>& plan) {
    std::map<std::string, PlannedTensor> m;
    for (const auto& t : plan)
        m[t.name] = t;
    return m;
}

std::string blk(int i, const char* rest) {
    return "blk." + std::to_string(i) + "." + rest;
}

ModelShape shape(const char* name) {
    auto s = find_shape(name);
    if (!s) throw std::runtime_error(std::string("no shape ") + name);
    return *s;
}

// Mean and standard deviation of a tensor's values, dequantized by the reference kernels.
std::pair<double, double> stats(const TensorInfo& t) {
    const auto dequantize = kernels::reference_ops(t.type).dequantize;
    const int64_t row = t.shape[0];
    const int64_t rows = t.elements() / row;
    const size_t row_bytes = kernels::row_bytes(t.type, row);
    std::vector<float> values(static_cast<size_t>(row));
    double sum = 0, sum2 = 0;
    for (int64_t r = 0; r < rows; ++r) {
        dequantize(t.data + r * row_bytes, values.data(), row);
        for (float v : values) {
            sum += v;
            sum2 += double(v) * v;
        }
    }
    const double n = double(t.elements());
    const double mean = sum / n;
    return {mean, std::sqrt(std::max(0.0, sum2 / n - mean * mean))};
}

} // namespace

class TestSynth : public QObject {
    Q_OBJECT

    std::string dir_;

private slots:
    void initTestCase() { dir_ = test::make_temp_dir("gguf-synth"); }

    void knownShapes() {
        const ModelShape qwen = shape("qwen2.5-0.5b");
        QCOMPARE(qwen.architecture, std::string("qwen2"));
        QCOMPARE(qwen.n_embd, int64_t{896});
        QCOMPARE(qwen.n_layer, int64_t{24});
        QCOMPARE(qwen.head_dim(), int64_t{64});
        QCOMPARE(qwen.n_embd_kv(), int64_t{128});
        QVERIFY(qwen.qkv_bias && qwen.tied_embeddings);
        const ModelShape llama = shape("llama-3.2-1b");
        QCOMPARE(llama.n_vocab, int64_t{128256});
        QCOMPARE(llama.rope_freq_base, 500000.0);
        QCOMPARE(shape("smollm2-360m").n_head_kv, int64_t{5});
        QVERIFY(!shape("tinyllama-1.1b").tied_embeddings);
        QVERIFY(!find_shape("gpt-17").has_value());
        const ModelShape llama8b = shape("llama-3.1-8b");
        QCOMPARE(llama8b.n_embd, int64_t{4096});
        QCOMPARE(llama8b.n_ff, int64_t{14336});
        QCOMPARE(llama8b.n_embd_kv(), int64_t{1024});
        QVERIFY(!llama8b.tied_embeddings);
        QCOMPARE(known_shapes().size(), size_t{8});

        const ModelShape gemma = shape("gemma-3-4b");
        QCOMPARE(gemma.architecture, std::string("gemma3"));
        QCOMPARE(gemma.head_dim(), int64_t{256}); // not 2560 / 8
        QCOMPARE(gemma.n_embd_q(), int64_t{2048});
        QCOMPARE(gemma.n_embd_kv(), int64_t{1024});
        QCOMPARE(gemma.sliding_window, int64_t{1024});
        QVERIFY(gemma.qk_norm && gemma.post_norms && gemma.tied_embeddings);
        const ModelShape phi = shape("phi-4-mini");
        QCOMPARE(phi.architecture, std::string("phi3"));
        QCOMPARE(phi.head_dim(), int64_t{128});
        QCOMPARE(phi.rotated_dims(), int64_t{96});
        QCOMPARE(phi.long_rope.long_factors.size(), size_t(phi.rotated_dims() / 2));
        QCOMPARE(phi.long_rope.short_factors.size(), size_t(phi.rotated_dims() / 2));
        QVERIFY(phi.fused_qkv && phi.fused_gate_up && phi.tied_embeddings);
        const ModelShape moe = shape("qwen3-30b-a3b");
        QCOMPARE(moe.architecture, std::string("qwen3moe"));
        QCOMPARE(moe.head_dim(), int64_t{128}); // not 2048 / 32
        QCOMPARE(moe.experts.count, int64_t{128});
        QCOMPARE(moe.experts.used, int64_t{8});
        QCOMPARE(moe.experts.n_ff, int64_t{768});
        QVERIFY(moe.qk_norm && !moe.tied_embeddings);
    }

    // llama.cpp's converter: sqrt(1 + ln(131072 / 4096) / ln(4096)) for Phi-4-mini; 1 when the
    // model's context is no longer than the original.
    void longRopeAttentionFactor() {
        const LongRope& r = shape("phi-4-mini").long_rope;
        QVERIFY(std::abs(r.attn_factor(131072) - std::sqrt(1 + std::log(32.0) / std::log(4096.0))) < 1e-12);
        QVERIFY(std::abs(r.attn_factor(131072) - 1.1902380714) < 1e-9);
        QCOMPARE(r.attn_factor(4096), 1.0);
        QCOMPARE(LongRope{}.attn_factor(131072), 1.0);
    }

    // Gemma 3 4B Q4_K_M: 13 tensors a layer (Q/K norms, post-norms), every matrix whole in
    // Q4_K blocks; the tied embedding takes the output's Q6_K.
    void gemma3Q4KMRecipe() {
        const auto plan = plan_tensors(shape("gemma-3-4b"), FileType::Q4_K_M);
        QCOMPARE(plan.size(), size_t{2 + 34 * 13});
        const auto m = by_name(plan);
        QCOMPARE(m.at("token_embd.weight").type, TensorType::Q6_K);
        QCOMPARE(m.at("token_embd.weight").shape, (std::vector<int64_t>{2560, 262144}));
        QVERIFY(!m.count("output.weight"));
        // 34 layers: the first 4, the last 5 (from 7 * 34 / 8 = 29) and every third between.
        const std::set<int> more_bits = {0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 29, 30, 31, 32, 33};
        for (int i = 0; i < 34; ++i) {
            const TensorType expected = more_bits.count(i) ? TensorType::Q6_K : TensorType::Q4_K;
            QCOMPARE(m.at(blk(i, "attn_v.weight")).type, expected);
            QCOMPARE(m.at(blk(i, "ffn_down.weight")).type, expected);
            QCOMPARE(m.at(blk(i, "attn_q.weight")).shape, (std::vector<int64_t>{2560, 2048}));
            QCOMPARE(m.at(blk(i, "attn_k.weight")).shape, (std::vector<int64_t>{2560, 1024}));
            QCOMPARE(m.at(blk(i, "attn_output.weight")).shape, (std::vector<int64_t>{2048, 2560}));
            QCOMPARE(m.at(blk(i, "attn_output.weight")).type, TensorType::Q4_K);
            QCOMPARE(m.at(blk(i, "ffn_gate.weight")).shape, (std::vector<int64_t>{2560, 10240}));
            for (const char* norm : {"attn_q_norm.weight", "attn_k_norm.weight"}) {
                QCOMPARE(m.at(blk(i, norm)).shape, (std::vector<int64_t>{256}));
                QCOMPARE(m.at(blk(i, norm)).init, TensorInit::Norm);
            }
            for (const char* norm : {"post_attention_norm.weight", "post_ffw_norm.weight"}) {
                QCOMPARE(m.at(blk(i, norm)).shape, (std::vector<int64_t>{2560}));
                QCOMPARE(m.at(blk(i, norm)).type, TensorType::F32);
            }
        }
    }

    // Phi-4-mini Q4_K_M: the fused attn_qkv is quantized as attn_v is (llama.cpp counts it as
    // attention-v-like); ffn_up holds gate and up; the LongRoPE factors are F32 vectors.
    void phi4MiniQ4KMRecipe() {
        const ModelShape s = shape("phi-4-mini");
        const auto plan = plan_tensors(s, FileType::Q4_K_M);
        QCOMPARE(plan.size(), size_t{4 + 32 * 6});
        const auto m = by_name(plan);
        QCOMPARE(m.at("token_embd.weight").type, TensorType::Q6_K);
        QVERIFY(!m.count("output.weight"));
        QCOMPARE(m.at("rope_factors_long.weight").values, s.long_rope.long_factors);
        QCOMPARE(m.at("rope_factors_short.weight").values, s.long_rope.short_factors);
        QCOMPARE(m.at("rope_factors_long.weight").type, TensorType::F32);
        QCOMPARE(m.at("rope_factors_long.weight").init, TensorInit::Given);
        QVERIFY(!m.count("blk.0.attn_q.weight") && !m.count("blk.0.ffn_gate.weight"));
        const std::set<int> more_bits = {0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31};
        for (int i = 0; i < 32; ++i) {
            const TensorType expected = more_bits.count(i) ? TensorType::Q6_K : TensorType::Q4_K;
            QCOMPARE(m.at(blk(i, "attn_qkv.weight")).shape, (std::vector<int64_t>{3072, 3072 + 2 * 1024}));
            QCOMPARE(m.at(blk(i, "attn_qkv.weight")).type, expected);
            QCOMPARE(m.at(blk(i, "ffn_down.weight")).type, expected);
            QCOMPARE(m.at(blk(i, "ffn_up.weight")).shape, (std::vector<int64_t>{3072, 2 * 8192}));
            QCOMPARE(m.at(blk(i, "ffn_up.weight")).type, TensorType::Q4_K);
            QCOMPARE(m.at(blk(i, "attn_output.weight")).type, TensorType::Q4_K);
        }
        // Q3_K_M: the first two attention-v-like matrices in Q5_K, as for attn_v.
        const auto q3 = by_name(plan_tensors(s, FileType::Q3_K_M));
        QCOMPARE(q3.at("blk.1.attn_qkv.weight").type, TensorType::Q5_K);
        QCOMPARE(q3.at("blk.2.attn_qkv.weight").type, TensorType::Q4_K);
    }

    // Qwen3-30B-A3B Q4_K_M: experts as 3-D tensors, ffn_down_exps by the ffn_down rule of its
    // layer, the router kept in F32; 128 experts are not the 8-expert special case.
    void qwen3MoeQ4KMRecipe() {
        const auto plan = plan_tensors(shape("qwen3-30b-a3b"), FileType::Q4_K_M);
        QCOMPARE(plan.size(), size_t{3 + 48 * 12});
        const auto m = by_name(plan);
        QCOMPARE(m.at("token_embd.weight").type, TensorType::Q4_K);
        QCOMPARE(m.at("output.weight").type, TensorType::Q6_K);
        QCOMPARE(m.at("output.weight").shape, (std::vector<int64_t>{2048, 151936}));
        const std::set<int> more_bits = {0,  1,  2,  3,  4,  5,  8,  11, 14, 17, 20, 23,
                                         26, 29, 32, 35, 38, 41, 42, 43, 44, 45, 46, 47};
        size_t bytes = 0;
        for (const auto& t : plan) {
            int64_t elements = 1;
            for (int64_t d : t.shape)
                elements *= d;
            bytes += kernels::row_bytes(t.type, t.shape[0]) * size_t(elements / t.shape[0]);
        }
        // About 18.6 GB (17.3 GiB), as the published Q4_K_M files.
        QVERIFY2(bytes > size_t{17'500'000'000} && bytes < size_t{19'000'000'000},
                 qPrintable(QString::number(bytes)));
        for (int i = 0; i < 48; ++i) {
            const TensorType expected = more_bits.count(i) ? TensorType::Q6_K : TensorType::Q4_K;
            QCOMPARE(m.at(blk(i, "attn_v.weight")).type, expected);
            QCOMPARE(m.at(blk(i, "ffn_down_exps.weight")).type, expected);
            QCOMPARE(m.at(blk(i, "attn_k.weight")).type, TensorType::Q4_K);
            QCOMPARE(m.at(blk(i, "attn_q.weight")).shape, (std::vector<int64_t>{2048, 4096}));
            QCOMPARE(m.at(blk(i, "attn_k.weight")).shape, (std::vector<int64_t>{2048, 512}));
            QCOMPARE(m.at(blk(i, "attn_output.weight")).shape, (std::vector<int64_t>{4096, 2048}));
            QCOMPARE(m.at(blk(i, "ffn_gate_inp.weight")).shape, (std::vector<int64_t>{2048, 128}));
            QCOMPARE(m.at(blk(i, "ffn_gate_inp.weight")).type, TensorType::F32);
            QCOMPARE(m.at(blk(i, "ffn_gate_exps.weight")).shape, (std::vector<int64_t>{2048, 768, 128}));
            QCOMPARE(m.at(blk(i, "ffn_up_exps.weight")).type, TensorType::Q4_K);
            QCOMPARE(m.at(blk(i, "ffn_down_exps.weight")).shape, (std::vector<int64_t>{768, 2048, 128}));
            QCOMPARE(m.at(blk(i, "attn_q_norm.weight")).shape, (std::vector<int64_t>{128}));
            QVERIFY(!m.count(blk(i, "ffn_gate.weight")));
        }
    }

    // llama.cpp's 8-expert case (Mixtral-like): attn_k and attn_v in Q8_0, attn_output in Q5_K.
    void eightExpertRecipe() {
        ModelShape s = scaled_down(shape("qwen3-30b-a3b"), 512, 4, 512, 1000);
        QCOMPARE(s.experts.count, int64_t{8});
        const auto m = by_name(plan_tensors(s, FileType::Q4_K_M));
        QCOMPARE(m.at("blk.1.attn_v.weight").type, TensorType::Q8_0);
        QCOMPARE(m.at("blk.1.attn_k.weight").type, TensorType::Q8_0);
        QCOMPARE(m.at("blk.1.attn_output.weight").type, TensorType::Q5_K);
        QCOMPARE(m.at("blk.1.attn_q.weight").type, TensorType::Q4_K);
        const auto q5 = by_name(plan_tensors(s, FileType::Q5_K_M));
        QCOMPARE(q5.at("blk.1.attn_output.weight").type, TensorType::Q5_K); // the default, unchanged
        s.experts.count = 16;
        const auto sixteen = by_name(plan_tensors(s, FileType::Q4_K_M));
        QCOMPARE(sixteen.at("blk.1.attn_k.weight").type, TensorType::Q4_K);
        QCOMPARE(sixteen.at("blk.1.attn_output.weight").type, TensorType::Q4_K);
    }

    void fileTypeNames() {
        QCOMPARE(file_type_from_name("q4_k_m").value(), FileType::Q4_K_M);
        QCOMPARE(file_type_from_name("F16").value(), FileType::F16);
        QVERIFY(!file_type_from_name("Q4_K_X").has_value());
        for (FileType t : all_file_types())
            QCOMPARE(file_type_from_name(file_type_name(t)).value(), t);
        QCOMPARE(static_cast<uint32_t>(FileType::Q4_K_M),
                 uint32_t{15}); // llama.cpp's LLAMA_FTYPE_MOSTLY_Q4_K_M
        QCOMPARE(static_cast<uint32_t>(FileType::Q8_0), uint32_t{7});
    }

    // Qwen2.5-0.5B Q4_K_M: 896 columns are not a multiple of 256, so Q4_K falls back to
    // Q5_0 and Q6_K to Q8_0; ffn_down (4864 columns) keeps the K-quants.
    void qwenQ4KMRecipe() {
        const auto plan = plan_tensors(shape("qwen2.5-0.5b"), FileType::Q4_K_M);
        QCOMPARE(plan.size(), size_t{2 + 24 * 12});
        const auto m = by_name(plan);
        QCOMPARE(m.at("token_embd.weight").shape, (std::vector<int64_t>{896, 151936}));
        QCOMPARE(m.at("token_embd.weight").type, TensorType::Q8_0); // tied: the output's type, Q6_K -> Q8_0
        QVERIFY(!m.count("output.weight"));
        QCOMPARE(m.at("output_norm.weight").type, TensorType::F32);
        const std::set<int> more_bits = {0, 1, 2, 5, 8, 11, 14, 17, 20, 21, 22, 23};
        for (int i = 0; i < 24; ++i) {
            const bool more = more_bits.count(i) > 0;
            QCOMPARE(m.at(blk(i, "attn_q.weight")).shape, (std::vector<int64_t>{896, 896}));
            QCOMPARE(m.at(blk(i, "attn_k.weight")).shape, (std::vector<int64_t>{896, 128}));
            QCOMPARE(m.at(blk(i, "attn_v.bias")).shape, (std::vector<int64_t>{128}));
            QCOMPARE(m.at(blk(i, "ffn_down.weight")).shape, (std::vector<int64_t>{4864, 896}));
            QCOMPARE(m.at(blk(i, "attn_q.weight")).type, TensorType::Q5_0);
            QCOMPARE(m.at(blk(i, "attn_k.weight")).type, TensorType::Q5_0);
            QCOMPARE(m.at(blk(i, "attn_v.weight")).type, more ? TensorType::Q8_0 : TensorType::Q5_0);
            QCOMPARE(m.at(blk(i, "attn_output.weight")).type, TensorType::Q5_0);
            QCOMPARE(m.at(blk(i, "ffn_gate.weight")).type, TensorType::Q5_0);
            QCOMPARE(m.at(blk(i, "ffn_up.weight")).type, TensorType::Q5_0);
            QCOMPARE(m.at(blk(i, "ffn_down.weight")).type, more ? TensorType::Q6_K : TensorType::Q4_K);
            for (const char* f32 :
                 {"attn_q.bias", "attn_k.bias", "attn_v.bias", "attn_norm.weight", "ffn_norm.weight"})
                QCOMPARE(m.at(blk(i, f32)).type, TensorType::F32);
        }
    }

    void llama32Q4KMRecipe() {
        const ModelShape s = shape("llama-3.2-1b");
        const auto m = by_name(plan_tensors(s, FileType::Q4_K_M));
        QCOMPARE(m.size(), size_t{3 + 16 * 9});
        QCOMPARE(m.at("token_embd.weight").type, TensorType::Q6_K); // tied
        QCOMPARE(m.at("rope_freqs.weight").shape, (std::vector<int64_t>{32}));
        QCOMPARE(m.at("rope_freqs.weight").type, TensorType::F32);
        QVERIFY(!m.count("blk.0.attn_q.bias"));
        const std::set<int> more_bits = {0, 1, 4, 7, 10, 13, 14, 15};
        for (int i = 0; i < 16; ++i) {
            const TensorType expected = more_bits.count(i) ? TensorType::Q6_K : TensorType::Q4_K;
            QCOMPARE(m.at(blk(i, "attn_v.weight")).type, expected);
            QCOMPARE(m.at(blk(i, "ffn_down.weight")).type, expected);
            QCOMPARE(m.at(blk(i, "attn_k.weight")).shape, (std::vector<int64_t>{2048, 512}));
            QCOMPARE(m.at(blk(i, "ffn_gate.weight")).type, TensorType::Q4_K);
        }
    }

    void tinyllamaRecipes() {
        const ModelShape s = shape("tinyllama-1.1b");
        const auto q4km = by_name(plan_tensors(s, FileType::Q4_K_M));
        QCOMPARE(q4km.at("output.weight").type, TensorType::Q6_K);
        QCOMPARE(q4km.at("output.weight").shape, (std::vector<int64_t>{2048, 32000}));
        QCOMPARE(q4km.at("token_embd.weight").type, TensorType::Q4_K); // not tied: the default
        const std::set<int> more_bits = {0, 1, 4, 7, 10, 13, 16, 19, 20, 21};
        for (int i = 0; i < 22; ++i)
            QCOMPARE(q4km.at(blk(i, "ffn_down.weight")).type,
                     more_bits.count(i) ? TensorType::Q6_K : TensorType::Q4_K);

        const auto q4_0 = by_name(plan_tensors(s, FileType::Q4_0));
        QCOMPARE(q4_0.at("output.weight").type, TensorType::Q6_K);
        QCOMPARE(q4_0.at("token_embd.weight").type, TensorType::Q4_0);
        QCOMPARE(q4_0.at("blk.3.attn_v.weight").type, TensorType::Q4_0);
    }

    void uniformRecipes_data() {
        QTest::addColumn<FileType>("file_type");
        QTest::addColumn<int>("weight_type");
        QTest::newRow("Q8_0") << FileType::Q8_0 << int(TensorType::Q8_0);
        QTest::newRow("F16") << FileType::F16 << int(TensorType::F16);
        QTest::newRow("BF16") << FileType::BF16 << int(TensorType::BF16);
        QTest::newRow("F32") << FileType::F32 << int(TensorType::F32);
    }

    // Every weight matrix (experts' 3-D stacks too), embeddings and output included, gets the
    // one type; vectors and the experts' router stay F32.
    void uniformRecipes() {
        QFETCH(FileType, file_type);
        QFETCH(int, weight_type);
        for (const auto& s : known_shapes()) {
            for (const auto& t : plan_tensors(s, file_type)) {
                const bool matrix = t.shape.size() >= 2 && t.name.find("ffn_gate_inp") == std::string::npos;
                QCOMPARE(t.type, matrix ? TensorType(weight_type) : TensorType::F32);
            }
        }
    }

    // SmolLM2: 960 columns fall back everywhere but ffn_down (2560 = 10 x 256).
    void smollmFallbacks() {
        const auto m = by_name(plan_tensors(shape("smollm2-360m"), FileType::Q4_K_M));
        QCOMPARE(m.at("token_embd.weight").type, TensorType::Q8_0);
        QCOMPARE(m.at("blk.0.attn_q.weight").type, TensorType::Q5_0);
        QCOMPARE(m.at("blk.0.attn_v.weight").type, TensorType::Q8_0);
        QCOMPARE(m.at("blk.0.ffn_down.weight").type, TensorType::Q6_K);
        QCOMPARE(m.at("blk.6.ffn_down.weight").type, TensorType::Q6_K); // (6 - 32 / 8) % 3 == 2
        QCOMPARE(m.at("blk.5.ffn_down.weight").type, TensorType::Q4_K);
        QCOMPARE(m.at("blk.0.attn_k.weight").shape, (std::vector<int64_t>{960, 320}));
        // Q5_K_M: Q5_K falls back to Q5_1.
        const auto q5 = by_name(plan_tensors(shape("smollm2-360m"), FileType::Q5_K_M));
        QCOMPARE(q5.at("blk.6.attn_q.weight").type, TensorType::Q5_1);
        QCOMPARE(q5.at("blk.5.ffn_down.weight").type, TensorType::Q5_K);
    }

    void useMoreBits() {
        // The stories260K Q4_K_M file (5 layers) has its more-bits attn_v in layers 2 and 4.
        QVERIFY(!use_more_bits(0, 5));
        QVERIFY(!use_more_bits(1, 5));
        QVERIFY(use_more_bits(2, 5));
        QVERIFY(!use_more_bits(3, 5));
        QVERIFY(use_more_bits(4, 5));
    }

    // The recipe reproduces the types llama.cpp chose for the real quantized test files.
    void matchesLlamaCppFiles_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("stories260K Q4_K_M") << "stories260K-Q4_K_M.gguf";
        QTest::newRow("tiny-llama3 Q4_K_M") << "tiny-llama3-Q4_K_M.gguf";
        QTest::newRow("stories260K Q8_0") << "stories260K-Q8_0.gguf";
        QTest::newRow("tiny-qwen2 Q8_0") << "tiny-qwen2-Q8_0.gguf";
        QTest::newRow("tiny-gemma3 Q8_0") << "tiny-gemma3-Q8_0.gguf";
        QTest::newRow("tiny-gemma3") << "tiny-gemma3.gguf";
        QTest::newRow("tiny-gemma2") << "tiny-gemma2.gguf";
        QTest::newRow("tiny-qwen3") << "tiny-qwen3.gguf";
        QTest::newRow("tiny-phi3") << "tiny-phi3.gguf";
        QTest::newRow("tiny-qwen3moe") << "tiny-qwen3moe.gguf";
        QTest::newRow("tiny-qwen3moe Q8_0") << "tiny-qwen3moe-Q8_0.gguf";
    }

    void matchesLlamaCppFiles() {
        QFETCH(QString, file);
        const auto f = GgufFile::open(test::testdata("models/" + file.toStdString()));
        ModelShape s;
        const std::string arch = f->get_string("general.architecture").value();
        s.architecture = arch;
        s.n_embd = f->get_int(arch + ".embedding_length").value();
        s.n_layer = f->get_int(arch + ".block_count").value();
        s.n_head = f->get_int(arch + ".attention.head_count").value();
        s.n_head_kv = f->get_int(arch + ".attention.head_count_kv").value();
        s.n_ff = f->get_int(arch + ".feed_forward_length").value();
        s.n_vocab = int64_t(f->get_array("tokenizer.ggml.tokens")->items.size());
        s.head_size = f->get_int(arch + ".attention.key_length").value_or(0);
        s.rope_dim = f->get_int(arch + ".rope.dimension_count").value_or(0);
        s.tied_embeddings = f->find_tensor("output.weight") == nullptr;
        s.fused_qkv = f->find_tensor("blk.0.attn_qkv.weight") != nullptr;
        s.fused_gate_up = s.fused_qkv && f->find_tensor("blk.0.ffn_gate.weight") == nullptr;
        s.qkv_bias = f->find_tensor(s.fused_qkv ? "blk.0.attn_qkv.bias" : "blk.0.attn_q.bias") != nullptr;
        s.qk_norm = f->find_tensor("blk.0.attn_q_norm.weight") != nullptr;
        s.post_norms = f->find_tensor("blk.0.post_attention_norm.weight") != nullptr;
        s.experts.count = f->get_int(arch + ".expert_count").value_or(0);
        s.experts.used = f->get_int(arch + ".expert_used_count").value_or(0);
        s.experts.n_ff = f->get_int(arch + ".expert_feed_forward_length").value_or(0);
        if (f->find_tensor("rope_freqs.weight")) s.rope_scaling.factor = 8;
        if (const TensorInfo* factors = f->find_tensor("rope_factors_long.weight")) {
            s.long_rope.original_context = 1;
            s.long_rope.long_factors.resize(size_t(factors->elements()));
            s.long_rope.short_factors.resize(size_t(factors->elements()));
        }
        const auto file_type = static_cast<FileType>(f->get_int("general.file_type").value());
        const auto plan = plan_tensors(s, file_type);
        QCOMPARE(plan.size(), f->tensors().size());
        for (const auto& t : plan) {
            const TensorInfo* real = f->find_tensor(t.name);
            QVERIFY2(real != nullptr, t.name.c_str());
            QCOMPARE(real->shape, t.shape);
            QVERIFY2(real->type == t.type, qPrintable(QString::fromStdString(t.name) + ": llama.cpp chose " +
                                                      QString::number(int(real->type)) + ", plan says " +
                                                      QString::number(int(t.type))));
        }
    }

    void ropeFactors() {
        const auto factors = llama3_rope_factors(shape("llama-3.2-1b"));
        QCOMPARE(factors.size(), size_t{32});
        QCOMPARE(factors.front(), 1.0f); // highest frequency: unscaled
        QCOMPARE(factors.back(), 32.0f); // lowest: divided by the factor
        for (size_t i = 1; i < factors.size(); ++i)
            QVERIFY(factors[i] >= factors[i - 1]);
        int between = 0;
        for (float f : factors)
            between += f > 1.0f && f < 32.0f;
        QVERIFY(between > 0); // the smoothly interpolated band exists
    }

    void scaledDownKeepsTheKind() {
        const ModelShape s = scaled_down(shape("qwen2.5-0.5b"), 256, 3, 512, 1000);
        QCOMPARE(s.head_dim(), int64_t{64});
        QCOMPARE(s.n_head, int64_t{4});
        QCOMPARE(s.n_head % s.n_head_kv, int64_t{0});
        QVERIFY(s.qkv_bias && s.tied_embeddings);
        QCOMPARE(s.architecture, std::string("qwen2"));
        const auto plan = plan_tensors(s, FileType::Q4_K_M);
        QCOMPARE(plan.size(), size_t{2 + 3 * 12});
    }

    void synthesizesAScaledDownModel_data() {
        QTest::addColumn<QString>("base");
        QTest::addColumn<FileType>("file_type");
        QTest::addColumn<QString>("vocab_name");
        QTest::addColumn<bool>("exact");
        const char* spm = "ggml-vocab-llama-spm.gguf";
        QTest::newRow("llama-3.2 Q4_K_M") << "llama-3.2-1b" << FileType::Q4_K_M << spm << false;
        QTest::newRow("llama-3.2 Q4_K_M exact") << "llama-3.2-1b" << FileType::Q4_K_M << spm << true;
        QTest::newRow("qwen2.5 Q8_0") << "qwen2.5-0.5b" << FileType::Q8_0 << "ggml-vocab-phi-3.gguf" << false;
        QTest::newRow("tinyllama F16") << "tinyllama-1.1b" << FileType::F16 << spm << false;
        QTest::newRow("smollm2 Q4_0") << "smollm2-360m" << FileType::Q4_0 << spm << false;
        QTest::newRow("smollm2 Q3_K_M exact") << "smollm2-360m" << FileType::Q3_K_M << spm << true;
        const char* phi3_vocab = "ggml-vocab-phi-3.gguf";
        QTest::newRow("gemma-3 Q4_K_M") << "gemma-3-4b" << FileType::Q4_K_M << spm << false;
        QTest::newRow("phi-4-mini Q4_K_M") << "phi-4-mini" << FileType::Q4_K_M << phi3_vocab << false;
        QTest::newRow("phi-4-mini Q8_0 exact") << "phi-4-mini" << FileType::Q8_0 << phi3_vocab << true;
        QTest::newRow("qwen3-30b-a3b Q4_K_M") << "qwen3-30b-a3b" << FileType::Q4_K_M << phi3_vocab << false;
    }

    void synthesizesAScaledDownModel() {
        QFETCH(QString, base);
        QFETCH(FileType, file_type);
        QFETCH(QString, vocab_name);
        QFETCH(bool, exact);
        const auto vocab = GgufFile::open(test::testdata("vocab/" + vocab_name.toStdString()));
        const int64_t n_tokens = int64_t(vocab->get_array("tokenizer.ggml.tokens")->items.size());

        SynthOptions o;
        o.shape = scaled_down(shape(base.toUtf8().constData()), 256, 2, 512, 1000);
        o.file_type = file_type;
        o.seed = 7;
        o.threads = 2;
        o.exact = exact;
        std::vector<std::string> notes;
        const std::string path = dir_ + "/synth.gguf";
        const SynthResult result =
            synthesize(o, *vocab, path, [&](const std::string& note) { notes.push_back(note); });
        QCOMPARE(result.shape.n_vocab, n_tokens); // the vocab wins over the shape's 1000
        QCOMPARE(notes.size(), size_t{1});
        QVERIFY(notes[0].find(std::to_string(n_tokens)) != std::string::npos);

        const auto f = GgufFile::open(path);
        const std::string arch = o.shape.architecture;
        QCOMPARE(f->get_string("general.architecture").value(), arch);
        QCOMPARE(f->get_int("general.file_type").value(), int64_t(file_type));
        QCOMPARE(f->get_int(arch + ".block_count").value(), int64_t{2});
        QCOMPARE(f->get_int(arch + ".embedding_length").value(), int64_t{256});
        QCOMPARE(f->get_int(arch + ".feed_forward_length").value(), int64_t{512});
        QCOMPARE(f->get_int(arch + ".attention.head_count").value(), o.shape.n_head);
        QCOMPARE(f->get_int(arch + ".attention.head_count_kv").value(), o.shape.n_head_kv);
        QCOMPARE(f->get_int(arch + ".context_length").value(), o.shape.n_ctx);
        QCOMPARE(f->get_float(arch + ".rope.freq_base").value(), o.shape.rope_freq_base);
        QVERIFY(f->get_float(arch + ".attention.layer_norm_rms_epsilon").has_value());
        QCOMPARE(f->get_int(arch + ".rope.dimension_count").value(), o.shape.rotated_dims());
        QCOMPARE(f->get_int(arch + ".attention.key_length").value_or(0), o.shape.head_size);
        QCOMPARE(f->get_int(arch + ".expert_count").value_or(0), o.shape.experts.count);
        QCOMPARE(f->get_int(arch + ".expert_used_count").value_or(0), o.shape.experts.used);
        QCOMPARE(f->get_int(arch + ".expert_feed_forward_length").value_or(0), o.shape.experts.n_ff);
        QCOMPARE(f->get_int(arch + ".attention.sliding_window").value_or(0), o.shape.sliding_window);
        for (const auto& e : vocab->metadata()) {
            if (e.key.rfind("tokenizer.", 0) != 0) continue;
            QVERIFY2(f->find(e.key) != nullptr, e.key.c_str());
        }
        QCOMPARE(f->get_array("tokenizer.ggml.tokens")->items.size(), size_t(n_tokens));

        ModelShape planned_shape = o.shape;
        planned_shape.n_vocab = n_tokens;
        const auto plan = plan_tensors(planned_shape, file_type);
        QCOMPARE(f->tensors().size(), plan.size());
        for (size_t i = 0; i < plan.size(); ++i) {
            QCOMPARE(f->tensors()[i].name, plan[i].name);
            QCOMPARE(f->tensors()[i].shape, plan[i].shape);
            QCOMPARE(f->tensors()[i].type, plan[i].type);
        }

        // Weights are small and centred, norms near one; given vectors are written as given.
        const TensorInfo* up =
            f->find_tensor(o.shape.experts.count > 0 ? "blk.1.ffn_up_exps.weight" : "blk.1.ffn_up.weight");
        QVERIFY(up != nullptr);
        const auto [w_mean, w_std] = stats(*up);
        QVERIFY2(std::abs(w_mean) < 0.002 && w_std > 0.015 && w_std < 0.025,
                 qPrintable(QString("mean %1 std %2").arg(w_mean).arg(w_std)));
        const auto [n_mean, n_std] = stats(*f->find_tensor("blk.0.attn_norm.weight"));
        QVERIFY2(std::abs(n_mean - 1) < 0.01 && n_std < 0.05,
                 qPrintable(QString("norm mean %1").arg(n_mean)));
        int given = 0;
        for (const auto& t : plan) {
            if (t.init != TensorInit::Given) continue;
            const TensorInfo* written = f->find_tensor(t.name);
            std::vector<float> values(static_cast<size_t>(written->elements()));
            std::memcpy(values.data(), written->data, written->bytes);
            QCOMPARE(values, t.values);
            ++given;
        }
        QCOMPARE(given,
                 int(o.shape.rope_scaling.factor > 0) + 2 * int(o.shape.long_rope.original_context > 0));
        if (const TensorInfo* rope = f->find_tensor("rope_freqs.weight")) {
            std::vector<float> factors(static_cast<size_t>(rope->elements()));
            std::memcpy(factors.data(), rope->data, rope->bytes);
            QCOMPARE(factors, llama3_rope_factors(o.shape));
        }
        if (const TensorInfo* long_factors = f->find_tensor("rope_factors_long.weight")) {
            std::vector<float> factors(static_cast<size_t>(long_factors->elements()));
            std::memcpy(factors.data(), long_factors->data, long_factors->bytes);
            QCOMPARE(factors, o.shape.long_rope.long_factors);
            QCOMPARE(f->get_int(arch + ".rope.scaling.original_context_length").value(), int64_t{4096});
            QVERIFY(std::abs(*f->get_float(arch + ".rope.scaling.attn_factor") -
                             o.shape.long_rope.attn_factor(o.shape.n_ctx)) < 1e-6);
        }
    }

    // --pad-vocab: a vocab smaller than the shape is padded with unused tokens to the shape's
    // size, its own tokens, types and scores kept; one at least as large is copied as it is.
    void padsTheVocab_data() {
        QTest::addColumn<QString>("vocab_name");
        QTest::addColumn<bool>("has_scores");
        QTest::newRow("SentencePiece") << "ggml-vocab-llama-spm.gguf" << true;
        QTest::newRow("byte-level BPE") << "ggml-vocab-gpt-2.gguf" << false;
    }

    void padsTheVocab() {
        QFETCH(QString, vocab_name);
        QFETCH(bool, has_scores);
        const auto vocab = GgufFile::open(test::testdata("vocab/" + vocab_name.toStdString()));
        const Array& tokens = *vocab->get_array("tokenizer.ggml.tokens");
        const auto n_tokens = int64_t(tokens.items.size());
        QCOMPARE(vocab->get_array("tokenizer.ggml.scores") != nullptr, has_scores);

        SynthOptions o;
        o.shape = scaled_down(shape("gemma-3-4b"), 256, 1, 256, n_tokens + 100);
        o.file_type = FileType::Q8_0;
        o.threads = 2;
        o.pad_vocab = true;
        std::vector<std::string> notes;
        const std::string path = dir_ + "/padded.gguf";
        const SynthResult result =
            synthesize(o, *vocab, path, [&](const std::string& note) { notes.push_back(note); });
        QCOMPARE(result.shape.n_vocab, n_tokens + 100);
        QVERIFY(notes.empty());

        const auto f = GgufFile::open(path);
        QCOMPARE(f->find_tensor("token_embd.weight")->shape, (std::vector<int64_t>{256, n_tokens + 100}));
        const Array& padded = *f->get_array("tokenizer.ggml.tokens");
        QCOMPARE(padded.items.size(), size_t(n_tokens + 100));
        for (int64_t id = 0; id < n_tokens; ++id)
            QVERIFY(std::get<std::string>(padded.items[size_t(id)].data) ==
                    std::get<std::string>(tokens.items[size_t(id)].data));
        QCOMPARE(std::get<std::string>(padded.items.back().data),
                 "[PAD" + std::to_string(n_tokens + 99) + "]");
        const Array& types = *f->get_array("tokenizer.ggml.token_type");
        QCOMPARE(types.items.size(), size_t(n_tokens + 100));
        QCOMPARE(std::get<int64_t>(types.items.back().data), int64_t{5}); // unused
        QVERIFY(std::get<int64_t>(types.items[size_t(n_tokens - 1)].data) != 5);
        if (has_scores) {
            const Array& scores = *f->get_array("tokenizer.ggml.scores");
            QCOMPARE(scores.items.size(), size_t(n_tokens + 100));
            QCOMPARE(std::get<double>(scores.items.back().data), -1000.0);
        }

        // A shape smaller than the vocab follows the vocab even when padding is asked for.
        o.shape = scaled_down(shape("gemma-3-4b"), 256, 1, 256, n_tokens - 1);
        const SynthResult smaller =
            synthesize(o, *vocab, path, [&](const std::string& note) { notes.push_back(note); });
        QCOMPARE(smaller.shape.n_vocab, n_tokens);
        QCOMPARE(notes.size(), size_t{1});
        QCOMPARE(GgufFile::open(path)->get_array("tokenizer.ggml.tokens")->items.size(), size_t(n_tokens));
    }

    // The same seed gives the same file whatever the thread count; another seed another file.
    void deterministic_data() {
        QTest::addColumn<bool>("exact");
        QTest::newRow("block pool") << false;
        QTest::newRow("exact") << true;
    }

    void deterministic() {
        QFETCH(bool, exact);
        const auto vocab = GgufFile::open(test::testdata("vocab/ggml-vocab-llama-spm.gguf"));
        SynthOptions o;
        o.shape = scaled_down(shape("tinyllama-1.1b"), 256, 1, 256, 32000);
        o.file_type = FileType::Q4_K_M;
        o.seed = 11;
        o.exact = exact;
        o.threads = 1;
        synthesize(o, *vocab, dir_ + "/a.gguf");
        o.threads = 3;
        synthesize(o, *vocab, dir_ + "/b.gguf");
        o.seed = 12;
        synthesize(o, *vocab, dir_ + "/c.gguf");
        const std::string a = test::read_file(dir_ + "/a.gguf");
        QVERIFY(a == test::read_file(dir_ + "/b.gguf"));
        QVERIFY(a != test::read_file(dir_ + "/c.gguf"));
    }

    void rejectsAFileWithoutTokens() {
        // A file with metadata but no tokenizer: synth needs the tokens.
        SynthOptions o;
        o.shape = scaled_down(shape("qwen2.5-0.5b"), 64, 1, 64, 100);
        GgufWriter empty;
        empty.set("general.architecture", string_value("qwen2"));
        const std::string no_tokens = dir_ + "/no-tokens.gguf";
        empty.write(no_tokens);
        const auto bad = GgufFile::open(no_tokens);
        QString message;
        try {
            synthesize(o, *bad, dir_ + "/never.gguf");
        } catch (const Error& e) {
            message = e.what();
        }
        QVERIFY2(message.startsWith(QString::fromStdString(no_tokens) + ": "), qPrintable(message));
        QVERIFY2(message.contains("tokenizer.ggml.tokens"), qPrintable(message));
    }
};

QTEST_MAIN(TestSynth)
#include "test_synth.moc"
