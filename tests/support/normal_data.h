#pragma once
// n floats drawn from N(mean, 1) by a generator seeded with `seed`: the kernel tests' data, the
// same on every run.
#include <cstdint>
#include <random>
#include <vector>

namespace hearth::test {

inline std::vector<float> normal_data(int64_t n, uint32_t seed, float mean) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(mean, 1.0f);
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x)
        v = normal(rng);
    return x;
}

} // namespace hearth::test
