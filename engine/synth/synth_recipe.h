#pragma once
// Which type each tensor of a model gets for a llama.cpp file type ("Q4_K_M"...),
// following llama.cpp's quantizer (llama_tensor_get_type in llama-quant.cpp) for
// models without an importance matrix: dense, fused-QKV and mixture-of-experts layouts.
#include "engine/synth/synth_shape.h"
#include "kernels/tensor_type.h"
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::gguf {

// llama.cpp's llama_ftype values, stored as general.file_type.
enum class FileType : uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q8_0 = 7,
    Q5_0 = 8,
    Q5_1 = 9,
    Q2_K = 10,
    Q3_K_S = 11,
    Q3_K_M = 12,
    Q3_K_L = 13,
    Q4_K_S = 14,
    Q4_K_M = 15,
    Q5_K_S = 16,
    Q5_K_M = 17,
    Q6_K = 18,
    BF16 = 32,
};

std::string_view file_type_name(FileType t);                        // "Q4_K_M"
std::optional<FileType> file_type_from_name(std::string_view name); // case-insensitive
std::vector<FileType> all_file_types();
// The type of most weight matrices (Q4_K for Q4_K_M, ...).
kernels::TensorType default_tensor_type(FileType t);
bool is_quantized(FileType t);

// How a tensor's values are made.
enum class TensorInit {
    Weight, // small random values around 0
    Norm,   // RMSNorm weights: around 1
    Given   // PlannedTensor::values (RoPE factors)
};

struct PlannedTensor {
    std::string name;
    std::vector<int64_t> shape; // shape[0] is the row length
    kernels::TensorType type = kernels::TensorType::F32;
    TensorInit init = TensorInit::Weight;
    std::vector<float> values; // TensorInit::Given: the one row of an F32 vector
};

// Every tensor of the model, in file order, with the type the file type gives it.
std::vector<PlannedTensor> plan_tensors(const ModelShape& shape, FileType file_type);

// llama.cpp's choice of layers that get more bits in the _M mixes: the first and last
// eighth of the layers and every third layer in between.
bool use_more_bits(int64_t layer, int64_t n_layers);

} // namespace hearth::gguf
