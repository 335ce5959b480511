// Which layers are local (sliding window) when the file carries no sliding_window_pattern array,
// as real Gemma 2 and Gemma 3 files do not (the test data's tiny-gemma3 has one): llama.cpp's
// rule, layer i local unless i % n == n - 1, with Gemma 3's 5 local : 1 global (n = 6) and Gemma
// 2's alternation (n = 2). And Gemma 3's local layers keep their own RoPE: base 1e4 and no
// linear position scaling, which applies to the global layers only (llama.cpp sets
// rope_freq_scale_train_swa to 1 for gemma3).
#include "engine/forward/transformer_ops.h"
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_value.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/model/hparams.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <functional>
#include <string>
#include <vector>

using namespace hearth;

namespace {

// The metadata of a test model (no tensors), with block_count set to n_layer, the pattern array
// removed and `edit` applied; read back by read_hyperparams.
engine::HyperParams
hyperparams_of(const std::string& model, int32_t n_layer,
               const std::function<void(gguf::GgufWriter&, const std::string&)>& edit = {}) {
    const auto source = gguf::GgufFile::open(test::testdata("models/" + model + ".gguf"));
    const std::string arch = *source->get_string("general.architecture");
    gguf::GgufWriter writer;
    writer.copy_prefix(*source, "");
    writer.set(arch + ".block_count", gguf::uint32_value(static_cast<uint32_t>(n_layer)));
    writer.remove(arch + ".attention.sliding_window_pattern");
    if (edit) edit(writer, arch + ".");
    const std::string path = test::make_temp_dir("hearth-swa-pattern") + "/" + model + ".gguf";
    writer.write(path);
    const auto file = gguf::GgufFile::open(path);
    if (file->find(arch + ".attention.sliding_window_pattern"))
        throw std::runtime_error("pattern still there");
    return engine::read_hyperparams(*file);
}

} // namespace

class TestSlidingWindowPattern : public QObject {
    Q_OBJECT

private slots:
    // The test data's tiny-gemma3 declares its pattern; the rule below is for files that do not.
    void tiny_gemma3_declares_a_pattern() {
        const auto file = gguf::GgufFile::open(test::testdata("models/tiny-gemma3.gguf"));
        QVERIFY(file->get_array("gemma3.attention.sliding_window_pattern"));
    }

    void gemma3_without_a_pattern_is_five_local_to_one_global() {
        const engine::HyperParams hp = hyperparams_of("tiny-gemma3", 12);
        QCOMPARE(hp.n_layer, 12);
        QCOMPARE(hp.sliding_window, 8);
        QCOMPARE(hp.is_swa, (std::vector<uint8_t>{1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0}));
        for (int32_t layer = 0; layer < hp.n_layer; ++layer)
            QCOMPARE(hp.layer_is_local(layer), layer % 6 != 5);
    }

    // Linear scaling (Gemma 3 4B and up: rope.scaling.type linear, factor 8) turns the global
    // layers' positions only; the local layers keep base 1e4 and scale 1.
    void gemma3_linear_rope_scaling_applies_to_the_global_layers_only() {
        const engine::HyperParams hp =
            hyperparams_of("tiny-gemma3", 12, [](gguf::GgufWriter& w, const std::string& p) {
                w.set(p + "rope.scaling.type", gguf::string_value("linear"));
                w.set(p + "rope.scaling.factor", gguf::float32_value(8.0f));
            });
        QCOMPARE(hp.rope_freq_scale, 0.125f);
        QCOMPARE(hp.rope_freq_base, 1e6f);
        QCOMPARE(hp.rope_freq_scale_swa, 1.0f);
        QCOMPARE(hp.rope_freq_base_swa, 1e4f);
        for (int32_t layer = 0; layer < hp.n_layer; ++layer) {
            const engine::RopeConfig rope = engine::layer_rope(hp, layer);
            const bool global = layer % 6 == 5;
            QCOMPARE(rope.freq_scale, global ? 0.125f : 1.0f);
            QCOMPARE(rope.freq_base, global ? 1e6f : 1e4f);
        }
    }

    // Without the file's freq_base_swa, Gemma 3's local layers still turn at base 1e4.
    void gemma3_local_rope_base_defaults_to_1e4() {
        const engine::HyperParams hp =
            hyperparams_of("tiny-gemma3", 6, [](gguf::GgufWriter& w, const std::string& p) {
                w.remove(p + "rope.freq_base_swa");
            });
        QCOMPARE(hp.is_swa, (std::vector<uint8_t>{1, 1, 1, 1, 1, 0}));
        QCOMPARE(hp.rope_freq_base_swa, 1e4f);
        QCOMPARE(hp.rope_freq_base, 1e6f);
    }

    void gemma2_without_a_pattern_alternates_local_and_global() {
        const engine::HyperParams hp = hyperparams_of("tiny-gemma2", 4);
        QCOMPARE(hp.sliding_window, 8);
        QCOMPARE(hp.is_swa, (std::vector<uint8_t>{1, 0, 1, 0}));
    }
};

QTEST_GUILESS_MAIN(TestSlidingWindowPattern)
#include "test_sliding_window_pattern.moc"
