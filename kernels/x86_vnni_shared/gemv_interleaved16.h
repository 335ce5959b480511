// Shared by the VNNI tiers: compiled once by x86_avxvnni/gemv_interleaved16_avxvnni.cpp and once by
// x86_avx512/gemv_interleaved16_avx512.cpp, each of which names its tier's namespace (HEARTH_VNNI_NS).
// Decode over Q4_K, Q6_K and Q8_0 weights repacked in groups of 16 rows, with vpdpbusd (AVX-VNNI's
// Q6_K: vpmaddubsw's word sums): one zmm per group on AVX-512, two ymm on AVX-VNNI (the kernel:
// x86_avx2/interleaved16_gemv.h).
#pragma once
#include "kernels/gemm_by_rows.h"
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
// AVX-VNNI sums Q6_K in words (vpmaddubsw, then vpdpwssd by the scale), as AVX2 does: its int32
// sums (4 per step and row, vpmulld by the scale) spilled from 3 rows, and ran slower than AVX2's
// even for one. Xeon (family 6 model 207), one thread, 2048 x 2048 in cache, int32 -> words: 1
// row 166-197 -> 161 us, 3 rows 406-480 -> 227, 8 rows 852-916 -> 518.
#ifdef HEARTH_AVX512
using Q6KRows = Rows16;
#else
using Q6KRows = YmmWordSums<Rows8>;
#endif
} // namespace

void add_interleaved16_kernels(KernelTable& table) {
    table.of(TensorType::Q4_K)
        .matmul.put_first({repacked_rows_kernel("gemv_q4_K_q8_K_interleaved16", kVnniBackend,
                                                gemm_q4_K_interleaved16_rows<V>, TensorType::Q8_K, 1)});
    table.of(TensorType::Q6_K)
        .matmul.put_first({repacked_rows_kernel("gemv_q6_K_q8_K_interleaved16", kVnniBackend,
                                                gemm_q6_K_interleaved16_rows<Q6KRows>, TensorType::Q8_K, 1)});
    // With vpdpbusd the repacked rows decode faster than the file's (the AVX2 tier keeps them).
    table.of(TensorType::Q6_K).repacks_rows16 = true;
    table.of(TensorType::Q8_0)
        .matmul.put_first({repacked_rows_kernel("gemv_q8_0_q8_0_interleaved16", kVnniBackend,
                                                gemm_q8_0_interleaved16_rows<V>, TensorType::Q8_0,
                                                kRepackedQ8_0RowsMaxBatch)});
}

} // namespace hearth::kernels::HEARTH_VNNI_NS
