#pragma once
// The element-wise and attention steps of the forward pass, on rows of floats.
#include "engine/forward/kv_cache.h"
#include "engine/model/hparams.h"
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

void add_bias_rows(float* x, const float* bias, int32_t rows, int32_t dim);
void add_rows(float* x, const float* y, size_t count); // x += y
// gate = silu(gate) * up, row by row (llama.cpp's vector blocks restart on each row), with the
// active kernel table's SwiGLU; a batch of rows is shared out over the pool.
void swiglu_rows(float* gate, const float* up, int32_t rows, int32_t dim, kernels::ThreadPool& pool);

// The divisor of each rotated pair's frequency: Llama 3's rope_freqs factors, else 1.
std::vector<float> rope_frequency_factors(const HyperParams& hp, const std::vector<float>& freq_factors);
// cos/sin of every pair for positions n_past .. n_past + n - 1: out is (n, rope_dim / 2, 2).
// Pair i turns at base^(-2i/rope_dim) / factor[i] radians per position.
void rope_tables(const HyperParams& hp, const std::vector<float>& freq_factors, int32_t n_past, int32_t n,
                 float* out);
// Rotates the first rope_dim values of every head of n rows of (n_heads, head_dim).
void apply_rope(const HyperParams& hp, const float* tables, int32_t n, float* x, int32_t n_heads);

// Largest head size the attention kernel takes (checked at load).
inline constexpr int32_t kMaxHeadDim = static_cast<int32_t>(kernels::kMaxAttentionHeadDim);

// Writes n rows of keys and values (kv_width floats each) into the cache at n_past ...
void store_kv(KvCache& cache, int32_t layer, int32_t n_past, int32_t n, const float* k, const float* v);

// Causal attention of n query rows (positions n_past ..) over the cache, grouped-query:
// q and out are (n, n_head * head_dim).
void attend(const HyperParams& hp, const KvCache& cache, int32_t layer, int32_t n_past, int32_t n,
            const float* q, float* out, kernels::ThreadPool& pool);

} // namespace hearth::engine
