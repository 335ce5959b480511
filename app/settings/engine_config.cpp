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

} // namespace hearth::app
