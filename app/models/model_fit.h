#pragma once
// Whether this engine and this machine can run a model: the architectures the
// engine reads (engine::architecture_from_name), the memory it needs against
// the machine's RAM, and how it splits between RAM and a GPU's memory.
#include "app/settings/engine_config.h"
#include <QString>

namespace hearth::engine {
struct DeviceMemoryPlan;
}

namespace hearth::app {

bool isRunnableArchitecture(const QString& architecture);
// Physical memory of this machine in bytes; 0 when unknown.
qint64 physicalMemoryBytes();

enum class MemoryFit {
    Fits,     // leaves room for the system and other programs
    Tight,    // fits in RAM, but leaves less than a fifth of it
    TooLarge, // more than the machine has
    Unknown,
};
MemoryFit memoryFit(qint64 neededBytes, qint64 physicalBytes);

// The device-local memory of the GPU `config` chooses; 0 for the CPU, or a GPU that is not
// there or cannot run the engine. Lists the Vulkan devices: not on the GUI thread.
qint64 chosenGpuMemoryBytes(const EngineConfig& config);

// How a model runs with its first layers on a GPU, as the engine plans them
// (engine/forward/device_plan.h).
struct GpuSplit {
    int gpuLayers = 0;   // on the GPU; 0: every layer on the CPU (those asked for do not fit)
    int layerCount = 0;  // the model's
    qint64 gpuBytes = 0; // those layers' weights and KV cache, and a batch's activations
    qint64 ramBytes = 0; // every weight (the CPU keeps them all) and the other layers' KV cache
    [[nodiscard]] bool whole() const { return layerCount > 0 && gpuLayers == layerCount; }
};
// `requestedLayers`: -1 for as many as fit (the settings' automatic).
GpuSplit gpuSplit(const engine::DeviceMemoryPlan& plan, qint64 fileBytes, qint64 gpuMemoryBytes,
                  int requestedLayers);

} // namespace hearth::app
