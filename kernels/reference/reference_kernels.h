#pragma once
// Scalar reference kernels: the portable oracle for every SIMD table.
// Named like ggml: quantize_row_<type>_ref, dequantize_row_<type>_ref and
// vec_dot_<weight type>_<activation type>_ref. Lengths n are element counts and
// must be multiples of the type's block size. Block layouts: block_formats.h.
//
// Activation types: F32 weights dot F32 activations, F16 and BF16 weights dot
// activations of their own type (as in ggml); Q4_0, Q4_1, Q5_0,
// Q5_1 and Q8_0 dot Q8_0 activations; the K-quants dot Q8_K activations.
#include "kernels/kernel_table.h"
#include <cstddef>
#include <cstdint>

namespace hearth::kernels {

// Float formats.
void quantize_row_f32_ref(const float* src, void* dst, int64_t n);
void dequantize_row_f32_ref(const void* src, float* dst, int64_t n);
float vec_dot_f32_f32_ref(int64_t n, const void* weights, const void* activations);
void quantize_row_f16_ref(const float* src, void* dst, int64_t n);
void dequantize_row_f16_ref(const void* src, float* dst, int64_t n);
float vec_dot_f16_f16_ref(int64_t n, const void* weights, const void* activations);
void quantize_row_bf16_ref(const float* src, void* dst, int64_t n);
void dequantize_row_bf16_ref(const void* src, float* dst, int64_t n);
float vec_dot_bf16_bf16_ref(int64_t n, const void* weights, const void* activations);

// Blocks of 32 with one scale (and a min for the _1 types).
void quantize_row_q4_0_ref(const float* src, void* dst, int64_t n);
void dequantize_row_q4_0_ref(const void* src, float* dst, int64_t n);
float vec_dot_q4_0_q8_0_ref(int64_t n, const void* weights, const void* activations);
void quantize_row_q4_1_ref(const float* src, void* dst, int64_t n);
void dequantize_row_q4_1_ref(const void* src, float* dst, int64_t n);
float vec_dot_q4_1_q8_0_ref(int64_t n, const void* weights, const void* activations);
void quantize_row_q5_0_ref(const float* src, void* dst, int64_t n);
void dequantize_row_q5_0_ref(const void* src, float* dst, int64_t n);
float vec_dot_q5_0_q8_0_ref(int64_t n, const void* weights, const void* activations);
void quantize_row_q5_1_ref(const float* src, void* dst, int64_t n);
void dequantize_row_q5_1_ref(const void* src, float* dst, int64_t n);
float vec_dot_q5_1_q8_0_ref(int64_t n, const void* weights, const void* activations);
void quantize_row_q8_0_ref(const float* src, void* dst, int64_t n); // weights (llama.cpp's _ref)
// Activations: per block the scale fp16(max / m), m = 127 down to 128 - kQ8_0ActivationScales,
// whose quants (rounded half to even with that fp16 scale) leave the smallest squared error.
inline constexpr int kQ8_0ActivationScales = 8;
void quantize_row_q8_0_activations_ref(const float* src, void* dst, int64_t n);
void dequantize_row_q8_0_ref(const void* src, float* dst, int64_t n);
float vec_dot_q8_0_q8_0_ref(int64_t n, const void* weights, const void* activations);

// K-quants: super-blocks of 256.
void quantize_row_q2_K_ref(const float* src, void* dst, int64_t n);
void dequantize_row_q2_K_ref(const void* src, float* dst, int64_t n);
float vec_dot_q2_K_q8_K_ref(int64_t n, const void* weights, const void* activations);
void quantize_row_q3_K_ref(const float* src, void* dst, int64_t n);
void dequantize_row_q3_K_ref(const void* src, float* dst, int64_t n);
float vec_dot_q3_K_q8_K_ref(int64_t n, const void* weights, const void* activations);
void quantize_row_q4_K_ref(const float* src, void* dst, int64_t n);
void dequantize_row_q4_K_ref(const void* src, float* dst, int64_t n);
float vec_dot_q4_K_q8_K_ref(int64_t n, const void* weights, const void* activations);
void quantize_row_q5_K_ref(const float* src, void* dst, int64_t n);
void dequantize_row_q5_K_ref(const void* src, float* dst, int64_t n);
float vec_dot_q5_K_q8_K_ref(int64_t n, const void* weights, const void* activations);
void quantize_row_q6_K_ref(const float* src, void* dst, int64_t n);
void dequantize_row_q6_K_ref(const void* src, float* dst, int64_t n);
float vec_dot_q6_K_q8_K_ref(int64_t n, const void* weights, const void* activations);

// Activations of the K-quant dot products: d = amax / 127 (always >= 0), quants in
// [-127, 127], bsums[j] = sum of quants 16j .. 16j+15.
void quantize_row_q8_K_ref(const float* src, void* dst, int64_t n);
void dequantize_row_q8_K_ref(const void* src, float* dst, int64_t n);
float vec_dot_q8_K_q8_K_ref(int64_t n, const void* weights, const void* activations);

// Unpacks scale j and min j (0..7, six bits each) of a Q4_K / Q5_K block's 12 scale bytes.
void unpack_scale_min_k4(int j, const uint8_t* scales, uint8_t* scale, uint8_t* min);
// Unpacks the 16 six-bit scales of a Q3_K block, already minus 32 (range -32..31).
void unpack_scales_q3_K(const uint8_t* packed, int8_t* scales);

// Causal attention of a tile of query rows (AttendFn): each row on its own, one key at a time,
// its keys and values widened exactly (fp16_to_fp32, or the type's reference dequantizer); with
// limits, the keys before the row's window are skipped and each score capped with std::tanh.
void attend_ref(const float* q, float* out, size_t head_stride, size_t position_stride, int64_t n_heads,
                int64_t n_positions, KvRows keys, KvRows values, int64_t n_keys, int64_t head_dim,
                float scale, AttentionLimits limits);

// SwiGLU in place, gate[i] = silu(gate[i]) * up[i], rounded as llama.cpp's (SwigluFn).
void swiglu_ref(float* gate, const float* up, int64_t n);
// One lane of ggml's vector exp (ggml_v_expf): what its SIMD versions compute per lane.
float vector_expf_lane(float x);
// GELU in place (GeluFn), lane by lane: gelu_lane.
void gelu_ref(float* x, int64_t n);
float gelu_lane(float x);
// Softmax of a row in place (SoftmaxFn): the scaled row's maximum, e^(v - max) by the vector exp,
// their sum in 8 lanes over the row's blocks of 8 (lane i takes the elements i mod 8), the lanes
// added ((0+1)+(2+3))+((4+5)+(6+7)), then the tail's one by one; each value times 1/sum.
void softmax_ref(float* row, int64_t n, float scale);

// Decode over rows repacked in groups of 16 (InterleavedGemvFn): each row unpacked, then the
// dot product above, so the results are bit for bit those of the row-major rows
// (interleaved_ref.cpp).
void gemv_q4_K_q8_K_interleaved16_ref(int64_t n, const void* packed, int64_t group_begin, int64_t group_end,
                                      const void* activation, float* y);
void gemv_q6_K_q8_K_interleaved16_ref(int64_t n, const void* packed, int64_t group_begin, int64_t group_end,
                                      const void* activation, float* y);
void gemv_q8_0_q8_0_interleaved16_ref(int64_t n, const void* packed, int64_t group_begin, int64_t group_end,
                                      const void* activation, float* y);

// A type's reference kernels, the oracle of every candidate (null for a type without them): its
// row conversions, and its dot product with the format of its activations and their quantizer.
struct ReferenceOps {
    QuantizeRowFn quantize = nullptr;
    DequantizeRowFn dequantize = nullptr;
    VecDotFn vec_dot = nullptr;
    TensorType activation_type = TensorType::F32;
    QuantizeRowFn quantize_activations = nullptr; // F32 -> the type as activations
};
ReferenceOps reference_ops(TensorType type);

// The scalar table's candidates (reference_table.cpp).
void add_reference_kernels(KernelTable& table);

} // namespace hearth::kernels
