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

struct ModelShape {
    std::string name;         // the --shape name, e.g. "qwen2.5-0.5b"
    std::string architecture; // "llama" or "qwen2": the GGUF key prefix and tensor layout
    std::string display_name; // general.name
    int64_t n_embd = 0;
    int64_t n_layer = 0;
    int64_t n_head = 0;
    int64_t n_head_kv = 0;
    int64_t n_ff = 0;
    int64_t n_vocab = 0;
    int64_t n_ctx = 0;
    double rope_freq_base = 10000;
    double rms_norm_eps = 1e-5;
    bool qkv_bias = false;        // Q, K and V projections carry biases (qwen2)
    bool tied_embeddings = false; // no output.weight: the output reuses token_embd
    Llama3RopeScaling rope_scaling;

    int64_t head_dim() const { return n_embd / n_head; }
    int64_t n_embd_kv() const { return head_dim() * n_head_kv; }
};

const std::vector<ModelShape>& known_shapes();
std::optional<ModelShape> find_shape(std::string_view name);

// A smaller model of the same kind, for tests: the same head size, architecture,
// biases, tying and RoPE as base, with the given sizes. Heads follow from n_embd and
// the head size; KV heads keep base's grouping where they can (at least one).
ModelShape scaled_down(const ModelShape& base, int64_t n_embd, int64_t n_layer, int64_t n_ff,
                       int64_t n_vocab);

// The per-frequency divisors of Llama 3 RoPE scaling (GGUF tensor rope_freqs.weight,
// head_dim / 2 values, 1 for the highest frequencies up to factor for the lowest).
std::vector<float> llama3_rope_factors(const ModelShape& shape);

} // namespace hearth::gguf
