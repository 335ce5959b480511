#pragma once
// `hearth-cli generate` with an image (--mmproj FILE --image FILE): the prompt laid out around
// its image (engine/vision/image_prompt.h; without the marker <__media__> the image goes before
// the text), evaluated on the CPU, and continued token by token with the sampler.
#include "app/cli/cli_args.h"
#include "engine/sampling/sampler.h"

namespace hearth::cli {

int generate_with_image(const Args& args, const engine::SamplingParams& sampling, int n_predict,
                        bool print_ids);

} // namespace hearth::cli
