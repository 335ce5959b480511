#include "app/cli/model_options.h"
#include "engine/forward/device_forward.h"
#include "kernels/isa_select.h"
#include "kernels/kernel_table.h"
#include <cstdio>

namespace hearth::cli {

std::set<std::string> model_value_options(std::set<std::string> extra) {
    extra.insert({"-m", "--model", "-t", "--threads", "-b", "--batch", "--isa", "--cache-type-k",
                  "--cache-type-v", "--device", "-ngl", "--n-gpu-layers"});
    return extra;
}

engine::KvCacheTypes kv_cache_types(const Args& args) {
    const auto read = [&args](const char* option) {
        const std::optional<std::string> name = args.value(option);
        if (!name) return kernels::TensorType::F16;
        const std::optional<kernels::TensorType> type = engine::kv_cache_type_from_name(*name);
        if (!type) throw ArgError(std::string(option) + " expects f16, q8_0 or q4_0, got '" + *name + "'");
        return *type;
    };
    return {read("--cache-type-k"), read("--cache-type-v")};
}

engine::InferenceOptions inference_options(const Args& args) {
    if (auto isa = args.value("--isa")) {
        const std::optional<kernels::Isa> tier = kernels::isa_from_name(*isa);
        if (!tier) throw ArgError("--isa expects scalar, avx2, avxvnni, avx512 or amx, got '" + *isa + "'");
        if (kernels::kernels_for(*tier) == nullptr)
            throw ArgError("--isa " + *isa + ": " + kernels::isa_unavailable_reason(*tier));
        kernels::force_isa(*tier);
    }
    engine::InferenceOptions options;
    options.n_threads = args.get_int("-t", args.get_int("--threads", 0));
    options.n_batch = args.get_int("-b", args.get_int("--batch", options.n_batch));
    if (options.n_threads < 0 || options.n_batch < 1) throw ArgError("threads and batch must be positive");
    options.cache_types = kv_cache_types(args);
    if (const auto name = args.value("--device")) {
        const std::optional<engine::ComputeDevice> device = engine::compute_device_from_name(*name);
        if (!device) throw ArgError("--device expects cpu, vulkan or vulkan:N, got '" + *name + "'");
        options.device = *device;
    }
    options.n_gpu_layers = args.get_int("-ngl", args.get_int("--n-gpu-layers", options.n_gpu_layers));
    if (options.n_gpu_layers < -1) throw ArgError("-ngl expects a number of layers, or -1 for all that fit");
    // The device's layers keep room for one conversation of the context asked for.
    options.device_context = args.get_int("-c", args.get_int("--ctx-size", options.device_context));
    return options;
}

engine::RuntimeConfig runtime_config(const Args& args, int default_context) {
    const engine::InferenceOptions options = inference_options(args);
    engine::RuntimeConfig config;
    config.threads = options.n_threads;
    config.n_batch = options.n_batch;
    config.cache_types = options.cache_types;
    config.device = options.device;
    config.gpu_layers = options.n_gpu_layers;
    config.context_length = args.get_int("-c", args.get_int("--ctx-size", default_context));
    config.fall_back = false; // every choice on the command line is the user's own
    return config;
}

void report_device(const char* command, const engine::Inference& inference) {
    const engine::DeviceForward* device = inference.device_forward();
    if (!device) return;
    std::fprintf(stderr, "hearth-cli %s: %s (%llu bytes cross per decoded token)\n", command,
                 inference.device_summary().c_str(),
                 static_cast<unsigned long long>(device->bytes_per_decoded_token()));
}

void report_tower_device(const char* command, const vision::VisionProjector& projector) {
    if (!projector.tower_device_problem().empty())
        std::fprintf(stderr, "hearth-cli %s: the vision tower runs on the CPU: %s\n", command,
                     projector.tower_device_problem().c_str());
    else if (projector.tower_device() != "cpu")
        std::fprintf(stderr, "hearth-cli %s: the vision tower runs on %s\n", command,
                     projector.tower_device().c_str());
}

void report_validation_errors(const char* command, const engine::Inference& inference) {
    const engine::DeviceForward* device = inference.device_forward();
    if (!device || device->validation_errors() == 0) return;
    std::fprintf(stderr, "hearth-cli %s: %llu Vulkan validation errors, the last: %s\n", command,
                 static_cast<unsigned long long>(device->validation_errors()),
                 device->last_validation_message().c_str());
}

} // namespace hearth::cli
