#pragma once
// The feed-forward step of a mixture-of-experts layer (Qwen3 MoE): a router scores the experts,
// each token takes its top k, and the chosen experts' SwiGLU outputs are summed with the
// router's weights renormalized over the chosen ones.
#include "engine/forward/expert_hits.h"
#include "engine/model/hparams.h"
#include "engine/model/model.h"
#include "kernels/matmul.h"
#include "kernels/thread_pool.h"
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hearth::engine {

// Buffers for one batch of up to n_batch tokens, allocated once.
struct ExpertScratch {
    ExpertScratch() = default;
    ExpertScratch(const HyperParams& hp, int32_t n_batch);
    std::vector<float> router_logits;   // (n_batch, n_expert), then the router's probabilities
    std::vector<int32_t> chosen;        // (n_batch, n_expert_used) the experts each token takes
    std::vector<float> chosen_weight;   // (n_batch, n_expert_used) their weights, summing to 1
    std::vector<int32_t> row_of_choice; // (n_batch, n_expert_used) each choice's row in rows_by_expert
    std::vector<int32_t> expert_start;  // (n_expert + 1) each expert's first row in rows_by_expert
    // (n_batch x n_expert_used, n_embd) the tokens' rows grouped by expert, then the down products
    std::vector<float> rows_by_expert;
    std::vector<float> gate, up;                        // (n_batch x n_expert_used, n_ff_expert)
    std::vector<float> output;                          // (n_expert_used, n_embd) decode's down products
    std::vector<kernels::MatmulOutput> decode_products; // (2 n_expert_used) gate and up of each chosen
    std::vector<kernels::MatmulProduct> products;       // a batch's expert products (2 n_expert reserved)
};

// For each of n rows of router probabilities (n_expert each, summing to 1), the k largest
// (ties to the lower index) and their probabilities divided by the chosen ones' sum.
void choose_experts(const float* probabilities, int32_t n, int32_t n_expert, int32_t k, int32_t* chosen,
                    float* weights);

// out = the layer's mixture of experts of x, (n, n_embd) each. The tokens are grouped by expert,
// so each chosen expert's rows are read once per batch, and an expert no token chose is not read
// at all; all experts' gate and up products run as one set over the pool, then their down
// products (kernels::matmul_products). Decode (one token) reads only the chosen experts' rows,
// their gate and up products in one job over the pool (they share the input), then one job per
// down product. Counts the choices in `hits`. rows_as_decode: each row's products as decoding it
// alone would give them (kernels::matmul's as_decode).
void mixture_of_experts(const HyperParams& hp, const LayerWeights& l, int32_t layer, const float* x,
                        int32_t n, float* out, ExpertScratch& s, ExpertHits& hits, kernels::ThreadPool& pool,
                        std::vector<std::byte>& matmul_scratch, bool rows_as_decode = false);

} // namespace hearth::engine
