// The int8 dot-product kernels of the tiers with vpdpbusd. Every source of x86_vnni_shared/ is
// compiled once per such tier, by a file of that tier's folder that names its namespace first:
// HEARTH_VNNI_NS is `avxvnni` (x86_avxvnni/: VEX encoding, 256-bit) or `avx512` (x86_avx512/:
// EVEX, AVX-512 F/BW/VL/DQ + VNNI; HEARTH_AVX512 is then defined).
// Include only from kernels/x86_vnni_shared/.
#pragma once
#include "kernels/kernel_table.h"
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <immintrin.h>

#ifndef HEARTH_VNNI_NS
#error "x86_vnni_shared/ sources are compiled once per VNNI tier, with HEARTH_VNNI_NS set"
#endif

namespace hearth::kernels::HEARTH_VNNI_NS {

// Sum over 4 bytes of each dword: acc + u8(a) * s8(b), exact in int32.
inline __m256i dpbusd(__m256i acc, __m256i unsigned_bytes, __m256i signed_bytes) {
#ifdef HEARTH_AVX512
    return _mm256_dpbusd_epi32(acc, unsigned_bytes, signed_bytes);
#else
    return _mm256_dpbusd_avx_epi32(acc, unsigned_bytes, signed_bytes);
#endif
}

inline float fp16_to_float(uint16_t bits) {
    return _cvtsh_ss(bits);
}

inline int32_t load_i32(const void* p) {
    int32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// The backend the tier's candidates name.
#ifdef HEARTH_AVX512
inline constexpr Backend kVnniBackend = cpu(Isa::Avx512);
#else
inline constexpr Backend kVnniBackend = cpu(Isa::AvxVnni);
#endif

// Batches up to this many rows of a repacked Q8_0 matrix take the decode kernel over its groups
// (gemv_interleaved16.h), larger ones the int8 tiles.
inline constexpr int64_t kRepackedQ8_0RowsMaxBatch = kDecodeExactMaxBatch;

// The tier's candidates, put in front of a copy of the AVX2 tier's table (kernel_table.cpp;
// x86_avxvnni/avxvnni_table.cpp, x86_avx512/avx512_table.cpp).
void add_kernels(KernelTable& table);
// Q2_K to Q6_K prefill (gemm_k_quants.h).
void add_k_quant_kernels(KernelTable& table);
// Q4_K, Q6_K and Q8_0 decode over weights repacked in groups of 16 rows (gemv_interleaved16.h).
void add_interleaved16_kernels(KernelTable& table);

} // namespace hearth::kernels::HEARTH_VNNI_NS
