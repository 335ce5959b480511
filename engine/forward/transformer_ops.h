#pragma once
// The element-wise and attention steps of the forward pass, on rows of floats.
#include "engine/forward/kv_cache.h"
#include "engine/model/hparams.h"
#include "engine/model/model.h"
#include "kernels/kernel_table.h"
#include "kernels/matmul.h"
#include "kernels/thread_pool.h"
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hearth::engine {

// Rows of the token embedding table, converted to F32: out is (n, n_embd).
void embed_tokens(const kernels::WeightMatrix& table, const int32_t* tokens, int32_t n, float* out);

// out[r] = x[r] / rms(x[r]) * weight, for `rows` rows of `dim`; out may alias x.
void rms_norm_rows(const float* x, const float* weight, int32_t rows, int32_t dim, float eps, float* out);

// out[r] = (x[r] - mean) / sqrt(var + eps) * weight + bias (GPT-2's LayerNorm); out may alias x.
void layer_norm_rows(const float* x, const float* weight, const float* bias, int32_t rows, int32_t dim,
                     float eps, float* out);

void add_bias_rows(float* x, const float* bias, int32_t rows, int32_t dim);
void scale_values(float* x, size_t count, float factor); // x *= factor
// x = cap * tanh(x / cap): Gemma 2's final-logit soft-capping.
void soft_cap_values(float* x, size_t count, float cap);
// GELU by its tanh approximation, as llama.cpp's ggml_gelu: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
// computed as x sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)) by the active kernel table's GELU.
float gelu(float x);
void gelu_values(float* x, size_t count);
// gate = gelu(gate) * up, row by row; a batch of rows is shared out over the pool.
void geglu_rows(float* gate, const float* up, int32_t rows, int32_t dim, kernels::ThreadPool& pool);
void add_rows(float* x, const float* y, size_t count); // x += y
// gate = silu(gate) * up, row by row (llama.cpp's vector blocks restart on each row), with the
// active kernel table's SwiGLU; a batch of rows is shared out over the pool.
void swiglu_rows(float* gate, const float* up, int32_t rows, int32_t dim, kernels::ThreadPool& pool);

// The divisor of each rotated pair's frequency: Llama 3's rope_freqs factors, else 1.
std::vector<float> rope_frequency_factors(const HyperParams& hp, const std::vector<float>& freq_factors);
// Which factors the model's rotation uses, for the CPU's forward pass, the GPU's and the turn of
// cached keys in a context shift alike: for a context up to the original one LongRoPE's short
// factors, which stand where Llama 3's rope_freqs would (empty: none); for a cache of n_ctx
// positions longer than the original context, LongRoPE's long ones (uses_long_rope_factors).
const std::vector<float>& short_rope_factors(const ModelWeights& w);
bool uses_long_rope_factors(const HyperParams& hp, const ModelWeights& w, int32_t n_ctx);
// The rotation of one set of layers: the frequency base, the linear position scale, and the factor
// cos and sin are multiplied by (LongRoPE's attention factor; 1 otherwise).
struct RopeConfig {
    float freq_base = 10000.0f;
    float freq_scale = 1.0f;
    float attn_factor = 1.0f;
};
// The model's global layers' rotation (rope.freq_base, its scaling, rope.scaling.attn_factor), and
// its local (sliding-window) layers' (rope.freq_base_swa).
RopeConfig global_rope(const HyperParams& hp);
RopeConfig local_rope(const HyperParams& hp);
// Whether some layers turn otherwise than the global ones (Gemma 3's local base 1e4); when not
// (Phi-3, every layer local with the global rotation), one table serves every layer.
bool local_rope_differs(const HyperParams& hp);
// The rotation of one layer: local_rope for a sliding-window layer, else global_rope.
RopeConfig layer_rope(const HyperParams& hp, int32_t layer);
// cos/sin of every pair for positions n_past .. n_past + n - 1 (n_past may be negative: a turn
// back), with a given rotation: out is (n, rope_dim / 2, 2). Pair i turns at
// base^(-2i/rope_dim) / freq_factors[i] radians per position; freq_factors has rope_dim / 2 entries.
void rope_tables(const HyperParams& hp, const RopeConfig& config, const float* freq_factors, int32_t n_past,
                 int32_t n, float* out);
// Rotates the first rope_dim values of every head of n rows of (n_heads, head_dim). Does nothing
// for a model without rotary positions (GPT-2's are learned), whose keys must not be turned.
void apply_rope(const HyperParams& hp, const float* tables, int32_t n, float* x, int32_t n_heads);

// Largest head size the attention kernel takes (checked at load).
inline constexpr int32_t kMaxHeadDim = static_cast<int32_t>(kernels::kMaxAttentionHeadDim);

// Writes n rows of keys and values (kv_width floats each) into the cache at n_past ...
void store_kv(KvCache& cache, int32_t layer, int32_t n_past, int32_t n, const float* k, const float* v);

// How one layer attends: the scale of q . k, and its sliding window and soft-cap (none: the plain
// kernels run).
struct LayerAttention {
    float scale = 1.0f;
    kernels::AttentionLimits limits;
    // The batch's rows also see each other's later keys (one image's positions): each row sees
    // every earlier position and the whole batch, and on a sliding-window layer still no key
    // `window` or more positions before itself.
    bool batch_sees_itself = false;
    // Each row attends as a decode step at its position would (the table's attention_as_decode):
    // a verify pass then scores each drafted token bit for bit as plain decoding does (the
    // prefill kernels of several positions may sum in another order).
    bool rows_as_decode = false;
};
LayerAttention layer_attention(const HyperParams& hp, int32_t layer);

// Causal attention of n query rows (positions n_past ..) over the cache, grouped-query:
// q and out are (n, n_head * head_dim). With how.batch_sees_itself, the batch's rows attend
// both ways among themselves.
void attend(const HyperParams& hp, const KvCache& cache, int32_t layer, int32_t n_past, int32_t n,
            const float* q, float* out, kernels::ThreadPool& pool, const LayerAttention& how);

} // namespace hearth::engine
