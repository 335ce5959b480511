#pragma once
// Reads what the model picker shows about GGUF files, without loading weights.
// Blocking file I/O: run it with QtConcurrent, never on the GUI thread.
#include "app/models/model_list_model.h"
#include "app/settings/engine_config.h"
#include <QHash>
#include <QStringList>

namespace hearth::app {

// The entry of one file; a file that cannot be read gets an entry with `error` set.
// The memory estimate is for one conversation at the config's context and KV cache types, split
// between RAM and the GPU's memory when the config chooses a GPU (gpuMemoryBytes: its
// memory, chosenGpuMemoryBytes; 0 when the CPU is chosen or the GPU is not there).
ModelEntry readModelEntry(const QString& path, const EngineConfig& config, qint64 gpuMemoryBytes = 0);
// Every .gguf under `folder` (two levels deep) and the recent files that still exist,
// recent ones first, then by name; image projectors (mmproj files, which sit beside the vision
// models they belong to) are no models and are left out.
// `chosenProjectors` (model path -> projector path): the image projectors the user chose, shown
// instead of the ones found beside the models.
QList<ModelEntry> scanModels(const QString& folder, const QStringList& recent, const EngineConfig& config,
                             const QHash<QString, QString>& chosenProjectors = {});

} // namespace hearth::app
