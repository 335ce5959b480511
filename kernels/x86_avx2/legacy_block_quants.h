#pragma once
// The 32 quants of a legacy block (Q4_0, Q5_0, Q8_0 signed; Q4_1, Q5_1 unsigned, offset by the
// block's minimum) as 32 bytes in element order, for the vec_dot and the gemm kernels alike.
// Include only from kernels/x86_avx2/*.cpp.
#include "kernels/block_formats.h"
#include "kernels/x86_avx2/avx2_util.h"

namespace hearth::kernels::avx2 {

inline __m256i signed_quants(const BlockQ8_0& block) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block.qs));
}
inline __m256i signed_quants(const BlockQ4_0& block) {
    return _mm256_sub_epi8(unpack_nibbles_16(block.qs), _mm256_set1_epi8(8));
}
// Q5_0's quants minus 16: where the fifth bit is clear, setting the top nibble makes the byte
// nibble - 16.
inline __m256i signed_quants(const BlockQ5_0& block) {
    const __m256i high = _mm256_andnot_si256(bits_to_bytes(load_u32(block.qh)), _mm256_set1_epi8(char(0xF0)));
    return _mm256_or_si256(unpack_nibbles_16(block.qs), high);
}

inline __m256i unsigned_quants(const BlockQ4_1& block) {
    return unpack_nibbles_16(block.qs);
}
inline __m256i unsigned_quants(const BlockQ5_1& block) {
    const __m256i high = _mm256_and_si256(bits_to_bytes(load_u32(block.qh)), _mm256_set1_epi8(0x10));
    return _mm256_or_si256(unpack_nibbles_16(block.qs), high);
}

} // namespace hearth::kernels::avx2
