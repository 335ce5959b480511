// Compute pipelines: one layout for all, built on first use from the embedded SPIR-V, with a
// pipeline cache that persists across runs.
#include "kernels/vulkan/vulkan_shaders.h"
#include "kernels/vulkan/vulkan_state.h"
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace hearth::kernels::vulkan {

void ContextState::create_pipeline_objects() {
    VkDescriptorSetLayoutBinding bindings[kBindings];
    for (uint32_t i = 0; i < kBindings; ++i)
        bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    auto set_info =
        vk_struct<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
    set_info.bindingCount = kBindings;
    set_info.pBindings = bindings;
    check(vkCreateDescriptorSetLayout(device, &set_info, nullptr, &set_layout),
          "creating the descriptor set layout");
    const VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes};
    auto layout_info = vk_struct<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &set_layout;
    layout_info.pushConstantRangeCount = 1;
    layout_info.pPushConstantRanges = &push;
    check(vkCreatePipelineLayout(device, &layout_info, nullptr, &pipeline_layout),
          "creating the pipeline layout");
    load_pipeline_cache();
}

void ContextState::load_pipeline_cache() {
    // The driver checks the header (vendor, device, cache UUID) and ignores data of another
    // device or driver version.
    std::vector<char> data;
    if (!options.pipeline_cache_path.empty()) {
        std::ifstream in(options.pipeline_cache_path, std::ios::binary);
        if (in) data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    auto info = vk_struct<VkPipelineCacheCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO);
    info.initialDataSize = data.size();
    info.pInitialData = data.empty() ? nullptr : data.data();
    if (vkCreatePipelineCache(device, &info, nullptr, &pipeline_cache) != VK_SUCCESS) {
        // Data the driver refuses: start empty.
        info.initialDataSize = 0;
        info.pInitialData = nullptr;
        check(vkCreatePipelineCache(device, &info, nullptr, &pipeline_cache), "creating the pipeline cache");
    }
}

VkPipeline ContextState::pipeline(const std::string& shader, const std::vector<uint32_t>& constants) {
    auto key = std::make_pair(shader, constants);
    if (auto found = pipelines.find(key); found != pipelines.end()) return found->second;

    auto module = modules.find(shader);
    if (module == modules.end()) {
        const EmbeddedShader* code = embedded_shader(shader);
        if (!code) throw Error("Vulkan: no shader named " + shader + " in the library");
        auto info = vk_struct<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
        info.codeSize = code->word_count * sizeof(uint32_t);
        info.pCode = code->words;
        VkShaderModule created = VK_NULL_HANDLE;
        check(vkCreateShaderModule(device, &info, nullptr, &created),
              ("creating shader module " + shader).c_str());
        module = modules.emplace(shader, created).first;
    }

    std::vector<VkSpecializationMapEntry> entries(constants.size());
    for (uint32_t i = 0; i < constants.size(); ++i)
        entries[i] = {i, i * static_cast<uint32_t>(sizeof(uint32_t)), sizeof(uint32_t)};
    VkSpecializationInfo specialization{static_cast<uint32_t>(entries.size()), entries.data(),
                                        constants.size() * sizeof(uint32_t), constants.data()};
    auto stage =
        vk_struct<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
    stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    stage.module = module->second;
    stage.pName = "main";
    stage.pSpecializationInfo = constants.empty() ? nullptr : &specialization;
    auto info = vk_struct<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
    info.stage = stage;
    info.layout = pipeline_layout;
    VkPipeline created = VK_NULL_HANDLE;
    check(vkCreateComputePipelines(device, pipeline_cache, 1, &info, nullptr, &created),
          ("creating the pipeline of " + shader).c_str());
    pipelines.emplace(std::move(key), created);
    return created;
}

void Context::save_pipeline_cache() const {
    const ContextState& s = *state_;
    if (s.options.pipeline_cache_path.empty() || !s.pipeline_cache || s.lost) return;
    size_t size = 0;
    if (vkGetPipelineCacheData(s.device, s.pipeline_cache, &size, nullptr) != VK_SUCCESS || size == 0) return;
    std::vector<char> data(size);
    if (vkGetPipelineCacheData(s.device, s.pipeline_cache, &size, data.data()) != VK_SUCCESS) return;
    const std::filesystem::path path(s.options.pipeline_cache_path);
    std::error_code ignored;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ignored);
    // Written beside it, then renamed: a reader never sees half a file.
    const std::filesystem::path temporary = path.string() + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out.write(data.data(), static_cast<std::streamsize>(size));
        if (!out) throw Error("Vulkan: cannot write the pipeline cache " + temporary.string());
    }
    std::filesystem::rename(temporary, path, ignored);
    if (ignored)
        throw Error("Vulkan: cannot write the pipeline cache " + path.string() + ": " + ignored.message());
}

} // namespace hearth::kernels::vulkan
