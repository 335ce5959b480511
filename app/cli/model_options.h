#pragma once
// Options shared by the subcommands that run a model: threads, batch, ISA.
#include "app/cli/cli_args.h"
#include "engine/forward/inference.h"
#include <set>
#include <string>

namespace hearth::cli {

// The value options every model-running command accepts.
std::set<std::string> model_value_options(std::set<std::string> extra);
// Applies --isa and reads -t/--threads and -b/--batch.
engine::InferenceOptions inference_options(const Args& args);

} // namespace hearth::cli
