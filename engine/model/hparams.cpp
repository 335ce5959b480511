#include "engine/model/hparams.h"
#include "engine/error.h"
#include "engine/gguf/gguf_file.h"
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

} // namespace

std::optional<Architecture> architecture_from_name(std::string_view name) {
    if (name == "llama") return Architecture::Llama;
    if (name == "qwen2") return Architecture::Qwen2;
    if (name == "qwen3") return Architecture::Qwen3;
    return std::nullopt;
}

const char* supported_architectures() {
    return "llama, qwen2, qwen3";
}

HyperParams read_hyperparams(const gguf::GgufFile& file) {
    HyperParams hp;
    auto arch = file.get_string("general.architecture");
    if (!arch) file.fail("missing metadata key general.architecture");
    hp.arch_name = *arch;
    const std::optional<Architecture> known = architecture_from_name(*arch);
    if (!known)
        file.fail("unsupported architecture '" + *arch + "' (supported: " + supported_architectures() + ")");
    hp.arch = *known;

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
    if (auto eps = file.get_float(p + "attention.layer_norm_rms_epsilon"))
        hp.rms_eps = static_cast<float>(*eps);
    if (!(hp.rms_eps >= 0) || !std::isfinite(hp.rms_eps))
        file.fail("attention.layer_norm_rms_epsilon must be finite and not negative");
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

    hp.rope_neox = hp.arch == Architecture::Qwen2 || hp.arch == Architecture::Qwen3;
    return hp;
}

} // namespace hearth::engine
