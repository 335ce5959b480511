#pragma once
// The AVX-512 tier's own kernels on AVX-512 F/BW/VL/DQ (no VNNI), compiled with that tier's flags alone
// and put in its table by x86_avx512/avx512_table.cpp. Include only from kernels/x86_avx512/ and
// kernels/x86_amx/.
#include "kernels/kernel_table.h"

namespace hearth::kernels::avx512 {

// Attention (AttendFn) in F32, 16 keys per block, for head sizes that are multiples of 8
// (attention_avx512.cpp).
void add_attention_kernels(KernelTable& table);

// out[i] = 2^in[i] for 16 or 8 floats, the attention's vector 2^x (expf_avx512.h; for the tests).
void exp2_16(const float* in, float* out);
void exp2_8(const float* in, float* out);

// The Q8_0 activation quantizer (the reference's choice of scale, bit for bit), for every
// 32-element format (quantize_avx512.cpp).
void add_quantizer_kernels(KernelTable& table);
// F32 -> BF16, the reference's rounding (bf16_rows_avx512.cpp): the BF16 type's quantizer.
void quantize_row_bf16(const float* src, void* dst, int64_t n);

// F16 and BF16 weights with activations of their type, prefill and decode in one order of sums,
// that of this tier's rows' dot products (gemm_float_avx512.cpp).
void add_float_kernels(KernelTable& table);
GemmFn gemm_for_float(TensorType type); // F16, BF16; nullptr for the other types
float vec_dot_f16_f16(int64_t n, const void* weight_row, const void* activation_row);
float vec_dot_bf16_bf16(int64_t n, const void* weight_row, const void* activation_row);

// Q2_K and Q3_K decode (batch 1) two chunks per zmm, with the same bits as the AVX2 tier's dot
// products (low_bit_k_avx512.cpp).
void add_low_bit_k_quant_kernels(KernelTable& table);

} // namespace hearth::kernels::avx512
