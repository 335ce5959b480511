#include "kernels/tensor_type.h"

#include "kernels/block_formats.h"
#include <array>
#include <stdexcept>
#include <string>

namespace hearth::kernels {
namespace {

constexpr std::array<TypeTraits, 15> kTraits = {{
    {TensorType::F32, "f32", 1, sizeof(float)},
    {TensorType::F16, "f16", 1, sizeof(fp16_bits)},
    {TensorType::BF16, "bf16", 1, sizeof(bf16_bits)},
    {TensorType::Q4_0, "q4_0", QK4_0, sizeof(BlockQ4_0)},
    {TensorType::Q4_1, "q4_1", QK4_1, sizeof(BlockQ4_1)},
    {TensorType::Q5_0, "q5_0", QK5_0, sizeof(BlockQ5_0)},
    {TensorType::Q5_1, "q5_1", QK5_1, sizeof(BlockQ5_1)},
    {TensorType::Q8_0, "q8_0", QK8_0, sizeof(BlockQ8_0)},
    {TensorType::Q8_1, "q8_1", QK8_1, sizeof(BlockQ8_1)},
    {TensorType::Q2_K, "q2_K", QK_K, sizeof(BlockQ2_K)},
    {TensorType::Q3_K, "q3_K", QK_K, sizeof(BlockQ3_K)},
    {TensorType::Q4_K, "q4_K", QK_K, sizeof(BlockQ4_K)},
    {TensorType::Q5_K, "q5_K", QK_K, sizeof(BlockQ5_K)},
    {TensorType::Q6_K, "q6_K", QK_K, sizeof(BlockQ6_K)},
    {TensorType::Q8_K, "q8_K", QK_K, sizeof(BlockQ8_K)},
}};

char ascii_lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
    return true;
}

} // namespace

std::optional<TypeTraits> type_traits(uint32_t raw_type) {
    for (const TypeTraits& traits : kTraits)
        if (static_cast<uint32_t>(traits.type) == raw_type) return traits;
    return std::nullopt;
}

TypeTraits type_traits(TensorType type) {
    if (auto traits = type_traits(static_cast<uint32_t>(type))) return *traits;
    throw std::invalid_argument("unknown tensor type " + std::to_string(static_cast<uint32_t>(type)));
}

std::optional<TensorType> type_from_name(std::string_view name) {
    for (const TypeTraits& traits : kTraits)
        if (equal_ignoring_case(traits.name, name)) return traits.type;
    return std::nullopt;
}

size_t row_bytes(TensorType type, int64_t n) {
    const TypeTraits traits = type_traits(type);
    if (n < 0 || n % traits.block_elements != 0)
        throw std::invalid_argument("a row of " + std::to_string(n) + " elements is not a whole number of " +
                                    std::string(traits.name) + " blocks");
    return static_cast<size_t>(n / traits.block_elements) * traits.block_bytes;
}

} // namespace hearth::kernels
