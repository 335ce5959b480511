#pragma once
// A multimodal projector: an image in, the text model's input vectors for its image positions
// out. One implementation per projector family (clip.projector_type); each owns its weights, its
// scratch (allocated at load) and its kernel threads. Families: "gemma3" (gemma3_projector.h).
#include "engine/forward/compute_device.h"
#include "engine/vision/rgb_image.h"
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace hearth::vision {

class VisionProjector {
public:
    virtual ~VisionProjector() = default;
    virtual const std::string& path() const = 0;
    virtual const std::string& family() const = 0;
    // Image positions one image takes in the prompt, and the width of each one's vector.
    virtual int32_t n_image_tokens() const = 0;
    virtual int32_t n_embd() const = 0;
    // The family's preprocessing: the RGB canvas the tower sees.
    virtual RgbImage canvas(const RgbImage& image) const = 0;
    // The image positions' vectors of a canvas: out is (n_image_tokens, n_embd).
    virtual void encode(const RgbImage& canvas, float* out) = 0;
    // The texts the family's prompts put right before and after an image's positions.
    virtual std::string_view image_start_text() const = 0;
    virtual std::string_view image_end_text() const = 0;
    // Where the vision tower runs: "cpu", or the Vulkan device's name. When a device was asked
    // for and the tower runs on the CPU instead (no device, too little memory, the device failed
    // in an encode), why; else empty.
    virtual std::string tower_device() const = 0;
    virtual const std::string& tower_device_problem() const = 0;
};

struct ProjectorOptions {
    int32_t n_threads = 0; // 0: one per hardware thread
    // Where the vision tower runs (device_tower.h): a Vulkan device, else the CPU; the CPU also
    // when the device cannot take it (tower_device_problem says why).
    engine::ComputeDevice device;
    int32_t text_n_embd = 0;        // the text model's width the output must have; 0: not checked
    std::string text_model_path;    // named in the message when the widths differ
    bool device_validation = false; // the Vulkan validation layer on the device (tests)
};

// Opens an mmproj file (mmproj_file.h) and builds its family's projector. Throws
// hearth::Error("<path>: <problem>"): a damaged file, an unknown family, a missing tensor, a
// tensor of the wrong shape, or an output width that is not the text model's n_embd.
std::unique_ptr<VisionProjector> load_vision_projector(const std::string& path,
                                                       const ProjectorOptions& options);

} // namespace hearth::vision
