#include "app/settings/engine_config.h"

namespace hearth::app {
namespace {
kernels::TensorType cacheType(const QString& name) {
    return engine::kv_cache_type_from_name(name.toStdString()).value_or(kernels::TensorType::F16);
}
} // namespace

engine::KvCacheTypes kvCacheTypes(const EngineConfig& config) {
    engine::KvCacheTypes types;
    types.keys = cacheType(config.keyCacheType);
    types.values = cacheType(config.valueCacheType);
    return types;
}

engine::ComputeDevice computeDevice(const EngineConfig& config) {
    return engine::compute_device_from_name(config.device.toStdString()).value_or(engine::ComputeDevice{});
}

} // namespace hearth::app
