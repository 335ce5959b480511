#pragma once
// The settings' engine section is the engine runtime's own config: threads, context, KV cache
// types, the compute device and its layers, the conversations' memory budget and saved-state
// format, in the engine's types. AppSettings::engineConfig() fills it; it reaches the engine by
// one path, InferenceWorker::configure. Strings exist only at the QML and QSettings boundary.
#include "engine/runtime/runtime_config.h"
#include <QMetaType>
#include <QString>

namespace hearth::app {

using EngineConfig = engine::RuntimeConfig;

// The engine's name of a KV cache type ("f16", "q8_0", "q4_0"), as QML and QSettings show it.
inline QString cacheTypeName(kernels::TensorType type) {
    const std::string_view name = engine::kv_cache_type_name(type);
    return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}

} // namespace hearth::app

Q_DECLARE_METATYPE(hearth::app::EngineConfig)
