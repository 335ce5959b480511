#include "app/models/model_fit.h"
#include "engine/forward/compute_device.h"
#include "engine/forward/device_plan.h"
#include "engine/model/hparams.h"
#include <algorithm>
#include <unistd.h>

namespace hearth::app {

bool isRunnableArchitecture(const QString& architecture) {
    return engine::architecture_from_name(architecture.toStdString()).has_value();
}

qint64 physicalMemoryBytes() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0) return 0;
    return qint64(pages) * qint64(pageSize);
}

MemoryFit memoryFit(qint64 neededBytes, qint64 physicalBytes) {
    if (physicalBytes <= 0 || neededBytes <= 0) return MemoryFit::Unknown;
    if (neededBytes > physicalBytes) return MemoryFit::TooLarge;
    if (neededBytes > physicalBytes / 5 * 4) return MemoryFit::Tight;
    return MemoryFit::Fits;
}

qint64 chosenGpuMemoryBytes(const EngineConfig& config) {
    const engine::ComputeDevice& device = config.device;
    if (device.kind == engine::ComputeDevice::Kind::Cpu) return 0;
    const std::vector<engine::GpuDeviceInfo> devices = engine::gpu_devices();
    const int32_t index = device.index < 0 ? engine::best_gpu_device(devices) : device.index;
    for (const engine::GpuDeviceInfo& d : devices)
        if (d.index == index && d.unusable_reason.empty()) return static_cast<qint64>(d.device_local_bytes);
    return 0;
}

GpuSplit gpuSplit(const engine::DeviceMemoryPlan& plan, qint64 fileBytes, qint64 gpuMemoryBytes,
                  int requestedLayers) {
    GpuSplit split;
    split.layerCount = static_cast<int>(plan.layer_bytes.size());
    const uint64_t available =
        engine::usable_device_bytes(static_cast<uint64_t>(std::max<qint64>(gpuMemoryBytes, 0)));
    const int fit = engine::layers_that_fit(plan, available);
    if (requestedLayers < 0) {
        split.gpuLayers = fit;
    } else {
        // More layers than fit: the engine refuses the GPU, and the model runs on the CPU.
        const int wanted = std::min(requestedLayers, split.layerCount);
        split.gpuLayers = wanted <= fit ? wanted : 0;
    }
    split.gpuBytes = static_cast<qint64>(plan.bytes_for(split.gpuLayers));
    split.ramBytes =
        fileBytes + static_cast<qint64>(plan.kv_bytes_per_layer) * (split.layerCount - split.gpuLayers);
    return split;
}

} // namespace hearth::app
