// hearth-cli devices: the Vulkan devices the engine can run on (`--device vulkan:N`), with
// their properties, or why there are none.
#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "engine/forward/compute_device.h"
#include <cstdio>
#include <string>
#include <vector>

namespace hearth::cli {
namespace {

std::string features_of(const engine::GpuDeviceInfo& d) {
    std::string features;
    const auto add = [&](bool has, const char* name) {
        if (has) features += (features.empty() ? "" : ", ") + std::string(name);
    };
    add(d.storage_16bit, "16-bit storage");
    add(d.shader_float16, "float16");
    add(d.shader_int8, "int8");
    add(d.integer_dot_product, "integer dot product");
    add(d.cooperative_matrix, "cooperative matrix");
    return features.empty() ? "none" : features;
}

int run_devices(const std::vector<std::string>& argv) {
    Args args(argv, {}, {});
    if (!args.positional().empty()) throw ArgError("unexpected argument '" + args.positional()[0] + "'");
    if (!engine::vulkan_built()) {
        std::printf("no Vulkan devices: this build has no Vulkan backend; the engine runs on the CPU\n");
        return kExitOk;
    }
    const std::vector<engine::GpuDeviceInfo> devices = engine::gpu_devices();
    if (devices.empty()) {
        std::printf("no Vulkan devices (no Vulkan driver, or no device it supports); the engine runs on the "
                    "CPU\n");
        return kExitOk;
    }
    const int32_t best = engine::best_gpu_device(devices);
    for (const engine::GpuDeviceInfo& d : devices) {
        std::printf("vulkan:%d  %s%s\n", d.index, d.name.c_str(),
                    d.index == best ? "  (--device vulkan)" : "");
        std::printf("  type: %s\n", d.type.c_str());
        std::printf("  vendor: %s\n", d.vendor.c_str());
        std::printf("  driver: %s%s%s\n", d.driver_name.c_str(), d.driver_info.empty() ? "" : " ",
                    d.driver_info.c_str());
        std::printf("  Vulkan: %s\n", d.api_version.c_str());
        std::printf("  device memory: %llu MiB\n",
                    static_cast<unsigned long long>(d.device_local_bytes >> 20));
        if (d.device_local_free_bytes) // the driver's budget for this process, less its use
            std::printf("  free device memory: %llu MiB\n",
                        static_cast<unsigned long long>(*d.device_local_free_bytes >> 20));
        std::printf("  subgroup size: %u\n", d.subgroup_size);
        std::printf("  features: %s\n", features_of(d).c_str());
        if (!d.unusable_reason.empty()) std::printf("  unusable: %s\n", d.unusable_reason.c_str());
    }
    return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
}

} // namespace

HEARTH_CLI_COMMAND("devices", run_devices,
                   "devices   the Vulkan devices --device vulkan:N can name, with their properties");

} // namespace hearth::cli
