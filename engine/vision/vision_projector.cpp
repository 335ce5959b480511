#include "engine/vision/vision_projector.h"
#include "engine/error.h"
#include "engine/forward/thread_count.h"
#include "engine/vision/gemma3_projector.h"
#include "engine/vision/mmproj_file.h"

namespace hearth::vision {

std::unique_ptr<VisionProjector> load_vision_projector(const std::string& path,
                                                       const ProjectorOptions& options) {
    MmprojFile file = MmprojFile::open(path);
    const VisionHyperParams& hp = file.hparams();
    if (options.text_n_embd > 0 && hp.projection_dim != options.text_n_embd)
        file.gguf().fail("the projector's output width (clip.vision.projection_dim) is " +
                         std::to_string(hp.projection_dim) + ", but the text model " +
                         (options.text_model_path.empty() ? std::string() : options.text_model_path + " ") +
                         "has n_embd " + std::to_string(options.text_n_embd));
    const int32_t threads = engine::resolve_threads(options.n_threads);
    if (hp.projector_type == "gemma3")
        return std::make_unique<Gemma3Projector>(
            std::move(file), threads, DeviceTowerOptions{options.device, options.device_validation});
    file.gguf().fail("projector type '" + hp.projector_type + "' is not supported (supported: gemma3)");
}

} // namespace hearth::vision
