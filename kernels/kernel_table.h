#pragma once
// The CPU's kernel table: for each operation (and weight type), the kernels that can run it, as
// Candidates (candidates.h): in order of preference, each with a guard saying which calls it
// takes. A caller takes the first candidate whose guard holds (Candidates::pick) and names it to
// the dispatch metrics; nothing else chooses a kernel. Each CPU tier's table is the tier below it with the
// tier's own candidates put in front (kernel_table.cpp), and the scalar reference table is the model and the
// test oracle of every other.
#include "kernels/candidates.h"
#include "kernels/row_layout.h"
#include "kernels/tensor_type.h"
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hearth::kernels {

// ---- The operations' kernels ----------------------------------------------------------------

// F32 -> a type, n elements (a multiple of its block), and back.
using QuantizeRowFn = void (*)(const float* src, void* dst, int64_t n);
using DequantizeRowFn = void (*)(const void* src, float* dst, int64_t n);

// Dot product of one weight row (in the weight type) with one activation row (in that type's
// activation type), both n elements long: the building block of the simplest matmul kernels.
using VecDotFn = float (*)(int64_t n, const void* weight_row, const void* activation_row);

// Matmul: for weight rows [row_begin, row_end) and every b < batch,
// y[b * y_stride + r] = dot(W[r], A[b]). The activations are already in the candidate's
// activation type, one row every activation_row_bytes. Row-major weights are rows of
// weight_row_bytes from `weights`; weights repacked in groups of 16 rows (interleaved_rows.h)
// are the whole repacked matrix, and row_begin and row_end whole groups.
using GemmFn = void (*)(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin,
                        int64_t row_end, const void* activations, size_t activation_row_bytes, int64_t batch,
                        float* y, int64_t y_stride);

// Matrix x vector over weights repacked in groups of 16 rows: for groups [group_begin,
// group_end) and r < 16, y[16 g + r] = dot(W[16 g + r], a). Registered as a GemmFn through
// gemm_by_packed_gemv (gemm_by_rows.h).
using InterleavedGemvFn = void (*)(int64_t n, const void* packed, int64_t group_begin, int64_t group_end,
                                   const void* activation, float* y);

// One KV head's cached keys or values: row j (position j) at data + j * row_bytes, head_dim
// elements of `type`: F16, or Q8_0 / Q4_0 in blocks of 32 along head_dim (head_dim a multiple
// of 32), each block with its own scale.
struct KvRows {
    const void* data = nullptr;
    TensorType type = TensorType::F16;
    size_t row_bytes = 0;
};
// What attention does beyond causal softmax(q . k * scale): a sliding window, in which each row
// sees only its last `window` keys, its own included (0: every key), and soft-capping of the
// scaled scores, score = softcap * tanh(score / softcap) (0: none), as Gemma 2 does.
struct AttentionLimits {
    int64_t window = 0;
    float softcap = 0;
};
inline constexpr int64_t kMaxAttentionHeadDim = 512;
// Causal attention of a tile of query rows that share one KV head: n_positions consecutive
// positions with n_heads query heads each (a GQA group). Row (position p, head h) is at
// q + p * position_stride + h * head_stride, its output at the same offset from out, and it
// attends to the first n_keys + p keys, each widened exactly (an int8 times its block's scale
// is one rounding). In F32: each score is dot(q, k) * scale, and one pass with an online
// softmax keeps the running maximum, the sum of weights and the weighted sum of values (what
// came before is rescaled when the maximum rises); out = weighted sum / sum of weights. A key
// whose score is -inf weighs nothing; keys before a row's window too, and the kernels skip the
// blocks of keys no row of the tile sees. head_dim <= kMaxAttentionHeadDim.
// A row's output does not depend on the tile's other rows: in a tile of one position it is bit
// for bit the same whatever its heads; in a tile of several positions, whatever the tile's
// shape (a kernel may sum those in another order than single positions: the AVX-512 one does).
using AttendFn = void (*)(const float* q, float* out, size_t head_stride, size_t position_stride,
                          int64_t n_heads, int64_t n_positions, KvRows keys, KvRows values, int64_t n_keys,
                          int64_t head_dim, float scale, AttentionLimits limits);
// Whether the attention kernels read keys or values of this type.
inline bool is_kv_cache_type(TensorType t) {
    return t == TensorType::F16 || t == TensorType::Q8_0 || t == TensorType::Q4_0;
}

// SwiGLU in place over n elements: gate[i] = gate[i] * sigmoid(gate[i]) * up[i], with
// llama.cpp's rounding (its vector exp in blocks of 8, libm's expf for the tail).
using SwigluFn = void (*)(float* gate, const float* up, int64_t n);
// GELU (tanh form) in place over n elements, as x * sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3):
// the same function, without tanh's cancellation near -1 (gelu_ref spells out the rounding).
using GeluFn = void (*)(float* x, int64_t n);
// Softmax of one row in place: row[i] = e^(scale row[i] - max) / sum (softmax_ref spells out the
// rounding and the order of the sum).
using SoftmaxFn = void (*)(float* row, int64_t n, float scale);

// ---- The tables ---------------------------------------------------------------------------

// A matmul candidate whose activations come in `activation_type`.
inline Candidate<GemmFn> matmul_kernel(std::string_view name, Backend backend, GemmFn fn,
                                       TensorType activation_type, Guard guard = {}) {
    return {.name = name, .backend = backend, .guard = guard, .fn = fn, .activation_type = activation_type};
}
// A matmul candidate marked as giving each row of any batch it takes bit for bit as a batch of
// that row alone (Candidate::rows_as_single), where `holds`.
inline Candidate<GemmFn> with_rows_as_single(Candidate<GemmFn> c, bool holds = true) {
    c.rows_as_single = holds;
    return c;
}
// A matmul_as_decode candidate: each row of a batch bit for bit what the decode kernel named
// `decode_kernel` (of the same backend) gives that row alone.
inline Candidate<GemmFn> rows_as_decode_kernel(std::string_view name, Backend backend, GemmFn fn,
                                               TensorType activation_type, std::string_view decode_kernel,
                                               Guard guard = {}) {
    Candidate<GemmFn> c = matmul_kernel(name, backend, fn, activation_type, guard);
    c.rows_as_decode_of = decode_kernel;
    return c;
}
// Batches of up to this many rows over repacked Q4_K, Q6_K and Q8_0 rows take the rows kernels
// on every tier (larger ones may go to panels or tiles), whose every row is bit for bit a batch
// of that row alone (Candidate::rows_as_single): the engine's verify pass of drafted tokens
// (kMostVerifyRows) is no larger.
inline constexpr int64_t kDecodeExactMaxBatch = 17;
// Decode and batches of up to max_batch rows over rows repacked in groups of 16.
inline Candidate<GemmFn> repacked_rows_kernel(std::string_view name, Backend backend, GemmFn fn,
                                              TensorType activation_type, int64_t max_batch) {
    return with_rows_as_single(matmul_kernel(name, backend, fn, activation_type,
                                             {.max_batch = max_batch, .layout = RowLayout::Interleaved16}));
}
// Decode (batch 1) over rows repacked in groups of 16.
inline Candidate<GemmFn> repacked_decode_kernel(std::string_view name, Backend backend, GemmFn fn,
                                                TensorType activation_type) {
    return repacked_rows_kernel(name, backend, fn, activation_type, 1);
}

// Instantiated once, in candidates.cpp (built without any tier's flags): see candidates.h.
extern template class Candidates<GemmFn>;
extern template class Candidates<QuantizeRowFn>;
extern template class Candidates<DequantizeRowFn>;
extern template class Candidates<AttendFn>;
extern template class Candidates<SwigluFn>;
extern template class Candidates<GeluFn>;
extern template class Candidates<SoftmaxFn>;

// A type's candidates for each operation on it.
struct TypeCandidates {
    Candidates<GemmFn> matmul; // weights of this type x a batch of activations
    // Batches (a verify pass's drafted tokens) whose rows each come out bit for bit as `matmul`'s
    // decode kernel gives that row alone (Candidate::rows_as_decode_of names it), for a decode
    // kernel that cannot take them so itself: each weight block decoded once for several rows,
    // where running decode row by row would decode it once per row.
    Candidates<GemmFn> matmul_as_decode;
    Candidates<QuantizeRowFn> quantize;             // F32 -> this type: weights, KV cache rows
    Candidates<QuantizeRowFn> quantize_activations; // F32 -> this type as matmul's activations
    Candidates<DequantizeRowFn> dequantize;
    // Whether a model's matrices of this type are repacked in groups of 16 rows at load, where
    // they can be (interleaved_rows.h): false where the tier decodes the file's rows faster.
    bool repacks_rows16 = true;
};

// The smallest batch a BF16 tile gemm takes: below it, widening each weight to BF16 costs more
// than the tiles save over the batch. Llama-3.2-1B Q4_K_M on the Xeon (family 6 model 207), t/s
// with the tiles from 32 / from 48: pp32 157-172 / 203-209, pp40 161-196 / 218-219 (Q8_0 the same
// within the host's spread).
inline constexpr int64_t kBf16TileMinBatch = 48;

struct KernelTable {
    Isa isa = Isa::Scalar;
    // Indexed by the raw TensorType value; the lists of types no tier runs are empty.
    TypeCandidates by_type[kTensorTypeSlots];
    const TypeCandidates& of(TensorType t) const { return by_type[static_cast<uint32_t>(t)]; }
    TypeCandidates& of(TensorType t) { return by_type[static_cast<uint32_t>(t)]; }
    Candidates<AttendFn> attention;
    // Tiles of several positions whose rows each come out bit for bit as a tile of their one
    // position from `attention` would give them (a verify pass: each drafted token scored as
    // decoding it does), its key blocks read once for all the positions.
    Candidates<AttendFn> attention_as_decode;
    Candidates<SwigluFn> swiglu;
    Candidates<GeluFn> gelu;
    Candidates<SoftmaxFn> softmax;
    // Floats of queries (positions x the query heads of one KV head) per prefill attention call
    // the engine makes: a kernel prepares each block of keys and values once per call (or pass).
    int64_t attention_tile_floats = 4096;

    // Whether matmul runs weights of this type.
    bool multiplies(TensorType t) const {
        return static_cast<uint32_t>(t) < kTensorTypeSlots && !of(t).matmul.empty();
    }
};

// The scalar reference kernels: portable C++, the oracle for every other table.
const KernelTable& reference_kernels();
// The table of a tier (every list the reference has is set), or nullptr when this CPU or build
// cannot run it.
const KernelTable* kernels_for(Isa isa);
// Why kernels_for(isa) is null, in words ("this CPU lacks AVX-512 F/BW/VL/DQ + VNNI"); empty
// when the tier runs here.
std::string isa_unavailable_reason(Isa isa);
// The table in use: the best tier the CPU supports, unless HEARTH_ISA names another (or
// force_isa was called). Chosen once, on first use.
const KernelTable& active_kernels();
void force_isa(Isa isa); // for tests and the --isa option; throws std::runtime_error if unsupported

} // namespace hearth::kernels
