#include "engine/synth/synth_shape.h"
#include <algorithm>
#include <cmath>
#include <numbers>

namespace hearth::gguf {

namespace {

// Values from each model's published config.json.
std::vector<ModelShape> make_known_shapes() {
    std::vector<ModelShape> shapes;

    ModelShape qwen;
    qwen.name = "qwen2.5-0.5b";
    qwen.architecture = "qwen2";
    qwen.display_name = "Qwen2.5 0.5B (synthetic weights)";
    qwen.n_embd = 896;
    qwen.n_layer = 24;
    qwen.n_head = 14;
    qwen.n_head_kv = 2;
    qwen.n_ff = 4864;
    qwen.n_vocab = 151936;
    qwen.n_ctx = 32768;
    qwen.rope_freq_base = 1000000;
    qwen.rms_norm_eps = 1e-6;
    qwen.qkv_bias = true;
    qwen.tied_embeddings = true;
    shapes.push_back(qwen);

    ModelShape llama32;
    llama32.name = "llama-3.2-1b";
    llama32.architecture = "llama";
    llama32.display_name = "Llama 3.2 1B (synthetic weights)";
    llama32.n_embd = 2048;
    llama32.n_layer = 16;
    llama32.n_head = 32;
    llama32.n_head_kv = 8;
    llama32.n_ff = 8192;
    llama32.n_vocab = 128256;
    llama32.n_ctx = 131072;
    llama32.rope_freq_base = 500000;
    llama32.rms_norm_eps = 1e-5;
    llama32.tied_embeddings = true;
    llama32.rope_scaling = {32, 1, 4, 8192};
    shapes.push_back(llama32);

    // The 7-8B class that most desktop users run (GPU and CPU benchmarks at that size).
    ModelShape llama31 = llama32;
    llama31.name = "llama-3.1-8b";
    llama31.display_name = "Llama 3.1 8B (synthetic weights)";
    llama31.n_embd = 4096;
    llama31.n_layer = 32;
    llama31.n_ff = 14336;
    llama31.tied_embeddings = false;
    llama31.rope_scaling = {8, 1, 4, 8192};
    shapes.push_back(llama31);

    ModelShape smol;
    smol.name = "smollm2-360m";
    smol.architecture = "llama";
    smol.display_name = "SmolLM2 360M (synthetic weights)";
    smol.n_embd = 960;
    smol.n_layer = 32;
    smol.n_head = 15;
    smol.n_head_kv = 5;
    smol.n_ff = 2560;
    smol.n_vocab = 49152;
    smol.n_ctx = 8192;
    smol.rope_freq_base = 100000;
    smol.rms_norm_eps = 1e-5;
    smol.tied_embeddings = true;
    shapes.push_back(smol);

    ModelShape tiny;
    tiny.name = "tinyllama-1.1b";
    tiny.architecture = "llama";
    tiny.display_name = "TinyLlama 1.1B (synthetic weights)";
    tiny.n_embd = 2048;
    tiny.n_layer = 22;
    tiny.n_head = 32;
    tiny.n_head_kv = 4;
    tiny.n_ff = 5632;
    tiny.n_vocab = 32000;
    tiny.n_ctx = 2048;
    tiny.rope_freq_base = 10000;
    tiny.rms_norm_eps = 1e-5;
    shapes.push_back(tiny);

    // Gemma 3 4B (text): head size 256 != n_embd / n_head, per-head Q/K norms, norms after
    // attention and FFN, 5 local layers (window 1024, RoPE base 1e4) to 1 global (1e6, linear
    // scaling 8). Its GGUF keeps the 262144 tokenizer rows of the 262208-row embedding.
    ModelShape gemma3;
    gemma3.name = "gemma-3-4b";
    gemma3.architecture = "gemma3";
    gemma3.display_name = "Gemma 3 4B (synthetic weights)";
    gemma3.n_embd = 2560;
    gemma3.n_layer = 34;
    gemma3.n_head = 8;
    gemma3.n_head_kv = 4;
    gemma3.head_size = 256;
    gemma3.n_ff = 10240;
    gemma3.n_vocab = 262144;
    gemma3.n_ctx = 131072;
    gemma3.rope_freq_base = 1000000;
    gemma3.rope_freq_base_swa = 10000;
    gemma3.rope_linear_factor = 8;
    gemma3.sliding_window = 1024;
    gemma3.rms_norm_eps = 1e-6;
    gemma3.tied_embeddings = true;
    gemma3.qk_norm = true;
    gemma3.post_norms = true;
    shapes.push_back(gemma3);

    // Phi-4-mini: fused QKV and gate+up, 3/4 of each head rotated (96 of 128), LongRoPE
    // beyond 4096 positions, tied embeddings.
    ModelShape phi4;
    phi4.name = "phi-4-mini";
    phi4.architecture = "phi3";
    phi4.display_name = "Phi-4-mini (synthetic weights)";
    phi4.n_embd = 3072;
    phi4.n_layer = 32;
    phi4.n_head = 24;
    phi4.n_head_kv = 8;
    phi4.rope_dim = 96;
    phi4.n_ff = 8192;
    phi4.n_vocab = 200064;
    phi4.n_ctx = 131072;
    phi4.rope_freq_base = 10000;
    phi4.rms_norm_eps = 1e-5;
    phi4.sliding_window = 262144; // declared; longer than the context, so it masks nothing
    phi4.tied_embeddings = true;
    phi4.fused_qkv = true;
    phi4.fused_gate_up = true;
    phi4.long_rope.original_context = 4096;
    phi4.long_rope.long_factors = {
        1.0f,         1.118320672f, 1.250641126f, 1.398617824f, 1.564103225f, 1.74916897f,  1.956131817f,
        2.187582649f, 2.446418898f, 2.735880826f, 3.059592084f, 3.421605075f, 3.826451687f, 4.279200023f,
        4.785517845f, 5.351743533f, 5.984965424f, 6.693110555f, 7.485043894f, 8.370679318f, 9.36110372f,
        10.4687158f,  11.70738129f, 13.09260651f, 14.64173252f, 16.37415215f, 18.31155283f, 20.47818807f,
        22.90118105f, 25.61086418f, 28.64115884f, 32.03f,       32.1f,        32.13f,       32.23f,
        32.6f,        32.61f,       32.64f,       32.66f,       32.7f,        32.71f,       32.93f,
        32.97f,       33.28f,       33.49f,       33.5f,        44.16f,       47.77f};
    phi4.long_rope.short_factors.assign(48, 1.0f);
    shapes.push_back(phi4);

    // Qwen3-30B-A3B: 128 experts of width 768, 8 chosen per token; head size 128 != n_embd /
    // n_head; per-head Q/K norms; a separate output matrix.
    ModelShape qwen3moe;
    qwen3moe.name = "qwen3-30b-a3b";
    qwen3moe.architecture = "qwen3moe";
    qwen3moe.display_name = "Qwen3 30B A3B (synthetic weights)";
    qwen3moe.n_embd = 2048;
    qwen3moe.n_layer = 48;
    qwen3moe.n_head = 32;
    qwen3moe.n_head_kv = 4;
    qwen3moe.head_size = 128;
    qwen3moe.n_ff = 6144;
    qwen3moe.n_vocab = 151936;
    qwen3moe.n_ctx = 40960;
    qwen3moe.rope_freq_base = 1000000;
    qwen3moe.rms_norm_eps = 1e-6;
    qwen3moe.qk_norm = true;
    qwen3moe.experts = {128, 8, 768};
    shapes.push_back(qwen3moe);

    return shapes;
}

} // namespace

const std::vector<ModelShape>& known_shapes() {
    static const std::vector<ModelShape> shapes = make_known_shapes();
    return shapes;
}

std::optional<ModelShape> find_shape(std::string_view name) {
    for (const auto& s : known_shapes())
        if (s.name == name) return s;
    return std::nullopt;
}

ModelShape scaled_down(const ModelShape& base, int64_t n_embd, int64_t n_layer, int64_t n_ff,
                       int64_t n_vocab) {
    ModelShape s = base;
    s.name = base.name + "-scaled";
    s.display_name = base.display_name + " (scaled down)";
    const int64_t head_dim = base.head_dim();
    if (base.head_size > 0) s.head_size = base.head_size;
    s.n_embd = n_embd;
    s.n_layer = n_layer;
    s.n_ff = n_ff;
    s.n_vocab = n_vocab;
    s.n_head = std::max<int64_t>(1, n_embd / head_dim);
    s.n_head_kv = std::max<int64_t>(1, s.n_head * base.n_head_kv / base.n_head);
    while (s.n_head % s.n_head_kv != 0)
        --s.n_head_kv;
    if (base.experts.count > 0) {
        s.experts.count = std::min<int64_t>(base.experts.count, 8);
        s.experts.used = std::max<int64_t>(1, std::min(base.experts.used, s.experts.count / 2));
        s.experts.n_ff = n_ff;
    }
    return s;
}

double LongRope::attn_factor(int64_t n_ctx) const {
    if (original_context <= 0 || n_ctx <= original_context) return 1.0;
    return std::sqrt(1 +
                     std::log(double(n_ctx) / double(original_context)) / std::log(double(original_context)));
}

std::vector<float> llama3_rope_factors(const ModelShape& shape) {
    const Llama3RopeScaling& r = shape.rope_scaling;
    const int64_t dim = shape.rotated_dims();
    const double low_freq_wavelen = double(r.original_context) / r.low_freq_factor;
    const double high_freq_wavelen = double(r.original_context) / r.high_freq_factor;
    std::vector<float> factors;
    for (int64_t i = 0; i < dim; i += 2) {
        const double freq = 1.0 / std::pow(shape.rope_freq_base, double(i) / double(dim));
        const double wavelen = 2 * std::numbers::pi / freq;
        double factor = 1;
        if (wavelen > low_freq_wavelen) {
            factor = r.factor;
        } else if (wavelen >= high_freq_wavelen) {
            // The scaled frequency is freq * ((1 - smooth) / factor + smooth); store its divisor.
            const double smooth = (double(r.original_context) / wavelen - r.low_freq_factor) /
                                  (r.high_freq_factor - r.low_freq_factor);
            factor = 1 / ((1 - smooth) / r.factor + smooth);
        }
        factors.push_back(static_cast<float>(factor));
    }
    return factors;
}

} // namespace hearth::gguf
