#pragma once
// The operations of a forward pass, recorded into one command buffer and submitted at once.
// Activations are F32 rows in device buffers, addressed as (buffer, byte offset); weights keep
// their GGUF block layout and are dequantized inside the shaders. Every op sees the results of
// the ops recorded before it: the recorder puts a barrier before an op that reads what an
// earlier one wrote, or writes what an earlier one read or wrote (ranges of buffers); ops that
// touch none of the same bytes run without one between them.
#include "kernels/kernel_table.h"
#include "kernels/tensor_type.h"
#include "kernels/vulkan/vulkan_context.h"
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hearth::kernels::vulkan {

// A span of a buffer, from a byte offset on. F32 and int32 data must be 4-byte aligned.
struct View {
    Buffer* buffer = nullptr;
    size_t offset = 0;
};
// A weight matrix in device memory: rows x cols, row-major, in the GGUF block layout of `type`
// (cols a multiple of the type's block size).
struct DeviceMatrix {
    TensorType type = TensorType::F32;
    int64_t rows = 0, cols = 0;
    View data;
};
// One layer's KV cache in device memory, laid out as the CPU KvCache's: (n_head_kv, n_ctx,
// head_row_bytes) for the keys and for the values, each row head_dim elements of F16, Q8_0 or
// Q4_0 (blocks of 32 along head_dim). Offsets 4-byte aligned.
struct DeviceKvLayer {
    View keys, values;
    TensorType key_type = TensorType::F16, value_type = TensorType::F16;
    int64_t n_ctx = 0, n_head_kv = 0, head_dim = 0;
};
// GPU time of one kind of op in the last submit: dispatches of it and their total nanoseconds,
// per op and the candidate of vulkan_kernels() that ran it (kUnnamedKernel: ops of one shader).
struct OpTiming {
    std::string name;
    KernelId kernel = kUnnamedKernel;
    uint32_t dispatches = 0;
    uint64_t ns = 0;
};
// The weight types matmul and get_rows take.
bool vulkan_supports_weight_type(TensorType type);

struct RecorderState;

class Recorder {
public:
    explicit Recorder(Context& context);
    ~Recorder();
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;

    // Starts recording a new command buffer (the previous submit must have finished).
    void begin();
    // Submits what was recorded and waits for it. Throws DeviceLost, OutOfDeviceMemory or Error.
    void submit_and_wait();
    // Per-op GPU time from the timestamp queries of the last timed pass, in order of first use
    // (ops with no barrier between them may overlap: each counts from the end of the one before).
    // A pass is timed while the dispatch metrics are on, and at most once per interval (0, the
    // default: every pass): a timestamp after every command keeps the device from overlapping
    // them, which cost an H200 18-28% of its decode speed.
    std::vector<OpTiming> timings() const;
    void set_timing_interval(std::chrono::milliseconds interval);
    // Whether the pass begun last is timed (once submitted, its timings are the ones above).
    bool last_pass_timed() const;
    // Dispatches recorded since begin().
    uint32_t dispatches() const;

    // y[b * rows + r] = dot(W[r], x[b]) for b < batch; x is (batch, cols) F32. Weight types:
    // F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K. The shader is
    // the candidate of vulkan_kernels() that takes the call (vulkan_kernel_table.h).
    void matmul(const DeviceMatrix& w, View x, int64_t batch, View y);
    // Rows [row_begin, row_begin + n_rows) of a matrix only (fused QKV, gate+up):
    // y[b * y_stride + r] = dot(W[row_begin + r], x[b]) for r < n_rows.
    void matmul_rows(const DeviceMatrix& w, int64_t row_begin, int64_t n_rows, View x, int64_t batch, View y,
                     int64_t y_stride);
    // y[b * rows + r] += dot(W[r], x[b]): matmul with the product added into y (the residual
    // stream) by the same shader, one dispatch and one barrier fewer than matmul and add.
    void matmul_add(const DeviceMatrix& w, View x, int64_t batch, View y);
    // y[b * rows + r] = dot(W[r], x[b]) + bias[r]: matmul and add_bias in one dispatch, the same
    // sums bit for bit.
    void matmul_bias(const DeviceMatrix& w, View x, int64_t batch, View y, View bias);
    // A gated FFN's products: gate_out[b * rows + r] = act(dot(G[r], x[b])) * dot(U[r], x[b]),
    // silu or gelu_tanh as swiglu and geglu. One mat-vec dispatch where G and U share a type
    // and shape, lie in one buffer (U after G) that one binding spans, and the batch is a
    // mat-vec's; else matmul, matmul and the elementwise op, with U x in up_out. Either way the
    // same numbers bit for bit.
    enum class Glu { Silu, GeluTanh };
    void matmul_glu(const DeviceMatrix& gate, const DeviceMatrix& up, View x, int64_t batch, Glu glu,
                    View gate_out, View up_out);
    // out = x / sqrt(mean(x^2) + eps) * weight, row by row (weight.buffer null: no weight).
    // out may be x.
    void rms_norm(View x, View weight, int64_t rows, int64_t dim, float eps, View out);
    // out += x / sqrt(mean(x^2) + eps) * weight: rms_norm and add in one dispatch, bit for bit
    // (a post-norm into the residual stream). out must not be x.
    void rms_norm_add(View x, View weight, int64_t rows, int64_t dim, float eps, View out);
    // rms_norm in place of first_rows rows with one weight and the second_rows after them with
    // another (a token's query heads, then its key heads): one dispatch where both weights lie
    // in one buffer, two otherwise; the same numbers either way.
    void rms_norm_heads(View x, int64_t first_rows, View first_weight, int64_t second_rows,
                        View second_weight, int64_t dim, float eps);
    // out = (x - mean) / sqrt(variance + eps) * weight + bias (either null: none). out may be x.
    void layer_norm(View x, View weight, View bias, int64_t rows, int64_t dim, float eps, View out);
    void add(View x, View y, int64_t count);                     // x += y
    void add_bias(View x, View bias, int64_t rows, int64_t dim); // x[r] += bias, each row
    void scale(View x, int64_t count, float factor);             // x *= factor
    void soft_cap(View x, int64_t count, float cap);             // x = cap * tanh(x / cap)
    void swiglu(View gate, View up, int64_t rows, int64_t dim);  // gate = silu(gate) * up
    void geglu(View gate, View up, int64_t rows, int64_t dim);   // gate = gelu_tanh(gate) * up
    void gelu(View x, int64_t count);                            // tanh approximation
    // Rotates the first rope_dim values of every head of n rows (n_heads, head_dim), positions
    // pos0 .. pos0 + n - 1: pairs (2i, 2i + 1), or NeoX's (i, i + rope_dim / 2). Pair i turns by
    // pos * freq_scale * base^(-2i / rope_dim) / factors[i] (factors: rope_dim / 2 floats, or
    // none: 1), and cos and sin are multiplied by attn_factor.
    void rope(View x, int64_t n, int64_t n_heads, int64_t head_dim, int64_t rope_dim, bool neox, int64_t pos0,
              float base, float freq_scale, float attn_factor, std::optional<View> factors);
    // rope of a layer's queries (n_heads_q heads a row) and keys (n_heads_k) in one dispatch;
    // without k, of q alone (rope).
    void rope_pair(View q, int64_t n_heads_q, std::optional<View> k, int64_t n_heads_k, int64_t n,
                   int64_t head_dim, int64_t rope_dim, bool neox, int64_t pos0, float base, float freq_scale,
                   float attn_factor, std::optional<View> factors);
    // Rows of a table (any weight type) widened to F32: out is (n, cols); ids: n int32 (an id
    // outside [0, rows) leaves its row of out unwritten).
    void get_rows(const DeviceMatrix& table, View ids, int64_t n, View out);
    // Writes n rows of keys and values (n_head_kv * head_dim floats each) at positions
    // pos0 .. pos0 + n - 1 of a layer's cache, rounded as the CPU's quantizers do (one dispatch).
    void store_kv(View k, View v, int64_t n, int64_t pos0, const DeviceKvLayer& layer);
    // Causal attention, flash style (online softmax in F32), GQA/MQA, with the sliding window
    // and soft-cap of AttentionLimits: query row p (of n) sees keys [0, n_past + p] of its KV
    // head; with batch_sees_itself (one image's positions) keys [0, n_past + n), and on a
    // sliding-window layer still none `window` or more positions before itself.
    // q, out: (n, n_head * head_dim); head_dim <= 512.
    void attention(View q, int64_t n, int64_t n_past, int64_t n_head, const DeviceKvLayer& layer, float scale,
                   AttentionLimits limits, bool batch_sees_itself, View out);
    // MoE router: logits (n, n_expert) -> per row the k most probable experts (ties to the lower
    // index) after a softmax over all, and their probabilities (divided by the chosen ones' sum
    // if renormalize): ids (n, k) int32, weights (n, k) F32.
    void topk_softmax(View logits, int64_t n, int64_t n_expert, int64_t k, bool renormalize, View ids,
                      View weights);
    // y[(b * k + j) * rows_per_expert + r] = dot(W[e * rows_per_expert + r], x[b]) with
    // e = ids[b * k + j]: the chosen experts' rows of a 3-D tensor stored as
    // (n_expert * rows_per_expert, cols).
    void matmul_experts(const DeviceMatrix& w, int64_t rows_per_expert, View x, int64_t n, View ids,
                        int64_t k, View y);
    // matmul_experts of a gated FFN's gate and up tensors with the activation, as matmul_glu:
    // one dispatch where the two lie in one buffer (U after G), else the three ops (U x in
    // up_out). gate_out is (n, k, rows_per_expert).
    void matmul_experts_glu(const DeviceMatrix& gate, const DeviceMatrix& up, int64_t rows_per_expert, View x,
                            int64_t n, View ids, int64_t k, Glu glu, View gate_out, View up_out);
    // y[b] += sum_j weights[b * k + j] * x[b * k + j] (x is (n, k, dim)).
    void weighted_sum_experts(View x, View weights, int64_t n, int64_t k, int64_t dim, View y);
    void copy(View src, View dst, size_t bytes);

private:
    // What a product does with its sums besides storing them: add them to y, add a bias first
    // (bias.buffer null: none).
    struct Epilogue {
        bool accumulate = false;
        View bias;
    };
    void matmul_rows(const DeviceMatrix& w, int64_t row_begin, int64_t n_rows, View x, int64_t batch, View y,
                     int64_t y_stride, const Epilogue& epilogue);
    // gate = act(gate) * up: swiglu or geglu.
    void apply_glu(Glu glu, View gate, View up, int64_t rows, int64_t dim);
    std::unique_ptr<RecorderState> state_;
};

} // namespace hearth::kernels::vulkan
