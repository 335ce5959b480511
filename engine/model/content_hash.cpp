#include "engine/model/content_hash.h"

#include <bit>
#include <cstring>

namespace hearth::engine {
namespace {

constexpr uint64_t kMultiplier = 0x9E3779B97F4A7C15ull;

uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

} // namespace

uint64_t hash_bytes(const void* data, size_t size, uint64_t seed) {
    const auto* p = static_cast<const unsigned char*>(data);
    // Four independent lanes keep the multiplier chains from serialising.
    uint64_t lanes[4] = {seed ^ kMultiplier, seed + 1, seed ^ (size * kMultiplier), seed - 1};
    size_t i = 0;
    for (; i + 32 <= size; i += 32) {
        for (int lane = 0; lane < 4; ++lane) {
            uint64_t word;
            std::memcpy(&word, p + i + 8 * lane, 8);
            lanes[lane] = std::rotl((lanes[lane] ^ word) * kMultiplier, 31);
        }
    }
    uint64_t h = mix(lanes[0]) ^ mix(lanes[1] + 1) ^ mix(lanes[2] + 2) ^ mix(lanes[3] + 3) ^ size;
    for (; i < size; ++i)
        h = (h ^ p[i]) * kMultiplier;
    return mix(h);
}

uint64_t checksum_bytes(const void* data, size_t size, uint64_t seed) {
    // Eight 64-bit lanes, as four pairs the compiler keeps in vector registers: the sums stay out
    // of memory, so the loop runs at the speed of the reads (it checks a model's cached copy).
    using Pair = uint64_t __attribute__((vector_size(16)));
    constexpr int kPairs = 4;
    Pair sum[kPairs] = {}, sum_of_sums[kPairs] = {};
    const auto* p = static_cast<const unsigned char*>(data);
    size_t i = 0;
    for (; i + sizeof sum <= size; i += sizeof sum) {
        Pair words[kPairs];
        std::memcpy(words, p + i, sizeof words);
#pragma GCC unroll 4
        for (int pair = 0; pair < kPairs; ++pair) {
            sum[pair] += words[pair];
            sum_of_sums[pair] += sum[pair];
        }
    }
    uint64_t sums[2][2 * kPairs]; // [0]: the words' sums, [1]: the sums of the running sums
    std::memcpy(sums[0], sum, sizeof sum);
    std::memcpy(sums[1], sum_of_sums, sizeof sum_of_sums);
    return hash_bytes(p + i, size - i, hash_bytes(sums, sizeof sums, seed ^ size));
}

} // namespace hearth::engine
