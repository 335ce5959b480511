#include "engine/model/speed_prediction.h"
#include "engine/model/hparams.h"
#include "engine/model/model.h"
#include "kernels/tensor_type.h"
#include <algorithm>
#include <cmath>

namespace hearth::engine {
namespace {

void add_work(std::vector<TypedWork>& work, kernels::TensorType type, int64_t multiply_adds, int32_t experts,
              int32_t chosen) {
    for (TypedWork& w : work)
        if (w.type == type && w.experts == experts && w.chosen == chosen) {
            w.multiply_adds += multiply_adds;
            return;
        }
    work.push_back({type, multiply_adds, experts, chosen});
}

// The rows of each forward pass of a prompt, cut as Inference::eval cuts it: passes of `batch`
// rows, except that a prompt never leaves a single row for a pass of its own.
std::vector<int64_t> prompt_passes(int64_t prompt, int64_t batch) {
    std::vector<int64_t> passes;
    for (int64_t left = prompt; left > 0;) {
        int64_t n = std::min(batch, left);
        if (left - n == 1 && n > 2) --n;
        passes.push_back(n);
        left -= n;
    }
    return passes;
}

// Bytes a weight of `type` takes in its blocks.
double bytes_per_weight(kernels::TensorType type) {
    const kernels::TypeTraits traits = kernels::type_traits(type);
    return static_cast<double>(traits.block_bytes) / static_cast<double>(traits.block_elements);
}

// An expert's product: its read and arithmetic overlap only in part (speed_prediction.h).
double expert_product_seconds(double read, double compute) {
    return std::max(read, compute) + 0.5 * std::min(read, compute);
}

// Seconds a pass of `rows` rows spends on the weights of `w`; -1 when the limits lack the rate
// of their type. A mixture's pass multiplies each expert once over the rows that chose it: of
// `rows` rows that each choose `chosen` of `experts`, evenly spread, r with the binomial chance.
// Each matrix's weights are read from memory once per pass: a product of few rows (an expert's)
// takes at least that read, at the measured bandwidth; the kernel rates are timed on a matrix
// the caches hold.
double pass_seconds(const TypedWork& w, int64_t rows, const MachineLimits& limits) {
    const double weight_bytes = bytes_per_weight(w.type);
    const bool experts = w.experts > w.chosen;
    const auto seconds_at = [&](int64_t batch, double multiply_adds) {
        const double rate = limits.gemm_gflops(w.type, batch);
        if (rate <= 0) return -1.0;
        const double compute = 2.0 * multiply_adds * static_cast<double>(batch) / (rate * 1e9);
        const double read =
            limits.bandwidth_gbps > 0 ? multiply_adds * weight_bytes / (limits.bandwidth_gbps * 1e9) : 0.0;
        return experts ? expert_product_seconds(read, compute) : std::max(compute, read);
    };
    if (!experts) return seconds_at(rows, static_cast<double>(w.multiply_adds));
    const double p = static_cast<double>(w.chosen) / w.experts;
    const double per_expert = static_cast<double>(w.multiply_adds) / w.chosen;
    const double n = static_cast<double>(rows);
    double seconds = 0;
    for (int64_t r = 1; r <= rows; ++r) {
        const double k = static_cast<double>(r);
        const double chance = std::exp(std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1) +
                                       k * std::log(p) + (n - k) * std::log1p(-p));
        if (chance < 1e-12) continue;
        const double s = seconds_at(r, per_expert);
        if (s < 0) return -1;
        seconds += chance * s;
    }
    return seconds * w.experts;
}

} // namespace

ModelCost model_cost(const gguf::GgufFile& file) {
    const HyperParams hp = read_hyperparams(file);
    const ModelInfo info = Model::read_info(file);
    ModelCost cost;
    cost.n_layer = info.n_layer;
    cost.kv_bytes_per_token = info.kv_bytes_per_token;
    // Scores and weighted sums: head_dim multiply-adds each, per query head and cached position.
    cost.attention_multiply_adds = 2 * int64_t{info.n_head} * info.head_dim * info.n_layer;
    // The FFN's activation, over its gate values: each chosen expert's for a mixture.
    switch (hp.traits.ffn) {
    case FfnKind::Swiglu:
        cost.activation_values = int64_t{hp.n_ff} * hp.n_layer;
        break;
    case FfnKind::GeluGated:
    case FfnKind::Gelu:
        cost.activation = Activation::Gelu;
        cost.activation_values = int64_t{hp.n_ff} * hp.n_layer;
        break;
    case FfnKind::MixtureOfExperts:
        cost.activation_values = int64_t{hp.n_ff_expert} * hp.n_expert_used * hp.n_layer;
        cost.extra_decode_jobs_per_layer = hp.n_expert_used + 1;
        cost.extra_prompt_jobs_per_layer = 4;
        break;
    }
    bool has_output = false;
    const gguf::TensorInfo* embeddings = nullptr;
    for (const gguf::TensorInfo& t : file.tensors()) {
        if (t.name == "token_embd.weight") embeddings = &t;
        if (t.name == "output.weight") {
            has_output = true;
            cost.decode_weight_bytes += static_cast<int64_t>(t.bytes);
        }
        // Every matrix of a layer is multiplied (vectors are norms and biases); the experts'
        // 3-dimensional stacks only in the share a token chooses.
        if (!t.name.starts_with("blk.") || t.shape.size() < 2) continue;
        if (t.shape.size() == 3 && t.name.find("_exps") != std::string::npos && hp.n_expert > 0 &&
            hp.n_expert_used > 0) {
            const int64_t used = hp.n_expert_used, count = hp.n_expert;
            cost.decode_weight_bytes += static_cast<int64_t>(t.bytes) * used / count;
            add_work(cost.prompt_work, t.type, t.elements() * used / count, hp.n_expert, hp.n_expert_used);
            continue;
        }
        cost.decode_weight_bytes += static_cast<int64_t>(t.bytes);
        add_work(cost.prompt_work, t.type, t.elements(), 1, 1);
        ++cost.dense_products;
    }
    // Tied embeddings: the embedding table is also the output matrix, which decode reads whole.
    if (!has_output && embeddings) cost.decode_weight_bytes += static_cast<int64_t>(embeddings->bytes);
    cost.decode_products = cost.dense_products + (has_output || embeddings ? 1 : 0);
    return cost;
}

ModelCost approximate_model_cost(int64_t file_bytes, int64_t parameters, int64_t active_parameters,
                                 kernels::TensorType type) {
    ModelCost cost;
    cost.approximate = true;
    if (file_bytes <= 0) return cost;
    if (parameters <= 0) { // every byte a weight of `type`
        const kernels::TypeTraits traits = kernels::type_traits(type);
        parameters = static_cast<int64_t>(static_cast<double>(file_bytes) *
                                          static_cast<double>(traits.block_elements) /
                                          static_cast<double>(traits.block_bytes));
    }
    const int64_t active = active_parameters > 0 ? std::min(active_parameters, parameters) : parameters;
    cost.decode_weight_bytes = static_cast<int64_t>(
        static_cast<double>(file_bytes) * static_cast<double>(active) / static_cast<double>(parameters));
    cost.prompt_work.push_back({type, active, 1, 1});
    return cost;
}

SpeedPrediction predict_speed(const ModelCost& cost, const MachineLimits& limits,
                              const PredictionOptions& options) {
    SpeedPrediction p;
    const auto overhead_per_pass = [&](int32_t extra_jobs_per_layer) {
        return static_cast<double>(cost.n_layer) * (kPoolJobsPerLayer + extra_jobs_per_layer) *
               limits.pool_job_microseconds * 1e-6;
    };
    if (limits.bandwidth_gbps > 0 && cost.decode_weight_bytes > 0) {
        // Decode reads every weight once a token; a type whose one-row kernel is slower than
        // that read (Q5_0's, on a CPU with AVX-512) takes its products' time instead, and an
        // expert's product half its arithmetic more.
        const double bandwidth = limits.bandwidth_gbps * 1e9;
        double seconds = static_cast<double>(cost.decode_weight_bytes) / bandwidth;
        for (const TypedWork& w : cost.prompt_work) {
            const double rate = limits.gemm_gflops(w.type, 1);
            const double read = static_cast<double>(w.multiply_adds) * bytes_per_weight(w.type) / bandwidth;
            if (rate <= 0) continue;
            const double compute = 2.0 * static_cast<double>(w.multiply_adds) / (rate * 1e9);
            seconds +=
                (w.experts > w.chosen ? expert_product_seconds(read, compute) : std::max(read, compute)) -
                read;
        }
        seconds += static_cast<double>(cost.kv_bytes_per_token) * options.context_tokens / bandwidth;
        // Each product's fixed cost, the output's too (a model of small matrices feels it).
        seconds +=
            static_cast<double>(cost.decode_products) * limits.decode_product_overhead_microseconds * 1e-6;
        p.decode_tokens_per_second = 1.0 / (seconds + overhead_per_pass(cost.extra_decode_jobs_per_layer));
    }
    const int64_t prompt = std::max(1, options.prompt_tokens);
    const std::vector<int64_t> passes =
        prompt_passes(prompt, std::clamp<int64_t>(options.prompt_batch, 1, prompt));
    double seconds = 0;   // the whole prompt's
    double last_pass = 0; // the seconds of the pass before, reused for one of as many rows
    for (size_t i = 0; i < passes.size(); ++i) {
        if (i == 0 || passes[i] != passes[i - 1]) {
            last_pass = 0;
            for (const TypedWork& w : cost.prompt_work) {
                const double s = pass_seconds(w, passes[i], limits);
                if (s < 0) return p; // a weight type this machine's measurement lacks
                last_pass += s;
            }
        }
        seconds += last_pass;
    }
    if (seconds <= 0) return p;
    const double activation_rate =
        cost.activation == Activation::Gelu ? limits.gelu_gvalues : limits.swiglu_gvalues;
    if (activation_rate > 0)
        seconds += static_cast<double>(prompt) * static_cast<double>(cost.activation_values) /
                   (activation_rate * 1e9);
    // A prompt token attends to the positions before it: half the prompt on average.
    if (limits.peak_gflops > 0)
        seconds += static_cast<double>(prompt) * 2.0 * static_cast<double>(cost.attention_multiply_adds) *
                   (static_cast<double>(prompt) / 2.0) / (limits.peak_gflops * 1e9);
    seconds += static_cast<double>(passes.size()) * overhead_per_pass(cost.extra_prompt_jobs_per_layer);
    // Each pass's products cost their fixed overhead too (a model of small matrices feels it).
    seconds += static_cast<double>(passes.size()) * static_cast<double>(cost.dense_products) *
               limits.product_overhead_microseconds * 1e-6;
    p.prefill_tokens_per_second = static_cast<double>(prompt) / seconds;
    return p;
}

} // namespace hearth::engine
