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
    const auto dequantize = kernels::reference_kernels().of(t.type).dequantize;
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
        QCOMPARE(known_shapes().size(), size_t{4});
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

    // Every weight matrix, embeddings and output included, gets the one type; vectors stay F32.
    void uniformRecipes() {
        QFETCH(FileType, file_type);
        QFETCH(int, weight_type);
        for (const auto& s : known_shapes()) {
            for (const auto& t : plan_tensors(s, file_type)) {
                const bool matrix = t.shape.size() == 2;
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
        s.tied_embeddings = f->find_tensor("output.weight") == nullptr;
        s.qkv_bias = f->find_tensor("blk.0.attn_q.bias") != nullptr;
        if (f->find_tensor("rope_freqs.weight")) s.rope_scaling.factor = 8;
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

        // Weights are small and centred, norms near one.
        const auto [w_mean, w_std] = stats(*f->find_tensor("blk.1.ffn_up.weight"));
        QVERIFY2(std::abs(w_mean) < 0.002 && w_std > 0.015 && w_std < 0.025,
                 qPrintable(QString("mean %1 std %2").arg(w_mean).arg(w_std)));
        const auto [n_mean, n_std] = stats(*f->find_tensor("blk.0.attn_norm.weight"));
        QVERIFY2(std::abs(n_mean - 1) < 0.01 && n_std < 0.05,
                 qPrintable(QString("norm mean %1").arg(n_mean)));
        if (const TensorInfo* rope = f->find_tensor("rope_freqs.weight")) {
            std::vector<float> factors(static_cast<size_t>(rope->elements()));
            std::memcpy(factors.data(), rope->data, rope->bytes);
            QCOMPARE(factors, llama3_rope_factors(o.shape));
        }
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
