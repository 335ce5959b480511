#include "engine/model/hparams.h"
#include "engine/error.h"
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/image_projector.h"
#include <cmath>
#include <string>

namespace hearth::engine {

namespace {

int32_t required_int(const gguf::GgufFile& file, const std::string& key) {
    auto v = file.get_int(key);
    if (!v) file.fail("missing metadata key " + key);
    if (*v <= 0 || *v > (int64_t{1} << 30))
        file.fail("metadata " + key + " has an impossible value " + std::to_string(*v));
    return static_cast<int32_t>(*v);
}

int32_t optional_int(const gguf::GgufFile& file, const std::string& key, int32_t fallback) {
    auto v = file.get_int(key);
    if (!v) return fallback;
    if (*v <= 0 || *v > (int64_t{1} << 30))
        file.fail("metadata " + key + " has an impossible value " + std::to_string(*v));
    return static_cast<int32_t>(*v);
}

// One row per architecture: the names, and how each builds its layers (facts from llama.cpp's
// src/models/*.cpp and its GGUF converter).
struct ArchitectureRow {
    const char* name;
    Architecture arch;
    ArchitectureTraits traits;
};

ArchitectureTraits llama_traits() {
    return {};
}
ArchitectureTraits qwen2_traits() {
    ArchitectureTraits t;
    t.rope_neox = true;
    t.qkv_bias = true;
    return t;
}
ArchitectureTraits qwen3_traits() {
    ArchitectureTraits t;
    t.rope_neox = true;
    t.qk_norm = true;
    return t;
}
// Gemma stores its norm weights as (1 + w) already: llama.cpp's converter adds the 1, so a
// plain RMSNorm applies them.
ArchitectureTraits gemma2_traits() {
    ArchitectureTraits t;
    t.ffn = FfnKind::GeluGated;
    t.rope_neox = true;
    t.post_norms = true;
    t.scale_embeddings = true;
    t.swa_pattern = 2; // even layers local
    t.default_window = 4096;
    t.honours_window = true;
    t.default_attn_softcap = 50.0f;
    t.default_final_softcap = 30.0f;
    t.query_scale_by_width_layers = 46; // Gemma 2 27B
    return t;
}
ArchitectureTraits gemma3_traits() {
    ArchitectureTraits t = gemma2_traits();
    t.qk_norm = true;
    t.swa_pattern = 6;    // 5 local : 1 global
    t.default_window = 0; // local layers only when the file declares a window
    t.swa_rope_base_default_10k = true;
    t.default_attn_softcap = 0;
    t.default_final_softcap = 0;
    t.query_scale_by_width_layers = 62; // Gemma 3 27B
    return t;
}
ArchitectureTraits phi3_traits() {
    ArchitectureTraits t;
    t.rope_neox = true;
    t.fused_qkv = true;
    t.fused_gate_up = true;
    // Phi-3's reference code (transformers) masks every layer to the declared sliding_window
    // (2047 for Phi-3-mini-4k); llama.cpp ignores it (PR 13676). A window at least as long as
    // the context masks nothing (Phi-3.5/Phi-4-mini declare 262144), and attention then takes
    // the plain path (transformer_ops.cpp's attend).
    t.honours_window = true; // every layer local: swa_pattern 0
    return t;
}
ArchitectureTraits gpt2_traits() {
    ArchitectureTraits t;
    t.norm = NormKind::LayerNorm;
    t.ffn = FfnKind::Gelu;
    t.positions = PositionKind::Learned;
    t.fused_qkv = true;
    t.qkv_bias = true;
    t.linear_biases = true;
    return t;
}
ArchitectureTraits qwen3moe_traits() {
    ArchitectureTraits t = qwen3_traits();
    t.ffn = FfnKind::MixtureOfExperts;
    return t;
}

const std::vector<ArchitectureRow>& architecture_rows() {
    static const std::vector<ArchitectureRow> rows = {
        {"llama", Architecture::Llama, llama_traits()},
        {"qwen2", Architecture::Qwen2, qwen2_traits()},
        {"qwen3", Architecture::Qwen3, qwen3_traits()},
        {"gemma2", Architecture::Gemma2, gemma2_traits()},
        {"gemma3", Architecture::Gemma3, gemma3_traits()},
        {"phi3", Architecture::Phi3, phi3_traits()},
        {"gpt2", Architecture::Gpt2, gpt2_traits()},
        {"qwen3moe", Architecture::Qwen3Moe, qwen3moe_traits()},
    };
    return rows;
}

} // namespace

std::optional<Architecture> architecture_from_name(std::string_view name) {
    for (const ArchitectureRow& row : architecture_rows())
        if (name == row.name) return row.arch;
    return std::nullopt;
}

const char* supported_architectures() {
    static const std::string names = [] {
        std::string s;
        for (const ArchitectureRow& row : architecture_rows())
            s += (s.empty() ? "" : ", ") + std::string(row.name);
        return s;
    }();
    return names.c_str();
}

const ArchitectureTraits& architecture_traits(Architecture arch) {
    for (const ArchitectureRow& row : architecture_rows())
        if (row.arch == arch) return row.traits;
    return architecture_rows().front().traits;
}

bool HyperParams::has_local_layers() const {
    for (uint8_t local : is_swa)
        if (local) return true;
    return false;
}

HyperParams read_hyperparams(const gguf::GgufFile& file) {
    HyperParams hp;
    auto arch = file.get_string("general.architecture");
    if (!arch) file.fail("missing metadata key general.architecture");
    hp.arch_name = *arch;
    const std::optional<Architecture> known = architecture_from_name(*arch);
    if (gguf::is_image_projector(file))
        file.fail("this is an image projector (mmproj) for a vision model, not a language model: load the "
                  "model it belongs to (hearth-cli takes the projector with --mmproj)");
    if (!known)
        file.fail("unsupported architecture '" + *arch + "' (supported: " + supported_architectures() + ")");
    hp.arch = *known;
    hp.traits = architecture_traits(hp.arch);
    const ArchitectureTraits& traits = hp.traits;

    const std::string p = *arch + ".";
    hp.n_embd = required_int(file, p + "embedding_length");
    hp.n_layer = required_int(file, p + "block_count");
    hp.n_ff = required_int(file, p + "feed_forward_length");
    hp.n_head = required_int(file, p + "attention.head_count");
    hp.n_head_kv = optional_int(file, p + "attention.head_count_kv", hp.n_head);
    hp.n_ctx_train = optional_int(file, p + "context_length", 2048);
    if (hp.n_embd % hp.n_head != 0 && !file.get_int(p + "attention.key_length"))
        file.fail("embedding_length " + std::to_string(hp.n_embd) + " is not a multiple of head_count " +
                  std::to_string(hp.n_head));
    hp.head_dim = optional_int(file, p + "attention.key_length", hp.n_embd / hp.n_head);
    if (auto value_length = file.get_int(p + "attention.value_length");
        value_length && *value_length != hp.head_dim)
        file.fail("attention.value_length differs from key_length, which is not supported");
    if (hp.n_head % hp.n_head_kv != 0)
        file.fail("head_count " + std::to_string(hp.n_head) + " is not a multiple of head_count_kv " +
                  std::to_string(hp.n_head_kv));
    if (hp.head_dim > 512)
        file.fail("head size " + std::to_string(hp.head_dim) + " is larger than the 512 supported");
    // The query width (heads x head size) is an int32 everywhere the model is sized.
    if (int64_t{hp.n_head} * hp.head_dim > (int64_t{1} << 30))
        file.fail("head_count " + std::to_string(hp.n_head) + " x key_length " + std::to_string(hp.head_dim) +
                  " is too large");
    hp.rope_dim = optional_int(file, p + "rope.dimension_count", hp.head_dim);
    if (hp.rope_dim > hp.head_dim || hp.rope_dim % 2 != 0)
        file.fail("rope.dimension_count " + std::to_string(hp.rope_dim) + " does not fit head size " +
                  std::to_string(hp.head_dim));
    const std::string eps_key = traits.norm == NormKind::LayerNorm ? "attention.layer_norm_epsilon"
                                                                   : "attention.layer_norm_rms_epsilon";
    if (auto eps = file.get_float(p + eps_key)) hp.rms_eps = static_cast<float>(*eps);
    if (!(hp.rms_eps >= 0) || !std::isfinite(hp.rms_eps))
        file.fail(eps_key + " must be finite and not negative");
    if (auto base = file.get_float(p + "rope.freq_base")) hp.rope_freq_base = static_cast<float>(*base);
    if (!(hp.rope_freq_base > 0) || !std::isfinite(hp.rope_freq_base))
        file.fail("rope.freq_base must be positive");

    // Linear position scaling; Llama 3's frequency scaling comes as the rope_freqs tensor instead.
    auto scaling_type = file.get_string(p + "rope.scaling.type");
    if (auto factor = file.get_float(p + "rope.scaling.factor");
        factor && *factor > 0 && (!scaling_type || *scaling_type == "linear"))
        hp.rope_freq_scale = static_cast<float>(1.0 / *factor);
    else if (auto linear = file.get_float(p + "rope.scale_linear"); linear && *linear > 0)
        hp.rope_freq_scale = static_cast<float>(1.0 / *linear);
    if (scaling_type && *scaling_type == "none") hp.rope_freq_scale = 1.0f;
    hp.n_ctx_orig = optional_int(file, p + "rope.scaling.original_context_length", hp.n_ctx_train);
    if (auto factor = file.get_float(p + "rope.scaling.attn_factor")) {
        hp.rope_attn_factor = static_cast<float>(*factor);
        if (!(hp.rope_attn_factor > 0) || !std::isfinite(hp.rope_attn_factor))
            file.fail("rope.scaling.attn_factor must be positive");
    }

    hp.rope_neox = traits.rope_neox;

    // Queries are scaled by 1/sqrt(head size), except where the traits say otherwise.
    hp.attention_scale = 1.0f / std::sqrt(static_cast<float>(hp.head_dim));
    if (traits.query_scale_by_width_layers != 0 && hp.n_layer == traits.query_scale_by_width_layers)
        hp.attention_scale = 1.0f / std::sqrt(static_cast<float>(hp.n_embd / hp.n_head));

    // Soft-capping.
    hp.attn_softcap = traits.default_attn_softcap;
    hp.final_softcap = traits.default_final_softcap;
    if (traits.default_attn_softcap != 0)
        if (auto cap = file.get_float(p + "attn_logit_softcapping"))
            hp.attn_softcap = static_cast<float>(*cap);
    if (auto cap = file.get_float(p + "final_logit_softcapping")) hp.final_softcap = static_cast<float>(*cap);
    if (!(hp.attn_softcap >= 0) || !(hp.final_softcap >= 0) || !std::isfinite(hp.attn_softcap) ||
        !std::isfinite(hp.final_softcap))
        file.fail("logit soft-capping values must be finite and not negative");

    // Sliding-window layers: the file's pattern (one bool per layer, or every n-th layer global),
    // else the architecture's.
    hp.rope_freq_base_swa = traits.swa_rope_base_default_10k ? 10000.0f : hp.rope_freq_base;
    hp.rope_freq_scale_swa = traits.swa_rope_base_default_10k ? 1.0f : hp.rope_freq_scale;
    hp.sliding_window = traits.honours_window ? traits.default_window : 0;
    if (traits.honours_window)
        if (auto window = file.get_int(p + "attention.sliding_window")) {
            if (*window < 0 || *window > (int64_t{1} << 30))
                file.fail("attention.sliding_window has an impossible value " + std::to_string(*window));
            hp.sliding_window = static_cast<int32_t>(*window);
        }
    if (hp.sliding_window > 0) {
        hp.is_swa.assign(static_cast<size_t>(hp.n_layer), 0);
        const std::string pattern_key = p + "attention.sliding_window_pattern";
        if (const gguf::Array* pattern = file.get_array(pattern_key)) {
            if (pattern->items.size() < static_cast<size_t>(hp.n_layer))
                file.fail(pattern_key + " has fewer entries than block_count");
            for (int32_t i = 0; i < hp.n_layer; ++i) {
                const gguf::Value& item = pattern->items[static_cast<size_t>(i)];
                const bool* local = std::get_if<bool>(&item.data);
                if (!local) file.fail(pattern_key + " must be an array of bools");
                hp.is_swa[static_cast<size_t>(i)] = *local ? 1 : 0;
            }
        } else {
            const int32_t n_pattern = optional_int(file, pattern_key, traits.swa_pattern);
            // llama.cpp's rule: layer i is local unless i % n_pattern == n_pattern - 1.
            for (int32_t i = 0; i < hp.n_layer; ++i)
                hp.is_swa[static_cast<size_t>(i)] = n_pattern == 0 || i % n_pattern < n_pattern - 1;
        }
        if (auto base = file.get_float(p + "rope.freq_base_swa")) {
            hp.rope_freq_base_swa = static_cast<float>(*base);
            if (!(hp.rope_freq_base_swa > 0) || !std::isfinite(hp.rope_freq_base_swa))
                file.fail("rope.freq_base_swa must be positive");
        }
        if (!hp.has_local_layers()) hp.is_swa.clear();
    }

    if (traits.ffn == FfnKind::MixtureOfExperts) {
        hp.n_expert = required_int(file, p + "expert_count");
        hp.n_expert_used = required_int(file, p + "expert_used_count");
        if (hp.n_expert_used > hp.n_expert)
            file.fail("expert_used_count " + std::to_string(hp.n_expert_used) + " exceeds expert_count " +
                      std::to_string(hp.n_expert));
        hp.n_ff_expert = optional_int(file, p + "expert_feed_forward_length", hp.n_ff / hp.n_expert_used);
    }
    return hp;
}

} // namespace hearth::engine
