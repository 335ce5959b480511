// Model::load checks what the architecture needs beyond a well-formed GGUF file:
// every tensor present with the shape the hyperparameters give, a supported
// architecture, and hyperparameters that make sense together. Each test rewrites a
// real model from ../shared/testdata with the project's GGUF writer, changed in one
// way, and expects a hearth::Error naming the file and the problem.
#include "engine/error.h"
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_value.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/model/model.h"
#include "kernels/tensor_type.h"
#include "tests/support/error_of.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <cmath>
#include <limits>
#include <map>
#include <set>

using namespace hearth;
using kernels::TensorType;

using hearth::test::error_of;

namespace {

// One way to change a model file: metadata set or removed, tensors dropped or given
// another shape or type (with zeroed data of the right size).
struct Edit {
    std::vector<std::pair<std::string, gguf::Value>> set_keys;
    std::set<std::string> removed_keys;
    std::set<std::string> dropped_tensors;
    std::map<std::string, std::pair<std::vector<int64_t>, TensorType>> replaced_tensors;

    Edit set(const std::string& key, gguf::Value value) const {
        Edit e = *this;
        e.set_keys.emplace_back(key, std::move(value));
        return e;
    }
    Edit remove(const std::string& key) const {
        Edit e = *this;
        e.removed_keys.insert(key);
        return e;
    }
    Edit drop(const std::string& tensor) const {
        Edit e = *this;
        e.dropped_tensors.insert(tensor);
        return e;
    }
    Edit reshape(const std::string& tensor, std::vector<int64_t> shape,
                 TensorType type = TensorType::F32) const {
        Edit e = *this;
        e.replaced_tensors[tensor] = {std::move(shape), type};
        return e;
    }
};

std::string model_path(const QString& name) {
    return test::testdata("models/" + name.toStdString() + ".gguf");
}

// Writes `source` to `out` with `edit` applied, through the project's own writer.
void rewrite(const std::string& source, const std::string& out, const Edit& edit) {
    const auto file = gguf::GgufFile::open(source);
    gguf::GgufWriter writer;
    for (const gguf::MetadataEntry& entry : file->metadata())
        if (!edit.removed_keys.count(entry.key)) writer.set(entry.key, entry.value);
    for (const auto& [key, value] : edit.set_keys)
        writer.set(key, value);
    for (const gguf::TensorInfo& t : file->tensors()) {
        if (edit.dropped_tensors.count(t.name)) continue;
        if (auto it = edit.replaced_tensors.find(t.name); it != edit.replaced_tensors.end()) {
            const auto& [shape, type] = it->second;
            int64_t rows = 1;
            for (size_t d = 1; d < shape.size(); ++d)
                rows *= shape[d];
            const size_t bytes = kernels::row_bytes(type, shape[0]) * static_cast<size_t>(rows);
            writer.add_tensor(t.name, shape, type, std::vector<std::byte>(bytes));
            continue;
        }
        writer.add_tensor(t.name, t.shape, t.type, std::vector<std::byte>(t.data, t.data + t.bytes));
    }
    writer.write(out);
}

// The message of the hearth::Error `fn` throws; empty when it throws nothing.
} // namespace

Q_DECLARE_METATYPE(Edit)

class TestModelValidation : public QObject {
    Q_OBJECT

    std::string dir_;
    int written_ = 0;

    std::string write_edited(const QString& base, const Edit& edit) {
        const std::string out = dir_ + "/edited-" + std::to_string(++written_) + ".gguf";
        rewrite(model_path(base), out, edit);
        return out;
    }

private slots:
    void initTestCase() { dir_ = test::make_temp_dir("model-validation"); }

    // The rewrite alone keeps a model loadable, so the failures below come from the edits.
    void an_unedited_rewrite_loads_data() {
        QTest::addColumn<QString>("base");
        for (const char* m : {"stories260K", "tiny-qwen2", "tiny-qwen3", "tiny-llama3"})
            QTest::newRow(m) << m;
    }
    void an_unedited_rewrite_loads() {
        QFETCH(QString, base);
        const std::string path = write_edited(base, Edit{});
        const auto model = engine::Model::load(path);
        const auto original = engine::Model::load(model_path(base));
        QCOMPARE(model->hparams().n_layer, original->hparams().n_layer);
        QCOMPARE(model->hparams().n_vocab, original->hparams().n_vocab);
        QCOMPARE(model->weights().layers.size(), original->weights().layers.size());
    }

    // stories260K: llama, n_embd 64, 5 layers, 8 heads of 8, 4 KV heads (KV width 32),
    // n_ff 172, 512 tokens, tied output.
    void refuses_a_broken_model_data() {
        QTest::addColumn<QString>("base");
        QTest::addColumn<Edit>("edit");
        QTest::addColumn<QString>("problem");
        const Edit none;
        using gguf::array_value;
        using gguf::bool_value;
        using gguf::float32_value;
        using gguf::int32_value;
        using gguf::string_value;
        using gguf::uint32_value;

        // Tensors the architecture needs but the file lacks.
        QTest::newRow("no blk.4.attn_v.weight")
            << "stories260K" << none.drop("blk.4.attn_v.weight") << "missing tensor blk.4.attn_v.weight";
        QTest::newRow("no blk.0.attn_norm.weight") << "stories260K" << none.drop("blk.0.attn_norm.weight")
                                                   << "missing tensor blk.0.attn_norm.weight";
        QTest::newRow("no blk.2.ffn_down.weight")
            << "stories260K" << none.drop("blk.2.ffn_down.weight") << "missing tensor blk.2.ffn_down.weight";
        QTest::newRow("no output_norm.weight")
            << "stories260K" << none.drop("output_norm.weight") << "missing tensor output_norm.weight";
        QTest::newRow("no token_embd.weight")
            << "stories260K" << none.drop("token_embd.weight") << "missing tensor token_embd.weight";
        QTest::newRow("block_count beyond the tensors")
            << "stories260K" << none.set("llama.block_count", uint32_value(6)) << "missing tensor blk.5.";
        QTest::newRow("qwen2 without blk.1.attn_q.bias")
            << "tiny-qwen2" << none.drop("blk.1.attn_q.bias") << "missing tensor blk.1.attn_q.bias";
        QTest::newRow("qwen3 without blk.0.attn_k_norm.weight")
            << "tiny-qwen3" << none.drop("blk.0.attn_k_norm.weight")
            << "missing tensor blk.0.attn_k_norm.weight";

        // Tensors whose shape disagrees with the hyperparameters.
        QTest::newRow("attn_k transposed")
            << "stories260K" << none.reshape("blk.0.attn_k.weight", {32, 64})
            << "tensor blk.0.attn_k.weight has shape [32, 64], expected [64, 32]";
        QTest::newRow("attn_q sized for the KV heads")
            << "stories260K" << none.reshape("blk.3.attn_q.weight", {64, 32})
            << "tensor blk.3.attn_q.weight has shape [64, 32], expected [64, 64]";
        QTest::newRow("ffn_gate with 3 dimensions")
            << "stories260K" << none.reshape("blk.1.ffn_gate.weight", {64, 172, 1})
            << "tensor blk.1.ffn_gate.weight has shape [64, 172, 1], expected [64, 172]";
        QTest::newRow("attn_norm too short") << "stories260K" << none.reshape("blk.4.attn_norm.weight", {32})
                                             << "tensor blk.4.attn_norm.weight has shape [32], expected [64]";
        QTest::newRow("token_embd with 1 dimension")
            << "stories260K" << none.reshape("token_embd.weight", {64 * 512})
            << "token_embd.weight must have 2 dimensions";
        QTest::newRow("token_embd narrower than the model")
            << "stories260K" << none.reshape("token_embd.weight", {32, 512})
            << "tensor token_embd.weight has shape [32, 512], expected [64, 512]";
        QTest::newRow("token_embd with fewer rows than tokens")
            << "stories260K" << none.reshape("token_embd.weight", {64, 256})
            << "the tokenizer has 512 tokens but token_embd.weight only 256 rows";
        QTest::newRow("qwen2 attn_k.bias the size of attn_q.bias")
            << "tiny-qwen2" << none.reshape("blk.0.attn_k.bias", {64})
            << "tensor blk.0.attn_k.bias has shape";
        QTest::newRow("llama3 rope_freqs too long")
            << "tiny-llama3" << none.reshape("rope_freqs.weight", {64})
            << "tensor rope_freqs.weight has shape";
        QTest::newRow("feed_forward_length disagrees with the tensors")
            << "stories260K" << none.set("llama.feed_forward_length", uint32_value(100))
            << "has shape [64, 172], expected [64, 100]";
        QTest::newRow("weights of a type without a dot product")
            << "stories260K" << none.reshape("blk.0.attn_q.weight", {64, 64}, TensorType::Q8_1)
            << "cannot multiply";

        // What gemma2, gemma3, phi3, gpt2 and qwen3moe need.
        QTest::newRow("gemma2 without its post-attention norm")
            << "tiny-gemma2" << none.drop("blk.1.post_attention_norm.weight")
            << "missing tensor blk.1.post_attention_norm.weight";
        QTest::newRow("gemma3 with a window pattern shorter than its layers")
            << "tiny-gemma3"
            << none.set("gemma3.attention.sliding_window_pattern",
                        array_value(gguf::ValueType::Bool, {bool_value(true)}))
            << "sliding_window_pattern has fewer entries than block_count";
        QTest::newRow("phi3 fused QKV of the wrong height")
            << "tiny-phi3" << none.reshape("blk.0.attn_qkv.weight", {128, 256})
            << "tensor blk.0.attn_qkv.weight has shape [128, 256], expected [128, 384]";
        QTest::newRow("phi3 fused gate+up of n_ff rows")
            << "tiny-phi3" << none.reshape("blk.1.ffn_up.weight", {128, 256})
            << "tensor blk.1.ffn_up.weight has shape [128, 256], expected [128, 512]";
        QTest::newRow("gpt2 without its LayerNorm bias")
            << "tiny-gpt2" << none.drop("blk.0.attn_norm.bias") << "missing tensor blk.0.attn_norm.bias";
        QTest::newRow("gpt2 without learned positions")
            << "tiny-gpt2" << none.drop("position_embd.weight") << "missing tensor position_embd.weight";
        QTest::newRow("qwen3moe using more experts than it has")
            << "tiny-qwen3moe" << none.set("qwen3moe.expert_used_count", uint32_value(9))
            << "expert_used_count 9 exceeds expert_count 8";
        QTest::newRow("qwen3moe experts of another count")
            << "tiny-qwen3moe" << none.reshape("blk.0.ffn_up_exps.weight", {128, 64, 4})
            << "tensor blk.0.ffn_up_exps.weight has shape [128, 64, 4], expected [128, 64, 8]";

        // Architectures the engine does not run.
        QTest::newRow("gptj (an architecture llama.cpp knows)")
            << "tiny-gpt2" << none.set("general.architecture", string_value("gptj"))
            << "unsupported architecture 'gptj'";
        QTest::newRow("an unknown architecture")
            << "stories260K" << none.set("general.architecture", string_value("mamba"))
            << "unsupported architecture 'mamba'";
        QTest::newRow("no architecture") << "stories260K" << none.remove("general.architecture")
                                         << "missing metadata key general.architecture";

        // Hyperparameters that cannot describe a model.
        QTest::newRow("head_count not dividing embedding_length")
            << "stories260K" << none.set("llama.attention.head_count", uint32_value(7))
            << "embedding_length 64 is not a multiple of head_count 7";
        QTest::newRow("head_count 0")
            << "stories260K" << none.set("llama.attention.head_count", uint32_value(0))
            << "llama.attention.head_count has an impossible value 0";
        QTest::newRow("head_count_kv 0")
            << "stories260K" << none.set("llama.attention.head_count_kv", uint32_value(0))
            << "llama.attention.head_count_kv has an impossible value 0";
        QTest::newRow("head_count_kv not dividing head_count")
            << "stories260K" << none.set("llama.attention.head_count_kv", uint32_value(3))
            << "head_count 8 is not a multiple of head_count_kv 3";
        QTest::newRow("head_count_kv above head_count")
            << "stories260K" << none.set("llama.attention.head_count_kv", uint32_value(16))
            << "head_count 8 is not a multiple of head_count_kv 16";
        QTest::newRow("negative embedding_length")
            << "stories260K" << none.set("llama.embedding_length", int32_value(-64))
            << "llama.embedding_length has an impossible value -64";
        QTest::newRow("no block_count")
            << "stories260K" << none.remove("llama.block_count") << "missing metadata key llama.block_count";
        QTest::newRow("head_count of the wrong type")
            << "stories260K" << none.set("llama.attention.head_count", string_value("eight"))
            << "metadata key 'llama.attention.head_count' has type string, expected an integer";
        QTest::newRow("key_length above 512")
            << "stories260K" << none.set("llama.attention.key_length", uint32_value(1024))
            << "head size 1024 is larger than the 512 supported";
        QTest::newRow("value_length differs from key_length")
            << "stories260K" << none.set("llama.attention.value_length", uint32_value(16))
            << "value_length differs from key_length";
        QTest::newRow("odd rope dimension")
            << "stories260K" << none.set("llama.rope.dimension_count", uint32_value(7))
            << "rope.dimension_count 7 does not fit head size 8";
        QTest::newRow("rope dimension above the head size")
            << "stories260K" << none.set("llama.rope.dimension_count", uint32_value(16))
            << "rope.dimension_count 16 does not fit head size 8";
        QTest::newRow("rope.freq_base 0")
            << "stories260K" << none.set("llama.rope.freq_base", float32_value(0)) << "rope.freq_base";
        QTest::newRow("rope.freq_base NaN")
            << "stories260K"
            << none.set("llama.rope.freq_base", float32_value(std::numeric_limits<float>::quiet_NaN()))
            << "rope.freq_base";
        QTest::newRow("negative rms epsilon")
            << "stories260K" << none.set("llama.attention.layer_norm_rms_epsilon", float32_value(-1e-5f))
            << "layer_norm_rms_epsilon must be finite and not negative";
        QTest::newRow("NaN rms epsilon") << "stories260K"
                                         << none.set("llama.attention.layer_norm_rms_epsilon",
                                                     float32_value(std::numeric_limits<float>::quiet_NaN()))
                                         << "layer_norm_rms_epsilon";
        // 2^24 heads of 512: a query width of 2^33 overflows a 32-bit width.
        QTest::newRow("head_count x key_length overflows")
            << "stories260K"
            << none.set("llama.attention.head_count", uint32_value(1u << 24))
                   .set("llama.attention.head_count_kv", uint32_value(1u << 24))
                   .set("llama.attention.key_length", uint32_value(512))
            << "too large";
    }
    void refuses_a_broken_model() {
        QFETCH(QString, base);
        QFETCH(Edit, edit);
        QFETCH(QString, problem);
        const std::string path = write_edited(base, edit);
        const QString error = error_of([&] { engine::Model::load(path); });
        QVERIFY2(!error.isEmpty(), "the model loaded");
        QVERIFY2(error.startsWith(QString::fromStdString(path) + ": "), qPrintable(error));
        QVERIFY2(error.contains(problem), qPrintable(error));
        // A load that copies no weight (hearth-cli info) refuses it the same way.
        QCOMPARE(error_of([&] { engine::Model::load(path, {}, engine::WeightCopy::None); }), error);
        // The picker's quick look at the same file never crashes either: it describes it or refuses.
        error_of([&] { engine::Model::read_info(path); });
    }

    // A load that copies no weight leaves every matrix a view of the file, in its layout; the
    // load that runs a model repacks them.
    void a_load_without_copies_keeps_the_files_weights() {
        const std::string path = model_path("tiny-llama3-Q4_K_M");
        const auto viewed = engine::Model::load(path, {}, engine::WeightCopy::None);
        const engine::LayerWeights& layer = viewed->weights().layers.at(0);
        QCOMPARE(layer.wq.data,
                 static_cast<const void*>(viewed->file().find_tensor("blk.0.attn_q.weight")->data));
        QCOMPARE(layer.w_down.data,
                 static_cast<const void*>(viewed->file().find_tensor("blk.0.ffn_down.weight")->data));
        QCOMPARE(viewed->weights().token_embd.data,
                 static_cast<const void*>(viewed->file().find_tensor("token_embd.weight")->data));
        QCOMPARE(layer.wq.layout, kernels::RowLayout::RowMajor);

        const auto loaded = engine::Model::load(path);
        QCOMPARE(loaded->weights().layers.at(0).wq.layout, kernels::RowLayout::Interleaved16);
        QVERIFY(loaded->weights().layers.at(0).wq.data !=
                static_cast<const void*>(loaded->file().find_tensor("blk.0.attn_q.weight")->data));
    }
};

QTEST_GUILESS_MAIN(TestModelValidation)
#include "test_model_validation.moc"
