#pragma once
// Hyperparameters of a decoder-only transformer, read from GGUF metadata, and the traits that
// say how each supported architecture builds its layers. The forward pass reads the traits,
// never the architecture's name.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::gguf {
class GgufFile;
}

namespace hearth::engine {

enum class Architecture { Llama, Qwen2, Qwen3, Gemma2, Gemma3, Phi3, Gpt2, Qwen3Moe };

enum class NormKind : uint8_t {
    Rms,       // x / rms(x) * weight
    LayerNorm, // (x - mean) / std(x) * weight + bias
};
enum class FfnKind : uint8_t {
    Swiglu,           // down(silu(gate(x)) * up(x)); a fused gate+up is split at load
    GeluGated,        // down(gelu(gate(x)) * up(x)), GELU by its tanh approximation
    Gelu,             // down(gelu(up(x))), no gate
    MixtureOfExperts, // a router picks the top k experts, each a SwiGLU
};
enum class PositionKind : uint8_t {
    Rope,    // rotary embeddings of Q and K
    Learned, // a position_embd row added to the embeddings
};

// How an architecture's layers are built. One table row per architecture (hparams.cpp).
struct ArchitectureTraits {
    NormKind norm = NormKind::Rms;
    FfnKind ffn = FfnKind::Swiglu;
    PositionKind positions = PositionKind::Rope;
    bool rope_neox = false;        // rotate pairs (i, i + d/2) instead of (2i, 2i + 1)
    bool fused_qkv = false;        // one attn_qkv matrix: the Q rows, then K, then V
    bool fused_gate_up = false;    // one ffn_up of 2 x n_ff rows: the gate, then up
    bool qkv_bias = false;         // required Q/K/V biases
    bool linear_biases = false;    // biases on attn_output, ffn_up, ffn_down (GPT-2)
    bool qk_norm = false;          // per-head RMSNorm of Q and K before RoPE
    bool post_norms = false;       // RMSNorm of the attention and FFN outputs before the residual
    bool scale_embeddings = false; // embeddings times sqrt(n_embd)
    // Sliding window: the layer pattern llama.cpp assumes when the file gives none (every
    // pattern-th layer global, the others local; 0: every layer local), its window when the file
    // gives none, and whether a declared window is honoured at all.
    int32_t swa_pattern = 0;
    int32_t default_window = 0;
    bool honours_window = false;
    bool swa_rope_base_default_10k = false; // local layers' RoPE base: 1e4 unless the file says
    // Soft-capping of attention logits (cap * tanh(x / cap)) when the file gives none: 0 = none.
    float default_attn_softcap = 0;
    float default_final_softcap = 0;
    // The Gemma 27B models scale queries by 1/sqrt(n_embd / n_head) (their
    // query_pre_attn_scalar), not 1/sqrt(head size); llama.cpp tells them by their layer count.
    int32_t query_scale_by_width_layers = 0;
};

struct HyperParams {
    Architecture arch = Architecture::Llama;
    std::string arch_name; // general.architecture
    ArchitectureTraits traits;
    int32_t n_vocab = 0; // rows of token_embd
    int32_t n_embd = 0;  // model width
    int32_t n_layer = 0;
    int32_t n_head = 0;
    int32_t n_head_kv = 0;   // < n_head for grouped-query attention
    int32_t head_dim = 0;    // key_length; n_embd / n_head unless the file says otherwise
    int32_t n_ff = 0;        // feed-forward width
    int32_t n_ctx_train = 0; // context length the model was trained with
    int32_t rope_dim = 0;    // rotated dimensions per head
    float rms_eps = 1e-5f;   // of the norms, RMS or LayerNorm
    float rope_freq_base = 10000.0f;
    float rope_freq_scale = 1.0f; // linear scaling: positions are multiplied by this
    bool rope_neox = false;       // rotate pairs (i, i + d/2) instead of (2i, 2i + 1)
    // LongRoPE (Phi-3.5, Phi-4-mini): rope_factors_long apply when the context is longer than
    // n_ctx_orig, rope_factors_short otherwise; cos and sin are scaled by rope_attn_factor.
    int32_t n_ctx_orig = 0;
    float rope_attn_factor = 1.0f;

    float attention_scale = 0;           // of q . k, before soft-capping
    float attn_softcap = 0;              // 0: none
    float final_softcap = 0;             // of the logits; 0: none
    int32_t sliding_window = 0;          // keys a local layer's query sees, itself included
    std::vector<uint8_t> is_swa;         // (n_layer) 1: a local (sliding-window) layer
    float rope_freq_base_swa = 10000.0f; // of the local layers
    float rope_freq_scale_swa = 1.0f;

    int32_t n_expert = 0;      // mixture of experts: experts per layer
    int32_t n_expert_used = 0; // chosen per token
    int32_t n_ff_expert = 0;   // each expert's feed-forward width

    int32_t q_width() const { return n_head * head_dim; }
    int32_t kv_width() const { return n_head_kv * head_dim; }
    bool layer_is_local(int32_t layer) const {
        return !is_swa.empty() && is_swa[static_cast<size_t>(layer)] != 0;
    }
    bool has_local_layers() const;
};

// The architecture of a general.architecture name, or nullopt for one the engine cannot run.
std::optional<Architecture> architecture_from_name(std::string_view name);
// The names architecture_from_name accepts, for messages: "llama, qwen2, qwen3, ...".
const char* supported_architectures();
// The traits of an architecture (the table in hparams.cpp).
const ArchitectureTraits& architecture_traits(Architecture arch);

// Reads and checks the hyperparameters; throws hearth::Error naming the file.
HyperParams read_hyperparams(const gguf::GgufFile& file);

} // namespace hearth::engine
