#include "engine/model/speed_prediction.h"
#include "engine/model/hparams.h"
#include "engine/model/model.h"
#include <algorithm>
#include <cmath>

namespace hearth::engine {
namespace {

void add_work(std::vector<TypedWork>& work, kernels::TensorType type, int64_t multiply_adds,
              int64_t batch_share) {
    for (TypedWork& w : work)
        if (w.type == type && w.batch_share == batch_share) {
            w.multiply_adds += multiply_adds;
            return;
        }
    work.push_back({type, multiply_adds, batch_share});
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
            add_work(cost.prompt_work, t.type, t.elements() * used / count,
                     std::max<int64_t>(1, count / used));
            continue;
        }
        cost.decode_weight_bytes += static_cast<int64_t>(t.bytes);
        add_work(cost.prompt_work, t.type, t.elements(), 1);
    }
    // Tied embeddings: the embedding table is also the output matrix, which decode reads whole.
    if (!has_output && embeddings) cost.decode_weight_bytes += static_cast<int64_t>(embeddings->bytes);
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
    cost.prompt_work.push_back({type, active, 1});
    return cost;
}

SpeedPrediction predict_speed(const ModelCost& cost, const MachineLimits& limits,
                              const PredictionOptions& options) {
    SpeedPrediction p;
    const double overhead_per_pass =
        static_cast<double>(cost.n_layer) * kPoolJobsPerLayer * limits.pool_job_microseconds * 1e-6;
    if (limits.bandwidth_gbps > 0 && cost.decode_weight_bytes > 0) {
        const double bytes = static_cast<double>(cost.decode_weight_bytes) +
                             static_cast<double>(cost.kv_bytes_per_token) * options.context_tokens;
        p.decode_tokens_per_second = 1.0 / (bytes / (limits.bandwidth_gbps * 1e9) + overhead_per_pass);
    }
    const int32_t prompt = std::max(1, options.prompt_tokens);
    const int64_t batch = std::clamp(options.prompt_batch, 1, prompt);
    double seconds_per_token = 0;
    for (const TypedWork& w : cost.prompt_work) {
        const double rate = limits.gemm_gflops(w.type, std::max<int64_t>(1, batch / w.batch_share));
        if (rate <= 0) return p; // a weight type this machine's measurement lacks
        seconds_per_token += 2.0 * static_cast<double>(w.multiply_adds) / (rate * 1e9);
    }
    if (seconds_per_token <= 0) return p;
    // A prompt token attends to the positions before it: half the prompt on average.
    if (limits.peak_gflops > 0)
        seconds_per_token += 2.0 * static_cast<double>(cost.attention_multiply_adds) * (prompt / 2.0) /
                             (limits.peak_gflops * 1e9);
    const double batches = std::ceil(static_cast<double>(prompt) / static_cast<double>(batch));
    seconds_per_token += batches * overhead_per_pass / prompt;
    p.prefill_tokens_per_second = 1.0 / seconds_per_token;
    return p;
}

} // namespace hearth::engine
