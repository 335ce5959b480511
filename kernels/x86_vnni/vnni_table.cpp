// The VNNI tiers' own kernels (AVX-VNNI and AVX-512). Built only when the CPU runs the tier
// (kernel_table.cpp checks first), so it may be compiled with the tier's flags.
#include "kernels/x86_vnni/q8_0_family.h"
#include "kernels/x86_vnni/vnni_kernels.h"
#ifdef HEARTH_AVX512
#include "kernels/x86_avx512/avx512_kernels.h"
#endif

namespace hearth::kernels::HEARTH_VNNI_NS {

void add_kernels(KernelTable& table) {
    add_interleaved16_kernels(table);
    add_k_quant_kernels(table); // its prefill of repacked Q4_K falls back on the decode above
    // The 32-element formats: vpdpbusd dot products and gemm, Q8_0 activations as in the AVX2
    // tier (whose quantizers and dequantizers stay; AVX-512 has its own activation quantizer,
    // with the same bits); one gemm for every row count.
    for (TensorType type :
         {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q5_0, TensorType::Q4_1, TensorType::Q5_1}) {
        TypeKernels& k = table.of(type);
        k.activation_type = TensorType::Q8_0;
        k.vec_dot = q8_0_family_vec_dot(type);
        k.gemm = q8_0_family_gemm(type);
        k.gemm_rows_multiple_of_8 = nullptr;
    }
    table.of(TensorType::Q8_0).gemm_interleaved16 = q8_0_interleaved16_gemm();
#ifdef HEARTH_AVX512
    avx512::add_attention_kernels(table);
    avx512::add_low_bit_k_quant_kernels(table);
    avx512::add_quantizer_kernels(table);
#endif
}

} // namespace hearth::kernels::HEARTH_VNNI_NS
