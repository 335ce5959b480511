#include "engine/forward/mixture_of_experts.h"
#include "engine/forward/transformer_ops.h"
#include "kernels/matmul.h"
#include <algorithm>
#include <cmath>
#include <cstring>

namespace hearth::engine {

ExpertScratch::ExpertScratch(const HyperParams& hp, int32_t n_batch) {
    const size_t b = static_cast<size_t>(n_batch);
    const size_t k = static_cast<size_t>(hp.n_expert_used);
    router_logits.resize(b * static_cast<size_t>(hp.n_expert));
    chosen.resize(b * k);
    chosen_weight.resize(b * k);
    row_of_choice.resize(b * k);
    expert_start.resize(static_cast<size_t>(hp.n_expert) + 1);
    const size_t rows = b * k; // every (token, chosen expert) pair: one row of one expert
    rows_by_expert.resize(rows * static_cast<size_t>(hp.n_embd));
    gate.resize(rows * static_cast<size_t>(hp.n_ff_expert));
    up.resize(rows * static_cast<size_t>(hp.n_ff_expert));
    output.resize(k * static_cast<size_t>(hp.n_embd));
    decode_products.resize(2 * k);
    products.reserve(2 * static_cast<size_t>(hp.n_expert));
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
                        std::vector<std::byte>& matmul_scratch, bool rows_as_decode) {
    const int32_t dim = hp.n_embd, k = hp.n_expert_used, ff = hp.n_ff_expert;
    kernels::matmul(l.router, x, n, s.router_logits.data(), pool, matmul_scratch, rows_as_decode);
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

    // The rows of every (token, chosen expert) pair, expert by expert: each expert's rows side
    // by side, so that all experts' products run as one set (two pool jobs, not two per expert).
    const int32_t n_rows = n * k;
    std::fill(s.expert_start.begin(), s.expert_start.end(), 0);
    for (int32_t i = 0; i < n_rows; ++i)
        ++s.expert_start[static_cast<size_t>(s.chosen[static_cast<size_t>(i)]) + 1];
    for (int32_t e = 0; e < hp.n_expert; ++e) {
        const int32_t count = s.expert_start[static_cast<size_t>(e) + 1];
        if (count > 0) hits.add(layer, e, count);
        s.expert_start[static_cast<size_t>(e) + 1] += s.expert_start[static_cast<size_t>(e)];
    }
    // Each pair's row, in token order within an expert; expert_start[e] runs up to expert e + 1's.
    for (int32_t i = 0; i < n_rows; ++i) {
        const int32_t row = s.expert_start[static_cast<size_t>(s.chosen[static_cast<size_t>(i)])]++;
        s.row_of_choice[static_cast<size_t>(i)] = row;
        std::memcpy(s.rows_by_expert.data() + static_cast<size_t>(row) * dim,
                    x + static_cast<size_t>(i / k) * dim, sizeof(float) * dim);
    }
    for (int32_t e = hp.n_expert; e > 0; --e) // back to each expert's first row
        s.expert_start[static_cast<size_t>(e)] = s.expert_start[static_cast<size_t>(e) - 1];
    s.expert_start[0] = 0;

    const auto products_of = [&](auto matrix_input_output) {
        s.products.clear();
        for (int32_t e = 0; e < hp.n_expert; ++e) {
            const int32_t first = s.expert_start[static_cast<size_t>(e)];
            const int32_t count = s.expert_start[static_cast<size_t>(e) + 1] - first;
            if (count > 0) matrix_input_output(l.experts[static_cast<size_t>(e)], first, count);
        }
        kernels::matmul_products(s.products, pool, matmul_scratch, rows_as_decode);
    };
    products_of([&](const ExpertWeights& expert, int32_t first, int32_t count) {
        const float* input = s.rows_by_expert.data() + static_cast<size_t>(first) * dim;
        s.products.push_back({&expert.w_gate, input, count, s.gate.data() + static_cast<size_t>(first) * ff});
        s.products.push_back({&expert.w_up, input, count, s.up.data() + static_cast<size_t>(first) * ff});
    });
    swiglu_rows(s.gate.data(), s.up.data(), n_rows, ff, pool);
    // The down products write over the gathered inputs, which are done with.
    products_of([&](const ExpertWeights& expert, int32_t first, int32_t count) {
        s.products.push_back({&expert.w_down, s.gate.data() + static_cast<size_t>(first) * ff, count,
                              s.rows_by_expert.data() + static_cast<size_t>(first) * dim});
    });
    // Each token's output: its chosen experts' rows, weighted, summed in the order chosen (as
    // decode sums them).
    pool.for_each_part(n, pool.size(), [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) {
            float* dst = out + static_cast<size_t>(t) * dim;
            for (int32_t j = 0; j < k; ++j) {
                const size_t i = static_cast<size_t>(t) * k + j;
                const float* src = s.rows_by_expert.data() + static_cast<size_t>(s.row_of_choice[i]) * dim;
                const float w = s.chosen_weight[i];
                for (int32_t d = 0; d < dim; ++d)
                    dst[d] += w * src[d];
            }
        }
    });
}

} // namespace hearth::engine
