#pragma once
// The shapes of real models (hyperparameters as published in their configs), so
// that a model with random weights but the exact tensor names and shapes of the
// real one can be synthesized for benchmarks and tests.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::gguf {

// Llama 3.1-style RoPE scaling ("rope_type": "llama3"): frequencies whose wavelength
// exceeds original_context / low_freq_factor are divided by factor, those shorter than
// original_context / high_freq_factor are kept, and those between are interpolated.
struct Llama3RopeScaling {
    double factor = 0; // 0: no scaling, no rope_freqs tensor
    double low_freq_factor = 1;
    double high_freq_factor = 4;
    int64_t original_context = 8192;
};

// Phi-3.5 / Phi-4-mini LongRoPE: per-frequency divisors for contexts up to original_context
// (short) and beyond it (long), stored as rope_factors_short / rope_factors_long.
struct LongRope {
    int64_t original_context = 0; // 0: no LongRoPE
    std::vector<float> long_factors;
    std::vector<float> short_factors;
    // How llama.cpp's converter scales cos and sin: sqrt(1 + ln(n_ctx / original) / ln(original)).
    double attn_factor(int64_t n_ctx) const;
};

// A mixture-of-experts FFN: each layer's router picks `used` of its `count` SwiGLU experts.
struct Experts {
    int64_t count = 0; // 0: a dense FFN
    int64_t used = 0;
    int64_t n_ff = 0; // each expert's feed-forward width
};

struct ModelShape {
    std::string name;         // the --shape name, e.g. "qwen2.5-0.5b"
    std::string architecture; // general.architecture: the GGUF key prefix
    std::string display_name; // general.name
    int64_t n_embd = 0;
    int64_t n_layer = 0;
    int64_t n_head = 0;
    int64_t n_head_kv = 0;
    int64_t n_ff = 0;
    int64_t n_vocab = 0;
    int64_t n_ctx = 0;
    int64_t head_size = 0; // attention.key_length when declared; 0: n_embd / n_head
    int64_t rope_dim = 0;  // rotated dimensions per head (partial rotary); 0: the whole head
    double rope_freq_base = 10000;
    double rms_norm_eps = 1e-5;
    bool qkv_bias = false;        // Q, K and V projections carry biases (qwen2)
    bool tied_embeddings = false; // no output.weight: the output reuses token_embd
    // The tensor layout.
    bool fused_qkv = false;     // one attn_qkv matrix: Q rows, then K, then V (phi3)
    bool fused_gate_up = false; // one ffn_up of 2 x n_ff rows, no ffn_gate (phi3)
    bool qk_norm = false;       // per-head attn_q_norm / attn_k_norm (qwen3, gemma3)
    bool post_norms = false;    // post_attention_norm and post_ffw_norm (gemma)
    Experts experts;
    // Sliding-window attention as the GGUF declares it: the window (0: none written) and the
    // local layers' RoPE base (0: none written).
    int64_t sliding_window = 0;
    double rope_freq_base_swa = 0;
    double rope_linear_factor = 0; // rope.scaling.type linear with this factor; 0: none
    Llama3RopeScaling rope_scaling;
    LongRope long_rope;

    int64_t head_dim() const { return head_size > 0 ? head_size : n_embd / n_head; }
    int64_t rotated_dims() const { return rope_dim > 0 ? rope_dim : head_dim(); }
    int64_t n_embd_q() const { return head_dim() * n_head; }
    int64_t n_embd_kv() const { return head_dim() * n_head_kv; }
};

const std::vector<ModelShape>& known_shapes();
std::optional<ModelShape> find_shape(std::string_view name);

// A smaller model of the same kind, for tests: the same head size, architecture, layout,
// biases, tying and RoPE as base, with the given sizes. Heads follow from n_embd and
// the head size; KV heads keep base's grouping where they can (at least one). Experts
// shrink to at most 8 with at most half of them used, each n_ff wide.
ModelShape scaled_down(const ModelShape& base, int64_t n_embd, int64_t n_layer, int64_t n_ff,
                       int64_t n_vocab);

// The per-frequency divisors of Llama 3 RoPE scaling (GGUF tensor rope_freqs.weight,
// rotated_dims() / 2 values, 1 for the highest frequencies up to factor for the lowest).
std::vector<float> llama3_rope_factors(const ModelShape& shape);

} // namespace hearth::gguf
