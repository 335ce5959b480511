#include "engine/forward/mixture_of_experts.h"
#include "engine/forward/transformer_ops.h"
#include "kernels/matmul.h"
#include <algorithm>
#include <cmath>
#include <cstring>

namespace hearth::engine {

ExpertScratch::ExpertScratch(const HyperParams& hp, int32_t n_batch) {
    const size_t b = static_cast<size_t>(n_batch);
    router_logits.resize(b * static_cast<size_t>(hp.n_expert));
    chosen.resize(b * static_cast<size_t>(hp.n_expert_used));
    chosen_weight.resize(b * static_cast<size_t>(hp.n_expert_used));
    tokens.resize(b);
    token_weight.resize(b);
    input.resize(b * static_cast<size_t>(hp.n_embd));
    const size_t rows = std::max(b, static_cast<size_t>(hp.n_expert_used));
    gate.resize(rows * static_cast<size_t>(hp.n_ff_expert));
    up.resize(rows * static_cast<size_t>(hp.n_ff_expert));
    output.resize(rows * static_cast<size_t>(hp.n_embd));
    decode_products.resize(2 * static_cast<size_t>(hp.n_expert_used));
}

void choose_experts(const float* probabilities, int32_t n, int32_t n_expert, int32_t k, int32_t* chosen,
                    float* weights) {
    for (int32_t t = 0; t < n; ++t) {
        const float* p = probabilities + static_cast<size_t>(t) * n_expert;
        int32_t* ids = chosen + static_cast<size_t>(t) * k;
        float* w = weights + static_cast<size_t>(t) * k;
        // Selection by k passes: k is small (2 to 8) and so is n_expert (up to a few hundred).
        float sum = 0;
        for (int32_t j = 0; j < k; ++j) {
            int32_t best = -1;
            for (int32_t e = 0; e < n_expert; ++e) {
                if (std::find(ids, ids + j, e) != ids + j) continue;
                if (best < 0 || p[e] > p[best]) best = e;
            }
            ids[j] = best;
            w[j] = p[best];
            sum += p[best];
        }
        for (int32_t j = 0; j < k; ++j)
            w[j] /= sum;
    }
}

namespace {

// Row by row softmax in place, in float with double sums.
void softmax_rows(float* x, int32_t rows, int32_t dim) {
    for (int32_t r = 0; r < rows; ++r) {
        float* row = x + static_cast<size_t>(r) * dim;
        const float max = *std::max_element(row, row + dim);
        double sum = 0;
        for (int32_t i = 0; i < dim; ++i) {
            row[i] = std::exp(row[i] - max);
            sum += row[i];
        }
        const float inverse = static_cast<float>(1.0 / sum);
        for (int32_t i = 0; i < dim; ++i)
            row[i] *= inverse;
    }
}

} // namespace

void mixture_of_experts(const HyperParams& hp, const LayerWeights& l, int32_t layer, const float* x,
                        int32_t n, float* out, ExpertScratch& s, ExpertHits& hits, kernels::ThreadPool& pool,
                        std::vector<std::byte>& matmul_scratch) {
    const int32_t dim = hp.n_embd, k = hp.n_expert_used, ff = hp.n_ff_expert;
    kernels::matmul(l.router, x, n, s.router_logits.data(), pool, matmul_scratch);
    softmax_rows(s.router_logits.data(), n, hp.n_expert);
    choose_experts(s.router_logits.data(), n, hp.n_expert, k, s.chosen.data(), s.chosen_weight.data());
    std::fill(out, out + static_cast<size_t>(n) * dim, 0.0f);

    if (n == 1) {
        for (int32_t j = 0; j < k; ++j) {
            const ExpertWeights& expert = l.experts[static_cast<size_t>(s.chosen[static_cast<size_t>(j)])];
            const size_t at = static_cast<size_t>(j) * ff;
            s.decode_products[2 * static_cast<size_t>(j)] = {&expert.w_gate, s.gate.data() + at};
            s.decode_products[2 * static_cast<size_t>(j) + 1] = {&expert.w_up, s.up.data() + at};
            hits.add(layer, s.chosen[static_cast<size_t>(j)], 1);
        }
        kernels::matmul_group(s.decode_products, x, 1, pool, matmul_scratch);
        swiglu_rows(s.gate.data(), s.up.data(), k, ff, pool);
        for (int32_t j = 0; j < k; ++j) {
            const ExpertWeights& expert = l.experts[static_cast<size_t>(s.chosen[static_cast<size_t>(j)])];
            float* result = s.output.data() + static_cast<size_t>(j) * dim;
            kernels::matmul(expert.w_down, s.gate.data() + static_cast<size_t>(j) * ff, 1, result, pool,
                            matmul_scratch);
            const float w = s.chosen_weight[static_cast<size_t>(j)];
            for (int32_t d = 0; d < dim; ++d)
                out[d] += w * result[d];
        }
        return;
    }

    for (int32_t e = 0; e < hp.n_expert; ++e) {
        // The tokens that chose expert e, in order.
        int32_t count = 0;
        for (int32_t t = 0; t < n; ++t)
            for (int32_t j = 0; j < k; ++j)
                if (s.chosen[static_cast<size_t>(t) * k + j] == e) {
                    s.tokens[static_cast<size_t>(count)] = t;
                    s.token_weight[static_cast<size_t>(count)] =
                        s.chosen_weight[static_cast<size_t>(t) * k + j];
                    ++count;
                }
        if (count == 0) continue;
        hits.add(layer, e, count);

        // Their rows side by side (a single token's row is used where it is).
        const float* input = x;
        if (n > 1) {
            for (int32_t i = 0; i < count; ++i)
                std::memcpy(s.input.data() + static_cast<size_t>(i) * dim,
                            x + static_cast<size_t>(s.tokens[static_cast<size_t>(i)]) * dim,
                            sizeof(float) * dim);
            input = s.input.data();
        }
        const ExpertWeights& expert = l.experts[static_cast<size_t>(e)];
        const kernels::MatmulOutput gate_up[] = {{&expert.w_gate, s.gate.data()},
                                                 {&expert.w_up, s.up.data()}};
        kernels::matmul_group(gate_up, input, count, pool, matmul_scratch);
        swiglu_rows(s.gate.data(), s.up.data(), count, ff, pool);
        kernels::matmul(expert.w_down, s.gate.data(), count, s.output.data(), pool, matmul_scratch);
        for (int32_t i = 0; i < count; ++i) {
            float* dst = out + static_cast<size_t>(s.tokens[static_cast<size_t>(i)]) * dim;
            const float* src = s.output.data() + static_cast<size_t>(i) * dim;
            const float w = s.token_weight[static_cast<size_t>(i)];
            for (int32_t d = 0; d < dim; ++d)
                dst[d] += w * src[d];
        }
    }
}

} // namespace hearth::engine
