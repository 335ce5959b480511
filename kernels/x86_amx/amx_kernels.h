#pragma once
// The AMX tier's candidates, put in front of a copy of the AVX-512 tier's table (amx_table.cpp).
#include "kernels/kernel_table.h"

namespace hearth::kernels::amx {

// Prefill attention over F16 caches (attention_amx.cpp).
void add_attention_kernels(KernelTable& table);
// Prefill gemm of Q8_0 weights, row-major and repacked (gemm_q8_0_amx.cpp), on int8 tiles; small
// batches stay with the tier below's kernels. Q4_K has no int8 tile kernel: one that split a
// group's nibbles into bytes once per call ran 2-4x slower than the AVX-512 rows kernel for the
// 8-31 rows it took (the BF16 tiles then took 32 and more), Xeon family 6 model 207.
void add_q8_0_gemm_kernels(KernelTable& table);
// Prefill on BF16 tiles (gemm_bf16_amx.cpp), batches of kBf16TileMinBatch or more: Q4_0, Q4_1,
// Q5_0, Q5_1, Q8_0, Q4_K, Q5_K and Q6_K (the repacked Q4_K, Q6_K and Q8_0 too).
void add_bf16_gemm_kernels(KernelTable& table);

} // namespace hearth::kernels::amx
