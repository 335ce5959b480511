#include "engine/vision/mmproj_file.h"
#include "engine/error.h"
#include "engine/gguf/image_projector.h"
#include "kernels/fp16.h"
#include <cmath>
#include <cstring>

namespace hearth::vision {
namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

int32_t required_positive(const gguf::GgufFile& file, const std::string& key, int64_t most) {
    const std::optional<int64_t> value = file.get_int(key);
    if (!value) file.fail("missing " + key);
    if (*value <= 0 || *value > most) file.fail(key + " = " + std::to_string(*value) + " is out of range");
    return static_cast<int32_t>(*value);
}

std::array<float, 3> three_floats(const gguf::GgufFile& file, const std::string& key) {
    const gguf::Array* array = file.get_array(key);
    if (array == nullptr) file.fail("missing " + key);
    if (array->items.size() != 3) file.fail(key + " must hold 3 values (R, G, B)");
    std::array<float, 3> values{};
    for (size_t i = 0; i < 3; ++i) {
        const auto& data = array->items[i].data;
        if (const double* d = std::get_if<double>(&data))
            values[i] = static_cast<float>(*d);
        else
            file.fail(key + " must hold floats");
    }
    return values;
}

} // namespace

MmprojFile MmprojFile::open(const std::string& path) {
    MmprojFile m;
    m.file_ = gguf::GgufFile::open(path);
    const gguf::GgufFile& f = *m.file_;
    if (!gguf::is_image_projector(f))
        f.fail("not a multimodal projector (general.architecture is '" +
               f.get_string("general.architecture").value_or("") + "', expected '" +
               std::string(gguf::kImageProjectorArchitecture) + "')");
    if (!f.get_bool("clip.has_vision_encoder").value_or(false)) f.fail("the projector has no vision encoder");
    VisionHyperParams& hp = m.hparams_;
    hp.projector_type = f.get_string("clip.projector_type").value_or("");
    if (hp.projector_type.empty()) f.fail("missing clip.projector_type");
    hp.image_size = required_positive(f, "clip.vision.image_size", 8192);
    hp.patch_size = required_positive(f, "clip.vision.patch_size", 1024);
    hp.n_embd = required_positive(f, "clip.vision.embedding_length", 1 << 16);
    hp.n_ff = required_positive(f, "clip.vision.feed_forward_length", 1 << 18);
    hp.n_layer = required_positive(f, "clip.vision.block_count", 1024);
    hp.n_head = required_positive(f, "clip.vision.attention.head_count", 1024);
    hp.projection_dim = required_positive(f, "clip.vision.projection_dim", 1 << 18);
    const double eps = f.get_float("clip.vision.attention.layer_norm_epsilon").value_or(1e-6);
    if (!(eps > 0 && eps < 1)) f.fail("clip.vision.attention.layer_norm_epsilon is out of range");
    hp.eps = static_cast<float>(eps);
    hp.image_mean = three_floats(f, "clip.vision.image_mean");
    hp.image_std = three_floats(f, "clip.vision.image_std");
    for (float s : hp.image_std)
        if (!(s > 0) || !std::isfinite(s)) f.fail("clip.vision.image_std must be positive");
    hp.use_gelu = f.get_bool("clip.use_gelu").value_or(false);
    if (f.find("clip.vision.projector.scale_factor"))
        hp.scale_factor = required_positive(f, "clip.vision.projector.scale_factor", 1024);
    if (hp.image_size % hp.patch_size != 0)
        f.fail("clip.vision.image_size " + std::to_string(hp.image_size) +
               " is not a multiple of the patch size " + std::to_string(hp.patch_size));
    if (hp.n_embd % hp.n_head != 0)
        f.fail("clip.vision.embedding_length " + std::to_string(hp.n_embd) + " is not a multiple of the " +
               std::to_string(hp.n_head) + " heads");
    return m;
}

const gguf::TensorInfo& MmprojFile::tensor(const std::string& name,
                                           std::initializer_list<int64_t> shape) const {
    const gguf::TensorInfo* t = file_->find_tensor(name);
    if (t == nullptr) file_->fail("missing tensor " + name);
    const std::vector<int64_t> expected(shape);
    if (t->shape != expected)
        file_->fail("tensor " + name + " has shape " + shape_text(t->shape) + ", expected " +
                    shape_text(expected));
    return *t;
}

kernels::WeightMatrix MmprojFile::matrix(const std::string& name, int64_t rows, int64_t cols) const {
    const gguf::TensorInfo& t = tensor(name, {cols, rows});
    using kernels::TensorType;
    if (t.type != TensorType::F32 && t.type != TensorType::F16 && t.type != TensorType::BF16)
        file_->fail("tensor " + name + " is of type " + std::string(kernels::type_traits(t.type).name) +
                    "; the vision tower takes F32, F16 or BF16");
    return kernels::WeightMatrix{t.type, rows, cols, t.data};
}

std::vector<float> MmprojFile::floats(const std::string& name, std::initializer_list<int64_t> shape) const {
    const gguf::TensorInfo& t = tensor(name, shape);
    std::vector<float> values(static_cast<size_t>(t.elements()));
    if (t.type == kernels::TensorType::F32) {
        std::memcpy(values.data(), t.data, values.size() * sizeof(float));
    } else if (t.type == kernels::TensorType::F16) {
        for (size_t i = 0; i < values.size(); ++i) {
            kernels::fp16_bits h;
            std::memcpy(&h, t.data + 2 * i, 2);
            values[i] = kernels::fp16_to_fp32(h);
        }
    } else {
        file_->fail("tensor " + name + " is of type " + std::string(kernels::type_traits(t.type).name) +
                    ", expected F32 or F16");
    }
    return values;
}

} // namespace hearth::vision
