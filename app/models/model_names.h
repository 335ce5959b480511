#pragma once
// The name the UI shows for a model.
#include "engine/model/model.h"
#include <QString>

namespace hearth::app {

// general.name, unless it is missing or only repeats the architecture ("llama"):
// then the file's name without ".gguf", which says more.
QString displayName(const engine::ModelInfo& info);

} // namespace hearth::app
