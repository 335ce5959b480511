#pragma once
// Options shared by the subcommands that run a model: threads, batch, ISA, KV cache types, and
// the device: --device cpu|vulkan|vulkan:N (the CPU by default) and -ngl / --n-gpu-layers N (the
// layers the device runs; -1, the default: all that fit in its memory).
#include "app/cli/cli_args.h"
#include "engine/forward/inference.h"
#include "engine/runtime/engine_runtime.h"
#include "engine/vision/vision_projector.h"
#include <set>
#include <string>

namespace hearth::cli {

// The value options every model-running command accepts.
std::set<std::string> model_value_options(std::set<std::string> extra);
// Reads --cache-type-k / --cache-type-v (f16, q8_0 or q4_0, any case; f16 when absent).
engine::KvCacheTypes kv_cache_types(const Args& args);
// Applies --isa and reads -t/--threads, -b/--batch, the cache types, --device and -ngl.
engine::InferenceOptions inference_options(const Args& args);
// The same as the engine runtime's config, with -c / --ctx-size (default_context when absent).
// Nothing falls back: a cache type or a device the model or the machine cannot take is an error.
engine::RuntimeConfig runtime_config(const Args& args, int default_context);
// One line on stderr saying where a forward pass runs, when not on the CPU alone.
void report_device(const char* command, const engine::Inference& inference);
// Where the projector's vision tower runs, when a GPU was asked for: its name, or why the CPU.
void report_tower_device(const char* command, const vision::VisionProjector& projector);
// One line on stderr when the Vulkan validation layer (HEARTH_VULKAN_VALIDATION=1) saw errors.
void report_validation_errors(const char* command, const engine::Inference& inference);

} // namespace hearth::cli
