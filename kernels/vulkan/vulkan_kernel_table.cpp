#include "kernels/vulkan/vulkan_kernel_table.h"
#include "kernels/candidates_impl.h"
#include "kernels/kernel_table.h"

namespace hearth::kernels::vulkan {
namespace {

constexpr Backend kVulkan{Device::Vulkan, Isa::Scalar};

// The weight types the typed shaders are compiled for (CMakeLists.txt: VULKAN_WEIGHT_TYPES).
constexpr TensorType kWeightTypes[] = {TensorType::F32,  TensorType::F16,  TensorType::BF16, TensorType::Q4_0,
                                       TensorType::Q4_1, TensorType::Q5_0, TensorType::Q5_1, TensorType::Q8_0,
                                       TensorType::Q2_K, TensorType::Q3_K, TensorType::Q4_K, TensorType::Q5_K,
                                       TensorType::Q6_K};

Candidate<ShaderPlan> shader(std::string_view name, ShaderPlan plan, Guard guard = {}) {
    return {.name = name, .backend = kVulkan, .guard = guard, .fn = plan};
}

VulkanKernelTable build() {
    VulkanKernelTable table;
    for (TensorType type : kWeightTypes) {
        VulkanTypeCandidates& c = table.of(type);
        // Reductions with subgroup arithmetic where the device has it, in shared memory where not.
        c.matmul.put_first({
            shader("matmul_vec", ShaderPlan::MatVec,
                   {.max_batch = kMatVecMaxBatch, .features = kSubgroupArithmetic}),
            shader("matmul_vec_nosubgroup", ShaderPlan::MatVec, {.max_batch = kMatVecMaxBatch}),
            shader("matmul_mat", ShaderPlan::TiledMatMat, {.min_batch = kMatVecMaxBatch + 1}),
        });
        c.matmul_experts.put_first({
            shader("matmul_experts", ShaderPlan::ExpertMatVec, {.features = kSubgroupArithmetic}),
            shader("matmul_experts_nosubgroup", ShaderPlan::ExpertMatVec),
        });
    }
    // Splits of the keys only where the tiles alone leave a GPU idle and there are keys for two
    // splits at least.
    table.attention.put_first({
        shader("attention_split_keys", ShaderPlan::AttentionSplitKeys,
               {.max_width = kMaxAttentionHeadDim,
                .min_keys = 2 * kMinKeysPerSplit,
                .max_workgroups = kGpuWorkgroups - 1}),
        shader("attention", ShaderPlan::AttentionTiles, {.max_width = kMaxAttentionHeadDim}),
    });
    return table;
}

} // namespace

const VulkanKernelTable& vulkan_kernels() {
    static const VulkanKernelTable table = build();
    return table;
}

} // namespace hearth::kernels::vulkan
