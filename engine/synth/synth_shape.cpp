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
    s.n_embd = n_embd;
    s.n_layer = n_layer;
    s.n_ff = n_ff;
    s.n_vocab = n_vocab;
    s.n_head = std::max<int64_t>(1, n_embd / head_dim);
    s.n_head_kv = std::max<int64_t>(1, s.n_head * base.n_head_kv / base.n_head);
    while (s.n_head % s.n_head_kv != 0)
        --s.n_head_kv;
    return s;
}

std::vector<float> llama3_rope_factors(const ModelShape& shape) {
    const Llama3RopeScaling& r = shape.rope_scaling;
    const int64_t dim = shape.head_dim();
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
