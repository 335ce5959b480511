#pragma once
// Hyperparameters of a llama-family model, read from GGUF metadata.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hearth::gguf {
class GgufFile;
}

namespace hearth::engine {

enum class Architecture { Llama, Qwen2, Qwen3 };

struct HyperParams {
    Architecture arch = Architecture::Llama;
    std::string arch_name; // "llama", "qwen2", "qwen3"
    int32_t n_vocab = 0;   // rows of token_embd
    int32_t n_embd = 0;    // model width
    int32_t n_layer = 0;
    int32_t n_head = 0;
    int32_t n_head_kv = 0;   // < n_head for grouped-query attention
    int32_t head_dim = 0;    // key_length; n_embd / n_head unless the file says otherwise
    int32_t n_ff = 0;        // feed-forward width
    int32_t n_ctx_train = 0; // context length the model was trained with
    int32_t rope_dim = 0;    // rotated dimensions per head
    float rms_eps = 1e-5f;
    float rope_freq_base = 10000.0f;
    float rope_freq_scale = 1.0f; // linear scaling: positions are multiplied by this
    bool rope_neox = false;       // rotate pairs (i, i + d/2) instead of (2i, 2i + 1)

    int32_t q_width() const { return n_head * head_dim; }
    int32_t kv_width() const { return n_head_kv * head_dim; }
};

// The architecture of a general.architecture name, or nullopt for one the engine cannot run.
std::optional<Architecture> architecture_from_name(std::string_view name);
// The names architecture_from_name accepts, for messages: "llama, qwen2, qwen3".
const char* supported_architectures();

// Reads and checks the hyperparameters; throws hearth::Error naming the file.
HyperParams read_hyperparams(const gguf::GgufFile& file);

} // namespace hearth::engine
