#pragma once
// How fast a model will run on this machine, predicted before it is loaded (or downloaded) from
// what each token costs it and what the machine can do (machine_limits.h):
// - decode streams every weight a token multiplies (only the chosen experts of a mixture) and the
//   keys and values of the context once per token, so a token takes those bytes over the
//   measured read bandwidth, plus the pool's cost of each step of each layer;
// - prefill multiplies each of those weights once per prompt token, so a token takes its
//   operations over the measured matmul rate of each weight type at the batch its kernels see,
//   plus its FFN's activation (SwiGLU or GELU) at the measured rate of its kernel, plus
//   attention over the prompt at the FMA peak. A prompt runs in the engine's batches; a batch
//   multiplies each expert of a mixture once, over the rows that chose it: with a router that
//   spreads tokens evenly, as trained ones do, a binomial count of rows, each count at its
//   own rate (one row: decode's kernel; a few: a small matmul that still reads, and may unpack,
//   the expert's whole matrix). An expert's matrix is one of many and small (under a megabyte for
//   Qwen3-30B-A3B): its product is over before reading and arithmetic overlap as they do on a
//   long stream, so it takes the longer of the two and half the shorter (bench_kernels'
//   matmul_pool_cold_experts: 21-26 us for one row where the read is 20, 29-32 for four where
//   the arithmetic is 16).
#include "engine/gguf/gguf_file.h"
#include "engine/model/machine_limits.h"
#include "kernels/tensor_type.h"
#include <cstdint>
#include <vector>

namespace hearth::engine {

// Matrix work of one token, on weights of one type.
struct TypedWork {
    kernels::TensorType type = kernels::TensorType::F32;
    int64_t multiply_adds = 0; // weights multiplied per token
    // A mixture's experts: these weights are `experts` equal matrices of which a token multiplies
    // `chosen` (multiply_adds counts those). 1 of 1: every row multiplies all of them.
    int32_t experts = 1;
    int32_t chosen = 1;
};

// The activation between an FFN's matrices.
enum class Activation : uint8_t {
    Swiglu, // silu(gate) * up
    Gelu,   // gelu(gate) (* up, gated)
};

// What one token costs a model, from its tensors' shapes and types.
struct ModelCost {
    int32_t n_layer = 0;
    int64_t decode_weight_bytes = 0;     // weight bytes one decoded token streams
    std::vector<TypedWork> prompt_work;  // per prompt token (the output matrix runs once a prompt)
    int64_t attention_multiply_adds = 0; // per token and cached position, every layer (scores, sums)
    int64_t kv_bytes_per_token = 0;      // F16 keys and values of one position, every layer
    int64_t activation_values = 0;       // per token, every layer: the FFN's gate values
    int64_t dense_products = 0;          // matrices of the layers, each a product of every pass
    int64_t decode_products = 0;         // a decoded token's products but the experts': those and the output
    Activation activation = Activation::Swiglu;
    // Pool jobs of a layer beyond kPoolJobsPerLayer: a mixture's router, and in decode one down
    // product per chosen expert; in a prompt's pass, its router, the quantization of the rows
    // each expert takes and of its hidden rows, and the weighted sum of each token's experts.
    int32_t extra_decode_jobs_per_layer = 0;
    int32_t extra_prompt_jobs_per_layer = 0;
    bool approximate = false; // guessed from the file's size: the file is not here yet
};

// From a file's tensors and metadata; throws hearth::Error naming the file for one the engine
// cannot read.
ModelCost model_cost(const gguf::GgufFile& file);

// For a file not downloaded yet: its size and parameter counts (active_parameters: those a token
// multiplies; 0 or the total for a dense model; parameters 0: unknown, as many as the size holds
// weights of `type`). Every parameter is taken for a matrix weight of `type`, the file's size for
// what decode streams, scaled by the active share.
ModelCost approximate_model_cost(int64_t file_bytes, int64_t parameters, int64_t active_parameters,
                                 kernels::TensorType type);

struct PredictionOptions {
    int32_t prompt_tokens = 512;  // the prompt prefill is predicted for
    int32_t context_tokens = 512; // positions decode attends to
    int32_t prompt_batch = 64;    // rows per prefill batch (InferenceOptions::n_batch's default)
};

// Pool jobs per layer of a forward pass (norms, projections, attention, FFN): each costs one
// MachineLimits::pool_job_microseconds beyond its arithmetic.
inline constexpr int kPoolJobsPerLayer = 8;

struct SpeedPrediction {
    double decode_tokens_per_second = 0;  // 0: not predictable from these limits
    double prefill_tokens_per_second = 0; // 0: not predictable from these limits
};

SpeedPrediction predict_speed(const ModelCost& cost, const MachineLimits& limits,
                              const PredictionOptions& options = {});

} // namespace hearth::engine
