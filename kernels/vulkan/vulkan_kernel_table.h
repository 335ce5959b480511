#pragma once
// The Vulkan backend's candidates: for each operation (and weight type) the shader variants that
// can run it, in order of preference, each with its guard and Backend{Device::Vulkan}. The ops
// (vulkan_ops.cpp) pick from these with Candidates::pick, as the CPU picks its kernels
// (candidates.h), and name the candidate that ran in their timings; nothing else chooses a
// shader variant. A candidate's name is its shader's, with "_" and the weight type for the typed
// ones ("matmul_vec" runs matmul_vec_q4_K on Q4_K weights), and its ShaderPlan is how the op
// records it. The ops' test runs every candidate of this table.
#include "kernels/candidates.h"
#include "kernels/tensor_type.h"
#include <cstdint>

namespace hearth::kernels::vulkan {

// How an op records the shader of the candidate it picked.
enum class ShaderPlan : uint8_t {
    None,
    MatVec,             // a few rows per workgroup, each thread's sums over the batch in registers
    TiledMatMat,        // tiles of rows x batch columns through shared memory
    ExpertMatVec,       // the mat-vec over the rows of the experts the router chose
    AttentionTiles,     // one pass over the keys per tile of query rows
    AttentionSplitKeys, // the keys split among workgroups, the splits combined by attention_reduce
};
using VulkanCandidates = Candidates<ShaderPlan>;

// The largest batch the mat-vec shader takes (its sums over the batch sit in registers).
inline constexpr int64_t kMatVecMaxBatch = 8;
// Workgroups that keep a GPU busy (Vulkan does not say how many compute units a device has:
// about 128 covers most GPUs); attention splits its keys below that many tiles.
inline constexpr int64_t kGpuWorkgroups = 128;
// The fewest keys one split of attention reads.
inline constexpr int64_t kMinKeysPerSplit = 128;

struct VulkanTypeCandidates {
    VulkanCandidates matmul;         // weights of this type x a batch of activations
    VulkanCandidates matmul_experts; // the chosen experts' rows of weights of this type
};

struct VulkanKernelTable {
    // Indexed by the raw TensorType value; the lists of types the backend does not run are empty.
    VulkanTypeCandidates by_type[kTensorTypeSlots];
    VulkanCandidates attention;
    const VulkanTypeCandidates& of(TensorType t) const { return by_type[static_cast<uint32_t>(t)]; }
    VulkanTypeCandidates& of(TensorType t) { return by_type[static_cast<uint32_t>(t)]; }
};

const VulkanKernelTable& vulkan_kernels();

} // namespace hearth::kernels::vulkan
