#pragma once
// hearth-bench --mmproj: the time an image projector's tower and projection take to encode one
// image, on the CPU or a Vulkan device, for projectors of a real shape made by hearth-cli synth
// --mmproj-shape or hearth-synth-bench --mmproj (tests/bench/gpu_bench.sh).
#include "engine/forward/compute_device.h"
#include <string>

namespace hearth::bench {

// Loads the projector, encodes a synthetic picture once to warm up, then `repetitions` times,
// and prints one line: the projector, where its tower ran, the mean and the best time. Throws
// hearth::Error naming the file when it cannot be loaded.
void bench_image_encode(const std::string& mmproj_path, int threads, const engine::ComputeDevice& device,
                        int repetitions);

} // namespace hearth::bench
