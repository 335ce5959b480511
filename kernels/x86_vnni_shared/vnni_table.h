// Shared by the VNNI tiers: included by x86_avxvnni/avxvnni_table.cpp and by
// x86_avx512/avx512_table.cpp, each of which names its tier's namespace (HEARTH_VNNI_NS).
// The VNNI tiers' own kernels (AVX-VNNI and AVX-512). Reached only when the CPU runs the tier
// (kernel_table.cpp checks first), so it is compiled with the tier's flags.
#pragma once
#include "kernels/x86_vnni_shared/q8_0_family.h"
#include "kernels/x86_vnni_shared/vnni_kernels.h"

namespace hearth::kernels::HEARTH_VNNI_NS {

// The kernels both VNNI tiers put over a copy of the AVX2 tier's table.
inline void add_vnni_kernels(KernelTable& table) {
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
}

} // namespace hearth::kernels::HEARTH_VNNI_NS
