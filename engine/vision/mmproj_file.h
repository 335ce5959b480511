#pragma once
// An mmproj file: the GGUF layout of llama.cpp's multimodal projectors (general.architecture
// "clip"): the vision tower's hyperparameters and tensors, and clip.projector_type naming the
// family that turns the tower's output into the text model's embeddings.
#include "engine/gguf/gguf_file.h"
#include "engine/vision/vision_hparams.h"
#include "kernels/matmul.h"
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace hearth::vision {

class MmprojFile {
public:
    // Opens the file and reads its hyperparameters; throws hearth::Error("<path>: <problem>")
    // for a damaged file, another architecture, a file without a vision encoder, or missing or
    // impossible hyperparameters.
    static MmprojFile open(const std::string& path);

    const std::string& path() const { return file_->path(); }
    const VisionHyperParams& hparams() const { return hparams_; }
    const gguf::GgufFile& gguf() const { return *file_; }

    // A weight matrix of `rows` rows of `cols` (numpy shape (rows, cols), ggml ne [cols, rows]),
    // F32, F16 or BF16, read in place. Throws naming the file and tensor when it is missing, of
    // another shape or type.
    kernels::WeightMatrix matrix(const std::string& name, int64_t rows, int64_t cols) const;
    // A tensor of the given ggml shape (ne[0] first), F32 or F16, as F32 values.
    std::vector<float> floats(const std::string& name, std::initializer_list<int64_t> shape) const;
    // The tensor, checked present with that ggml shape.
    const gguf::TensorInfo& tensor(const std::string& name, std::initializer_list<int64_t> shape) const;

private:
    std::shared_ptr<const gguf::GgufFile> file_;
    VisionHyperParams hparams_;
};

} // namespace hearth::vision
