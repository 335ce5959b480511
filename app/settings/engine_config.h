#pragma once
// The settings' engine section is the engine runtime's own config: threads, context, KV cache
// types, the compute device and its layers, the conversations' memory budget and saved-state
// format, in the engine's types. AppSettings::engineConfig() fills it; it reaches the engine by
// one path, InferenceWorker::configure. Strings exist only at the QML and QSettings boundary.
#include "engine/runtime/runtime_config.h"
#include <QMetaType>

namespace hearth::app {

using EngineConfig = engine::RuntimeConfig;

} // namespace hearth::app

Q_DECLARE_METATYPE(hearth::app::EngineConfig)
