#pragma once
// The settings' engine section (threads, context, KV cache types, the compute device), and the
// same in the engine's own terms.
#include "engine/forward/compute_device.h"
#include "engine/forward/kv_cache.h"
#include <QMetaType>
#include <QString>

namespace hearth::app {

// How the engine runs a loaded model: what the settings panel's engine section chooses.
struct EngineConfig {
    int threads = 0; // 0: one per hardware thread, as in the engine
    int contextLength = 2048;
    QString keyCacheType = QStringLiteral("f16"); // f16, q8_0 or q4_0
    QString valueCacheType = QStringLiteral("f16");
    QString device = QStringLiteral("cpu"); // "cpu" or "vulkan:N", as engine::compute_device_name writes it
    int gpuLayers = -1;                     // layers on a GPU; -1: as many as fit in its memory
    bool operator==(const EngineConfig&) const = default;
};

// The KV cache types an EngineConfig names (a name the engine does not know counts as F16).
engine::KvCacheTypes kvCacheTypes(const EngineConfig& config);
// The device an EngineConfig names (a name the engine does not know counts as the CPU).
engine::ComputeDevice computeDevice(const EngineConfig& config);

} // namespace hearth::app

Q_DECLARE_METATYPE(hearth::app::EngineConfig)
