// The AVX2+FMA+F16C tier's own kernels. Compiled without AVX flags: it only takes the
// kernels' addresses. What it leaves null comes from the scalar tier (kernel_table.cpp).
#include "kernels/x86_avx2/avx2_kernels.h"

namespace hearth::kernels::avx2 {

void add_kernels(KernelTable& table) {
    auto set = [&](TensorType type, TensorType activation_type, QuantizeRowFn quantize,
                   DequantizeRowFn dequantize, VecDotFn vec_dot, GemmFn gemm) {
        TypeKernels& k = table.of(type);
        k.activation_type = activation_type;
        k.quantize = quantize;
        k.dequantize = dequantize;
        k.vec_dot = vec_dot;
        k.gemm = gemm;
    };
    using T = TensorType;
    set(T::F32, T::F32, nullptr, nullptr, avx2::vec_dot_f32_f32, nullptr);
    set(T::F16, T::F16, avx2::quantize_row_f16, avx2::dequantize_row_f16, avx2::vec_dot_f16_f16,
        avx2::gemm_for(T::F16));
    set(T::BF16, T::BF16, nullptr, avx2::dequantize_row_bf16, avx2::vec_dot_bf16_bf16,
        avx2::gemm_for(T::BF16));
    set(T::Q4_0, T::Q8_0, nullptr, avx2::dequantize_row_q4_0, avx2::vec_dot_q4_0_q8_0,
        avx2::gemm_for(T::Q4_0));
    set(T::Q4_1, T::Q8_0, nullptr, avx2::dequantize_row_q4_1, avx2::vec_dot_q4_1_q8_0,
        avx2::gemm_for(T::Q4_1));
    set(T::Q5_0, T::Q8_0, nullptr, avx2::dequantize_row_q5_0, avx2::vec_dot_q5_0_q8_0,
        avx2::gemm_for(T::Q5_0));
    set(T::Q5_1, T::Q8_0, nullptr, avx2::dequantize_row_q5_1, avx2::vec_dot_q5_1_q8_0,
        avx2::gemm_for(T::Q5_1));
    set(T::Q8_0, T::Q8_0, avx2::quantize_row_q8_0, avx2::dequantize_row_q8_0, avx2::vec_dot_q8_0_q8_0,
        avx2::gemm_for(T::Q8_0));
    set(T::Q2_K, T::Q8_K, nullptr, nullptr, avx2::vec_dot_q2_K_q8_K, avx2::gemm_for(T::Q2_K));
    set(T::Q3_K, T::Q8_K, nullptr, nullptr, avx2::vec_dot_q3_K_q8_K, avx2::gemm_for(T::Q3_K));
    set(T::Q4_K, T::Q8_K, nullptr, avx2::dequantize_row_q4_K, avx2::vec_dot_q4_K_q8_K,
        avx2::gemm_for(T::Q4_K));
    set(T::Q5_K, T::Q8_K, nullptr, avx2::dequantize_row_q5_K, avx2::vec_dot_q5_K_q8_K,
        avx2::gemm_for(T::Q5_K));
    set(T::Q6_K, T::Q8_K, nullptr, avx2::dequantize_row_q6_K, avx2::vec_dot_q6_K_q8_K,
        avx2::gemm_for(T::Q6_K));
    set(T::Q8_K, T::Q8_K, avx2::quantize_row_q8_K, nullptr, nullptr, nullptr);
    table.of(T::Q8_0).quantize_activations = avx2::quantize_row_q8_0_activations;
    table.of(T::Q4_0).gemm_rows_multiple_of_8 = avx2::gemm_q4_0_q8_0_interleaved;
    table.of(T::Q4_K).gemm_rows_multiple_of_8 = avx2::gemm_q4_K_q8_K_interleaved;
    table.of(T::Q4_K).gemv_interleaved16 = avx2::gemv_q4_K_q8_K_interleaved16;
    table.of(T::Q6_K).gemv_interleaved16 = avx2::gemv_q6_K_q8_K_interleaved16;
    table.of(T::Q8_0).gemv_interleaved16 = avx2::gemv_q8_0_q8_0_interleaved16;
    table.attend_f16 = avx2::attend_f16;
    table.attend_group_f16 = avx2::attend_group_f16;
    table.attend_group = avx2::attend_group;
    table.attend_group_limited = avx2::attend_group_limited;
    table.attention_isa = [](int64_t, int64_t, bool) { return Isa::Avx2; };
    table.swiglu = avx2::swiglu;
}

} // namespace hearth::kernels::avx2
