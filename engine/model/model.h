#pragma once
// A loaded model: its file mapping, hyperparameters, tokenizer and weight views.
// Immutable after load; shared by every session that runs it.
#include "engine/gguf/gguf_file.h"
#include "engine/model/hparams.h"
#include "engine/model/weight_repacking.h"
#include "engine/tokenizer/tokenizer.h"
#include "kernels/matmul.h"
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace hearth::engine {

// One expert's matrices, row ranges of the layer's 3-D expert tensors.
struct ExpertWeights {
    kernels::WeightMatrix w_gate, w_up; // (n_ff_expert, n_embd)
    kernels::WeightMatrix w_down;       // (n_embd, n_ff_expert)
};

struct LayerWeights {
    std::vector<float> attn_norm, attn_norm_b; // (n_embd); the bias only for LayerNorm
    kernels::WeightMatrix wq, wk, wv;          // (q_width, n_embd), (kv_width, n_embd) x2
    std::vector<float> bq, bk, bv;             // Q/K/V biases, empty when the model has none
    std::vector<float> q_norm, k_norm;         // per-head RMSNorm weights (head_dim), or empty
    kernels::WeightMatrix wo;                  // (n_embd, q_width)
    std::vector<float> bo;                     // attn_output bias, or empty
    std::vector<float> post_attn_norm;         // (n_embd) norm of the attention output, or empty
    std::vector<float> ffn_norm, ffn_norm_b;   // (n_embd)
    kernels::WeightMatrix w_gate, w_up;        // (n_ff, n_embd); no gate for a plain GELU FFN
    kernels::WeightMatrix w_down;              // (n_embd, n_ff)
    std::vector<float> b_up, b_down;           // FFN biases, or empty
    std::vector<float> post_ffn_norm;          // (n_embd) norm of the FFN output, or empty
    // Mixture of experts: the router, the 3-D tensors as (n_expert x rows) matrices, and each
    // expert's row range of them (views made after the weights are copied).
    kernels::WeightMatrix router;                        // (n_expert, n_embd)
    kernels::WeightMatrix gate_exps, up_exps, down_exps; // (n_expert * n_ff_expert | n_embd, ...)
    std::vector<ExpertWeights> experts;                  // (n_expert)
    // A fused matrix as in the file (attn_qkv, Phi-3's gate+up ffn_up), of which wq/wk/wv or
    // w_gate/w_up are row ranges.
    kernels::WeightMatrix wqkv, w_gate_up;
};

struct ModelWeights {
    kernels::WeightMatrix token_embd;     // (n_vocab, n_embd)
    std::vector<float> position_embd;     // (n_positions, n_embd) learned positions as F32, or empty
    int32_t n_positions = 0;              // rows of position_embd: the longest context it runs
    std::vector<LayerWeights> layers;     // (n_layer)
    std::vector<float> output_norm;       // (n_embd)
    std::vector<float> output_norm_b;     // (n_embd) for LayerNorm, else empty
    kernels::WeightMatrix output;         // (n_vocab, n_embd); token_embd when tied
    std::vector<float> rope_freq_factors; // (rope_dim / 2) Llama 3 rope_freqs, empty otherwise
    // LongRoPE (rope_dim / 2 each): for contexts longer than n_ctx_orig, and the others.
    std::vector<float> rope_factors_long, rope_factors_short;
};

// What the model picker and `hearth-cli info` show, read without loading weights.
struct ModelInfo {
    std::string path;
    std::string name;         // general.name, or the file name
    std::string architecture; // general.architecture
    std::string quantization; // the most common weight type, e.g. "Q4_K"
    std::string file_type;    // from general.file_type when present, e.g. "Q4_K_M"
    int64_t parameters = 0;
    int64_t file_bytes = 0;
    int32_t context_length = 0;
    int32_t n_layer = 0, n_embd = 0, n_head = 0, n_head_kv = 0, n_vocab = 0;
    std::string tokenizer_model; // "llama" (SentencePiece) or "gpt2" (byte-level BPE)
    bool has_chat_template = false;
    // Memory to run it: the weights (mapped from the file) plus one conversation's KV cache of
    // n_ctx tokens, keys and values of the given types for every layer, as KvCache holds them.
    int64_t estimated_bytes(int32_t n_ctx, kernels::TensorType key_type = kernels::TensorType::F16,
                            kernels::TensorType value_type = kernels::TensorType::F16) const;
    // Keys and values of one token in every layer, as KvCache holds them (F16 for a quantized
    // type the head size cannot take: a cache refuses it).
    int64_t kv_bytes_per_token_as(kernels::TensorType key_type, kernels::TensorType value_type) const;
    int64_t kv_bytes_per_token = 0; // F16 keys and values
    int32_t head_dim = 0;
};

// What a load does with the weight matrices.
enum class WeightCopy {
    Repacked, // copied into the layout decode reads fastest (weight_repacking.h): to run the model
    None,     // views of the file, never read: to validate and describe a model without running it
};

class Model {
public:
    // Maps and validates the file and everything the architecture needs; throws hearth::Error.
    // before_weights sees the model's description once the metadata is read and before any
    // weight is bound or copied: it may refuse the load by throwing (a memory check).
    static std::shared_ptr<const Model> load(const std::string& path,
                                             const std::function<void(const ModelInfo&)>& before_weights = {},
                                             WeightCopy copy = WeightCopy::Repacked);
    // Reads what the picker shows; throws hearth::Error for a file the engine cannot run.
    static ModelInfo read_info(const std::string& path);
    static ModelInfo read_info(const gguf::GgufFile& file); // of a file already open

    const std::string& path() const { return file_->path(); }
    const gguf::GgufFile& file() const { return *file_; }
    const HyperParams& hparams() const { return hparams_; }
    const tokenizer::Tokenizer& tokenizer() const { return *tokenizer_; }
    const ModelWeights& weights() const { return weights_; }
    const ModelInfo& info() const { return info_; }
    // tokenizer.chat_template, empty when the file has none.
    const std::string& chat_template() const { return chat_template_; }

private:
    Model() = default;
    // Binds the weight matrices of model.hparams_ to the file and makes their copy
    // (RepackedWeights::repack's before_copying).
    static void bind_weights(Model& model, const gguf::GgufFile& file, WeightCopy copy,
                             const std::function<void()>& before_copying);
    std::shared_ptr<const gguf::GgufFile> file_;
    HyperParams hparams_;
    std::unique_ptr<tokenizer::Tokenizer> tokenizer_;
    ModelWeights weights_;
    RepackedWeights repacked_; // the copies some of weights_' matrices point to
    ModelInfo info_;
    std::string chat_template_;
};

} // namespace hearth::engine
