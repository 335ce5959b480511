#pragma once
// The AVX2+FMA+F16C kernels. Named weight type, then activation type, as in the
// reference kernels; each one matches its reference up to float rounding.
#include "kernels/kernel_table.h"
#include <cstddef>
#include <cstdint>

namespace hearth::kernels::avx2 {

void quantize_row_q8_0(const float* src, void* dst, int64_t n);
void quantize_row_q8_0_activations(const float* src, void* dst, int64_t n);
void quantize_row_q8_K(const float* src, void* dst, int64_t n);

void dequantize_row_f16(const void* src, float* dst, int64_t n);
void dequantize_row_bf16(const void* src, float* dst, int64_t n);
void dequantize_row_q8_0(const void* src, float* dst, int64_t n);
void dequantize_row_q4_0(const void* src, float* dst, int64_t n);
void dequantize_row_q4_1(const void* src, float* dst, int64_t n);
void dequantize_row_q5_0(const void* src, float* dst, int64_t n);
void dequantize_row_q5_1(const void* src, float* dst, int64_t n);
void dequantize_row_q4_K(const void* src, float* dst, int64_t n);
void dequantize_row_q5_K(const void* src, float* dst, int64_t n);
void dequantize_row_q6_K(const void* src, float* dst, int64_t n);

float vec_dot_f32_f32(int64_t n, const void* weight_row, const void* activation_row);
// A verify pass's batch over F32 rows, every pair vec_dot_f32_f32's bits, each weight vector
// loaded once for 3 activation rows (vec_dot_float_avx2.cpp).
void gemm_f32_f32_rows_as_decode(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin,
                                 int64_t row_end, const void* activations, size_t activation_row_bytes,
                                 int64_t batch, float* y, int64_t y_stride);
float vec_dot_f16_f16(int64_t n, const void* weight_row, const void* activation_row);
float vec_dot_bf16_bf16(int64_t n, const void* weight_row, const void* activation_row);
void quantize_row_f16(const float* src, void* dst, int64_t n);

float vec_dot_q4_0_q8_0(int64_t n, const void* weight_row, const void* activation_row);
float vec_dot_q4_1_q8_0(int64_t n, const void* weight_row, const void* activation_row);
float vec_dot_q5_0_q8_0(int64_t n, const void* weight_row, const void* activation_row);
float vec_dot_q5_1_q8_0(int64_t n, const void* weight_row, const void* activation_row);
float vec_dot_q8_0_q8_0(int64_t n, const void* weight_row, const void* activation_row);

float vec_dot_q4_K_q8_K(int64_t n, const void* weight_row, const void* activation_row);
float vec_dot_q2_K_q8_K(int64_t n, const void* weight_row, const void* activation_row);
float vec_dot_q3_K_q8_K(int64_t n, const void* weight_row, const void* activation_row);
float vec_dot_q5_K_q8_K(int64_t n, const void* weight_row, const void* activation_row);
float vec_dot_q6_K_q8_K(int64_t n, const void* weight_row, const void* activation_row);

// Small batches over Q2_K, Q3_K and Q5_K rows (null for the other types): each super-block
// decoded once for a few activation rows, every (row, activation row) pair with its dot
// product's bits (vec_dot_k_avx2.cpp).
GemmFn small_batch_gemm_for(TensorType type);
// A verify pass's batch over the 32-element formats' rows (Q8_0, Q4_0, Q5_0, Q4_1, Q5_1; null for
// the others): each block decoded once for a few activation rows, every pair with its dot
// product's bits (vec_dot_q_avx2.cpp).
GemmFn rows_as_decode_gemm_for_block32(TensorType type);

// The blocked matrix-matrix kernel of a weight type (gemm_avx2.cpp), or null where it has none
// (F32, Q8_K). Batch 1 runs the rows one by one through the type's dot product.
GemmFn gemm_for(TensorType type);
// Each format family's, null for the types outside it.
GemmFn gemm_for_float(TensorType type);   // F16, BF16
GemmFn gemm_for_block32(TensorType type); // Q8_0, Q5_0, Q4_0, Q5_1, Q4_1
GemmFn gemm_for_k_quant(TensorType type); // Q2_K to Q6_K
// Q4_0 in the order of llama.cpp's repacked q4_0_8x8 kernels, which it uses for matrices whose
// row count is a multiple of 8 (q4_0_groups_of_8_avx2.cpp); any row range, any batch.
void gemm_q4_0_q8_0_groups_of_8(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin,
                                int64_t row_end, const void* activations, size_t activation_row_bytes,
                                int64_t batch, float* y, int64_t y_stride);
// Q4_K in the order of llama.cpp's repacked q4_K_8x8 kernels (q4_k_groups_of_8_avx2.cpp): its
// gemm's for activation rows [0, batch - batch % 4), its gemv's for the rest.
void gemm_q4_K_q8_K_groups_of_8(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin,
                                int64_t row_end, const void* activations, size_t activation_row_bytes,
                                int64_t batch, float* y, int64_t y_stride);

// Decode and small batches over Q4_K, Q6_K and Q8_0 weights repacked in groups of 16 rows
// (GemmFn, gemv_interleaved16_avx2.cpp).
void gemm_q4_K_q8_K_interleaved16_rows(int64_t n, const void* packed, size_t row_bytes, int64_t row_begin,
                                       int64_t row_end, const void* activations, size_t activation_row_bytes,
                                       int64_t batch, float* y, int64_t y_stride);
void gemm_q6_K_q8_K_interleaved16_rows(int64_t n, const void* packed, size_t row_bytes, int64_t row_begin,
                                       int64_t row_end, const void* activations, size_t activation_row_bytes,
                                       int64_t batch, float* y, int64_t y_stride);
void gemm_q8_0_q8_0_interleaved16_rows(int64_t n, const void* packed, size_t row_bytes, int64_t row_begin,
                                       int64_t row_end, const void* activations, size_t activation_row_bytes,
                                       int64_t batch, float* y, int64_t y_stride);

// Causal attention over a KV cache of any type, in F32 (AttendFn).
void attend(const float* q, float* out, size_t head_stride, size_t position_stride, int64_t n_heads,
            int64_t n_positions, KvRows keys, KvRows values, int64_t n_keys, int64_t head_dim, float scale,
            AttentionLimits limits);

// out[i] = e^in[i] for 8 floats, the attention's vector exp (expf_avx2.h; for the tests).
void expf_8(const float* in, float* out);

// SwiGLU in place (SwigluFn), bit for bit the reference's.
void swiglu(float* gate, const float* up, int64_t n);
// GELU (GeluFn) and a row's softmax (SoftmaxFn), bit for bit the reference's.
void gelu(float* x, int64_t n);
void softmax(float* row, int64_t n, float scale);

} // namespace hearth::kernels::avx2
