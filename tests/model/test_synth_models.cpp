// The synthesizer's shapes as the engine reads them: the full-size shapes' metadata (written
// without their weights) gives the published hyperparameters, and each shape, scaled down and
// synthesized with its real tensor layout, loads and gives finite, non-constant logits through
// prefill and decode. (The shapes' tensor lists and quantization mixes: tests/gguf/test_synth.)
#include "engine/forward/inference.h"
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/model/hparams.h"
#include "engine/model/model.h"
#include "engine/synth/synth_shape.h"
#include "engine/synth/synth_writer.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <algorithm>
#include <cmath>

using namespace hearth;

namespace {

gguf::ModelShape shape(const QString& name) {
    const auto s = gguf::find_shape(name.toStdString());
    if (!s) throw std::runtime_error("no shape " + name.toStdString());
    return *s;
}

std::shared_ptr<const gguf::GgufFile> vocab() {
    return gguf::GgufFile::open(test::testdata("vocab/ggml-vocab-phi-3.gguf"));
}

void add_shape_rows() {
    QTest::addColumn<QString>("name");
    for (const auto& s : gguf::known_shapes())
        QTest::newRow(s.name.c_str()) << QString::fromStdString(s.name);
}

} // namespace

class TestSynthModels : public QObject {
    Q_OBJECT

    std::string dir_;

private slots:
    void initTestCase() { dir_ = test::make_temp_dir("synth-models"); }

    void fullSizeHyperparams_data() { add_shape_rows(); }

    // The metadata synth writes for the full-size shape, read back by the engine.
    void fullSizeHyperparams() {
        QFETCH(QString, name);
        const gguf::ModelShape s = shape(name);
        gguf::GgufWriter writer;
        gguf::add_model_metadata(writer, s, gguf::FileType::Q4_K_M);
        const std::string path = dir_ + "/metadata-only.gguf";
        writer.write(path);
        const engine::HyperParams hp = engine::read_hyperparams(*gguf::GgufFile::open(path));

        QCOMPARE(hp.arch_name, s.architecture);
        QCOMPARE(int64_t{hp.n_embd}, s.n_embd);
        QCOMPARE(int64_t{hp.n_layer}, s.n_layer);
        QCOMPARE(int64_t{hp.n_head}, s.n_head);
        QCOMPARE(int64_t{hp.n_head_kv}, s.n_head_kv);
        QCOMPARE(int64_t{hp.head_dim}, s.head_dim());
        QCOMPARE(int64_t{hp.rope_dim}, s.rotated_dims());
        QCOMPARE(int64_t{hp.n_ff}, s.n_ff);
        QCOMPARE(int64_t{hp.n_ctx_train}, s.n_ctx);
        QCOMPARE(double(hp.rope_freq_base), s.rope_freq_base);
        QCOMPARE(int64_t{hp.n_expert}, s.experts.count);
        QCOMPARE(int64_t{hp.n_expert_used}, s.experts.used);
        if (s.experts.count > 0) QCOMPARE(int64_t{hp.n_ff_expert}, s.experts.n_ff);

        if (s.name == "gemma-3-4b") {
            // Five local layers (window 1024, RoPE base 1e4, unscaled) to one global (1e6 / 8).
            QCOMPARE(hp.sliding_window, 1024);
            for (int32_t i = 0; i < hp.n_layer; ++i)
                QCOMPARE(hp.layer_is_local(i), i % 6 != 5);
            QCOMPARE(hp.rope_freq_base_swa, 10000.0f);
            QCOMPARE(hp.rope_freq_scale, 0.125f);
            QCOMPARE(hp.rope_freq_scale_swa, 1.0f);
            QCOMPARE(hp.attention_scale, 1.0f / 16); // 1 / sqrt(256)
            QCOMPARE(hp.final_softcap, 0.0f);
        } else if (s.name == "phi-4-mini") {
            QCOMPARE(hp.n_ctx_orig, 4096);
            QVERIFY(std::abs(hp.rope_attn_factor - 1.190238f) < 1e-5f);
            // Every layer local, with a window past the context: it never masks a key.
            QCOMPARE(hp.sliding_window, 262144);
            QVERIFY(hp.has_local_layers() && hp.sliding_window >= hp.n_ctx_train);
        } else if (s.name == "qwen3-30b-a3b") {
            QCOMPARE(hp.q_width(), 4096);
            QCOMPARE(hp.kv_width(), 512);
        }
    }

    void scaledDownModelsRun_data() { add_shape_rows(); }

    // Six layers, so that Gemma 3's pattern has its global layer; 8 experts for the MoE.
    void scaledDownModelsRun() {
        QFETCH(QString, name);
        gguf::SynthOptions o;
        o.shape = gguf::scaled_down(shape(name), 256, 6, 512, 1000);
        o.file_type = gguf::FileType::Q4_K_M;
        o.threads = 2;
        o.seed = 3;
        const std::string path = dir_ + "/" + o.shape.name + ".gguf";
        gguf::synthesize(o, *vocab(), path);

        const auto model = engine::Model::load(path);
        const engine::HyperParams& hp = model->hparams();
        QCOMPARE(int64_t{hp.head_dim}, o.shape.head_dim());
        QCOMPARE(int64_t{hp.n_expert}, o.shape.experts.count);
        if (o.shape.name == "gemma-3-4b-scaled") QVERIFY(hp.layer_is_local(0) && !hp.layer_is_local(5));

        engine::Inference inference(model, engine::InferenceOptions{2, 8});
        auto cache = inference.new_cache(64);
        std::vector<int32_t> prompt;
        for (int i = 0; i < 12; ++i)
            prompt.push_back(1 + (i * 97 + 5) % (hp.n_vocab - 1));
        std::vector<float> logits;
        inference.eval(*cache, prompt, &logits); // prefill: batches of 8 and 4 rows
        for (int step = 0; step < 3; ++step) {   // decode, one row at a time
            const int32_t next = 7 + step;
            const std::span<const float> last = inference.eval(*cache, std::span<const int32_t>(&next, 1));
            logits.insert(logits.end(), last.begin(), last.end());
        }
        QCOMPARE(logits.size(), size_t(15) * size_t(hp.n_vocab));
        QVERIFY(std::all_of(logits.begin(), logits.end(), [](float v) { return std::isfinite(v); }));
        const auto [low, high] = std::minmax_element(logits.begin(), logits.end());
        QVERIFY2(*high - *low > 1e-3f, qPrintable(QString("logits span %1").arg(*high - *low)));
        // Different positions give different logits: the layers are not short-circuited.
        const size_t n = size_t(hp.n_vocab);
        QVERIFY(!std::equal(logits.begin(), logits.begin() + n, logits.begin() + n));
    }
};

QTEST_MAIN(TestSynthModels)
#include "test_synth_models.moc"
