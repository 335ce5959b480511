// Shared by the VNNI tiers: compiled once by x86_avxvnni/gemv_interleaved16_avxvnni.cpp and once by
// x86_avx512/gemv_interleaved16_avx512.cpp, each of which names its tier's namespace (HEARTH_VNNI_NS).
// Decode over Q4_K, Q6_K and Q8_0 weights repacked in groups of 16 rows, with vpdpbusd: one zmm per
// group on AVX-512, two ymm on AVX-VNNI (the kernel: x86_avx2/interleaved16_gemv.h).
#pragma once
#include "kernels/x86_vnni_shared/row_vectors.h"
#include "kernels/x86_vnni_shared/vnni_kernels.h"

#include "kernels/x86_avx2/interleaved16_gemv.h"

namespace hearth::kernels::HEARTH_VNNI_NS {
namespace {
#ifdef HEARTH_AVX512
using V = Rows16;
#else
using V = Rows8;
#endif
} // namespace

void add_interleaved16_kernels(KernelTable& table) {
    table.of(TensorType::Q4_K).gemv_interleaved16 = gemv_q4_K_interleaved16<V>;
    table.of(TensorType::Q6_K).gemv_interleaved16 = gemv_q6_K_interleaved16<V>;
    table.of(TensorType::Q8_0).gemv_interleaved16 = gemv_q8_0_interleaved16<V>;
}

} // namespace hearth::kernels::HEARTH_VNNI_NS
