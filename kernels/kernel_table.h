#pragma once
// The kernels of one instruction set, chosen once at run time. Every SIMD table
// has the scalar reference table as its model and its test oracle.
#include "kernels/tensor_type.h"
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

namespace hearth::kernels {

using QuantizeRowFn = void (*)(const float* src, void* dst, int64_t n);
using DequantizeRowFn = void (*)(const void* src, float* dst, int64_t n);
// The instruction-set tiers, lowest first. Each table is complete once resolved: a type or
// kernel a tier has no code for is taken, as a whole type, from the tier below it
// (AMX from AVX-512, AVX-512 and AVX-VNNI from AVX2, AVX2 from scalar).
enum class Isa {
    Scalar,  // portable C++, the oracle
    Avx2,    // AVX2 + FMA + F16C
    AvxVnni, // AVX2 tier + AVX-VNNI (VEX vpdpbusd: Intel since Alder Lake, AMD Zen 5)
    Avx512,  // AVX-512 F/BW/VL/DQ + VNNI (AMD Zen 4 and later, Intel since Ice Lake)
    Amx,     // AVX-512 tier + AMX tiles (BF16, INT8) and AVX-512 BF16 (Intel Xeon since Sapphire Rapids)
};
inline constexpr Isa kIsaTiers[] = {Isa::Scalar, Isa::Avx2, Isa::AvxVnni, Isa::Avx512, Isa::Amx};
inline constexpr int kIsaTierCount = static_cast<int>(std::size(kIsaTiers));
std::string_view isa_name(Isa isa); // "scalar", "avx2", "avxvnni", "avx512", "amx"
// What a tier needs of the CPU, in words ("AVX-512 F/BW/VL/DQ + VNNI").
std::string_view isa_requirements(Isa isa);

// Dot product of one weight row (in the weight type) with one activation row
// (in that type's activation type), both n elements long.
using VecDotFn = float (*)(int64_t n, const void* weight_row, const void* activation_row);

// Optional blocked kernel for a batch of activation rows (prefill): for weight rows
// [row_begin, row_end) and every b < batch, y[b * y_stride + r] = dot(W[r], A[b]).
// Activations are already quantized to the activation type, one row every activation_row_bytes.
using GemmFn = void (*)(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin,
                        int64_t row_end, const void* activations, size_t activation_row_bytes, int64_t batch,
                        float* y, int64_t y_stride);

// Matrix x vector over Q4_K, Q6_K or Q8_0 weights repacked in groups of 16 rows (interleaved_rows.h): for
// groups [group_begin, group_end) and r < 16, y[16 g + r] = dot(W[16 g + r], a), with one activation row `a`
// in the type's activation format.
using InterleavedGemvFn = void (*)(int64_t n, const void* packed, int64_t group_begin, int64_t group_end,
                                   const void* activation, float* y);

// Causal attention of one query row over n_keys cached F16 keys and values (rows every
// kv_stride halves), in F32: each score is dot(q, k) * scale with the keys widened exactly, and
// one pass with an online softmax keeps the running maximum, the sum of weights and the
// weighted sum of values in F32 (what came before is rescaled by exp(old max - new max) when
// the maximum rises). out = weighted sum / sum of weights. A key whose score is -inf weighs
// nothing. head_dim <= kMaxAttentionHeadDim.
using AttendF16Fn = void (*)(const float* q, const uint16_t* keys, const uint16_t* values, size_t kv_stride,
                             int64_t n_keys, int64_t head_dim, float scale, float* out);
inline constexpr int64_t kMaxAttentionHeadDim = 512;
// The same for a tile of query rows that share one KV head: n_positions consecutive positions
// with n_heads query heads each (a GQA group). Row (position p, head h) is at
// q + p * position_stride + h * head_stride, its output at the same offset from out, and it
// attends to the first n_keys + p keys (causal). Each key and value is read once for many rows
// of the tile. A row's output does not depend on the tile's other rows: in a tile of one
// position it is bit for bit what AttendF16Fn of the same table gives for it; in a tile of
// several positions it is bit for bit the same whatever the tile's shape (a tier may sum those
// in another order than single positions: the AVX-512 one does).
using AttendGroupF16Fn = void (*)(const float* q, float* out, size_t head_stride, size_t position_stride,
                                  int64_t n_heads, int64_t n_positions, const uint16_t* keys,
                                  const uint16_t* values, size_t kv_stride, int64_t n_keys, int64_t head_dim,
                                  float scale);

// One KV head's cached keys or values: row j (position j) at data + j * row_bytes, head_dim
// elements of `type`: F16, or Q8_0 / Q4_0 in blocks of 32 along head_dim (head_dim a multiple
// of 32), each block with its own scale.
struct KvRows {
    const void* data = nullptr;
    TensorType type = TensorType::F16;
    size_t row_bytes = 0;
};
// AttendGroupF16Fn over keys and values of any cache type. The kernels widen one block of keys
// and values at a time, exactly (an int8 times its block's scale is one rounding, the same in
// every tier), and compute as AttendGroupF16Fn does from there: with F16 keys and values it
// gives the same bits as attend_group_f16.
using AttendGroupFn = void (*)(const float* q, float* out, size_t head_stride, size_t position_stride,
                               int64_t n_heads, int64_t n_positions, KvRows keys, KvRows values,
                               int64_t n_keys, int64_t head_dim, float scale);
// What attention does beyond causal softmax(q . k * scale): a sliding window, in which each row
// sees only its last `window` keys, its own included (0: every key), and soft-capping of the
// scaled scores, score = softcap * tanh(score / softcap) (0: none), as Gemma 2 does.
struct AttentionLimits {
    int64_t window = 0;
    float softcap = 0;
};
// AttendGroupFn with limits. Keys before a row's window weigh nothing, and the kernels skip the
// blocks of keys no row of the tile sees. Without limits the result is bit for bit
// attend_group's; the plain entries stay for the models that never need limits.
using AttendGroupLimitedFn = void (*)(const float* q, float* out, size_t head_stride, size_t position_stride,
                                      int64_t n_heads, int64_t n_positions, KvRows keys, KvRows values,
                                      int64_t n_keys, int64_t head_dim, float scale, AttentionLimits limits);
// The tier whose attention kernel runs for a head size, a tile of n_positions and a cache type
// (F16 keys and values, or not), for the dispatch metrics: a tier may hand the calls its own
// kernel does not take to a lower tier's (AVX-512: head sizes not a multiple of 16 go to AVX2;
// AMX: one position and quantized caches go to AVX-512), and a tier without attention kernels
// of its own (AVX-VNNI) runs a lower tier's for every call.
using AttentionIsaFn = Isa (*)(int64_t head_dim, int64_t n_positions, bool f16_cache);
// Whether the attention kernels read keys or values of this type.
inline bool is_kv_cache_type(TensorType t) {
    return t == TensorType::F16 || t == TensorType::Q8_0 || t == TensorType::Q4_0;
}

// SwiGLU in place over n elements: gate[i] = gate[i] * sigmoid(gate[i]) * up[i], with
// llama.cpp's rounding (its vector exp in blocks of 8, libm's expf for the tail).
using SwigluFn = void (*)(float* gate, const float* up, int64_t n);

struct TypeKernels {
    Isa isa = Isa::Scalar;                        // the tier whose kernels these are, for the metrics
    Isa activation_quantizer_isa = Isa::Scalar;   // the tier whose activation_quantizer() this is
    TensorType activation_type = TensorType::F32; // F32 for float weights, Q8_0 or Q8_K for quantized
    QuantizeRowFn quantize = nullptr;             // F32 -> this type (also the weight quantizer)
    DequantizeRowFn dequantize = nullptr;
    VecDotFn vec_dot = nullptr;
    GemmFn gemm = nullptr; // when null, matmul falls back to vec_dot per (row, batch) pair
    // Used instead of `gemm` for matrices whose row count is a multiple of 8 (null: `gemm`).
    // llama.cpp's CPU backend repacks those (Q4_0 on AVX2) and sums them in another order.
    GemmFn gemm_rows_multiple_of_8 = nullptr;
    // F32 activations -> this type for the dot products, where that differs from the weight
    // quantizer (Q8_0: the best of 8 fp16 scales per block, quantize_row_q8_0_activations_ref);
    // null: `quantize`.
    QuantizeRowFn quantize_activations = nullptr;
    // Decode over weights repacked in groups of 16 rows; null: matmul unpacks the rows it is
    // given to the file's layout and runs the kernels above on them.
    InterleavedGemvFn gemv_interleaved16 = nullptr;
    // Batches of 2 or more over the same repacked weights (`weights` is the repacked matrix,
    // row_begin and row_end whole groups); null: the rows are unpacked as above.
    GemmFn gemm_interleaved16 = nullptr;
    // Prefill on BF16 tiles (AMX): for batches of kBf16TileMinBatch rows or more, matmul
    // converts the activations to BF16 rows (the BF16 type's quantizer) instead of the activation
    // type, and this kernel widens row-major weight rows to BF16 itself; its sums are F32 over
    // whole rows. Null: the kernels above.
    GemmFn gemm_bf16_tiles = nullptr;
    // The same over weights repacked in groups of 16 rows (row_begin and row_end whole groups),
    // widened from the groups as they are; null: they are unpacked for gemm_bf16_tiles.
    GemmFn gemm_bf16_tiles_interleaved16 = nullptr;
    QuantizeRowFn activation_quantizer() const {
        return quantize_activations ? quantize_activations : quantize;
    }
};

// The smallest batch matmul gives a type's gemm_bf16_tiles: below it, widening each weight to
// BF16 costs more than the tiles save over the batch. Measured on the AMX tier (hearth-bench, 2
// threads, against the int8 kernels): Qwen2.5-0.5B Q8_0 pp16 359 t/s on int8, 303 on BF16;
// pp32 479 and 518; Llama-3.2-1B Q4_K_M pp16 115 and 109, pp32 172 and 190.
inline constexpr int64_t kBf16TileMinBatch = 32;

struct KernelTable {
    Isa isa = Isa::Scalar;
    // Indexed by the raw TensorType value; entries of types no tier runs are empty.
    TypeKernels by_type[kTensorTypeSlots];
    const TypeKernels& of(TensorType t) const { return by_type[static_cast<uint32_t>(t)]; }
    TypeKernels& of(TensorType t) { return by_type[static_cast<uint32_t>(t)]; }
    AttendF16Fn attend_f16 = nullptr;
    AttendGroupF16Fn attend_group_f16 = nullptr;
    AttendGroupFn attend_group = nullptr;                // any KV cache type (is_kv_cache_type)
    AttendGroupLimitedFn attend_group_limited = nullptr; // sliding window, soft-capping
    AttentionIsaFn attention_isa = nullptr;              // set with the attention kernels
    // Floats of queries (positions x the query heads of one KV head) per prefill attention call
    // the engine makes: a kernel prepares each block of keys and values once per call (or pass).
    int64_t attention_tile_floats = 4096;
    SwigluFn swiglu = nullptr;
};

// The scalar reference kernels: portable C++, the oracle for every other table.
const KernelTable& reference_kernels();
// The resolved table of a tier (every entry the reference has is set), or nullptr when this
// CPU or build cannot run it.
const KernelTable* kernels_for(Isa isa);
// Why kernels_for(isa) is null, in words ("this CPU lacks AVX-512 F/BW/VL/DQ + VNNI"); empty
// when the tier runs here.
std::string isa_unavailable_reason(Isa isa);
// The table in use: the best tier the CPU supports, unless HEARTH_ISA names another (or
// force_isa was called). Chosen once, on first use.
const KernelTable& active_kernels();
void force_isa(Isa isa); // for tests and the --isa option; throws std::runtime_error if unsupported

} // namespace hearth::kernels
