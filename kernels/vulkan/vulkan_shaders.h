#pragma once
// The SPIR-V modules compiled from shaders/ at build time (embedded_shaders.cpp, generated).
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace hearth::kernels::vulkan {

struct EmbeddedShader {
    std::string_view name; // "matmul_vec_q4_K", "norm", ...
    const uint32_t* words;
    size_t word_count;
};
// The module of that name, or nullptr.
const EmbeddedShader* embedded_shader(std::string_view name);

} // namespace hearth::kernels::vulkan
