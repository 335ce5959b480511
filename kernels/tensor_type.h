#pragma once
// Tensor element types, numbered as in the GGUF file format.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace hearth::kernels {

enum class TensorType : uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q8_1 = 9,
    Q2_K = 10,
    Q3_K = 11,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    Q8_K = 15,
    BF16 = 30,
};
// Slots in a table indexed by the raw type id: one past the largest id above.
inline constexpr size_t kTensorTypeSlots = static_cast<size_t>(TensorType::BF16) + 1;

struct TypeTraits {
    TensorType type;
    std::string_view name; // as llama.cpp prints it: "q4_K", "f16", ...
    int64_t block_elements;
    size_t block_bytes;
};

// Traits of a raw GGUF type id, or nullopt when the engine does not know the type.
std::optional<TypeTraits> type_traits(uint32_t raw_type);
TypeTraits type_traits(TensorType type);
// Parses a name such as "Q4_K", "q8_0", "F16" (case-insensitive).
std::optional<TensorType> type_from_name(std::string_view name);

// Bytes of a row of n elements; n must be a multiple of the block size.
size_t row_bytes(TensorType type, int64_t n);

} // namespace hearth::kernels
