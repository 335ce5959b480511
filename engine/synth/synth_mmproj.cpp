#include "engine/synth/synth_mmproj.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/gguf/image_projector.h"
#include "kernels/fp16.h"
#include <cmath>
#include <cstring>
#include <filesystem>

namespace hearth::gguf {
namespace {

using kernels::TensorType;

// splitmix64: a value per (tensor, element), so the file does not depend on how rows are filled.
uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Uniform in [center - half_width, center + half_width].
struct RandomTensor {
    uint64_t key;
    float center, half_width;
    float at(uint64_t index) const {
        const double unit = static_cast<double>(mix(key ^ (index * 0x632be59bd9b4e019ull)) >> 11) * 0x1.0p-53;
        return center + half_width * static_cast<float>(2.0 * unit - 1.0);
    }
};

class Builder {
public:
    Builder(const MmprojSynthOptions& options) : options_(options) {}

    void add(const std::string& name, std::vector<int64_t> shape, bool matrix, float center = 0.0f,
             float std = -1.0f) {
        if (std < 0) std = options_.weight_std;
        const RandomTensor values{mix(options_.seed * 0x100000001b3ull + index_++), center,
                                  std * std::sqrt(3.0f)};
        const TensorType type = matrix && options_.f16 ? TensorType::F16 : TensorType::F32;
        const int64_t row = shape[0];
        writer_.add_tensor(name, std::move(shape), type,
                           [values, type, row](int64_t first, int64_t rows, std::byte* dst) {
                               const uint64_t begin = static_cast<uint64_t>(first * row),
                                              count = static_cast<uint64_t>(rows * row);
                               for (uint64_t i = 0; i < count; ++i) {
                                   const float v = values.at(begin + i);
                                   if (type == TensorType::F16) {
                                       const kernels::fp16_bits h = kernels::fp32_to_fp16(v);
                                       std::memcpy(dst + 2 * i, &h, 2);
                                   } else {
                                       std::memcpy(dst + 4 * i, &v, 4);
                                   }
                               }
                           });
    }
    GgufWriter& writer() { return writer_; }

private:
    const MmprojSynthOptions& options_;
    GgufWriter writer_;
    uint64_t index_ = 0;
};

Value text(const std::string& s) {
    return Value{ValueType::String, s};
}
Value u32(int64_t v) {
    return Value{ValueType::UInt32, static_cast<uint64_t>(v)};
}
Value f32(double v) {
    return Value{ValueType::Float32, v};
}
Value flag(bool v) {
    return Value{ValueType::Bool, v};
}
Value three(float a, float b, float c) {
    Array array{ValueType::Float32, {f32(a), f32(b), f32(c)}};
    return Value{ValueType::Array, std::move(array)};
}

} // namespace

const std::vector<MmprojShape>& known_mmproj_shapes() {
    static const std::vector<MmprojShape> shapes = {
        {"gemma3", 896, 14, 1152, 4304, 27, 16, 2560},
    };
    return shapes;
}

std::optional<MmprojShape> find_mmproj_shape(const std::string& name) {
    for (const MmprojShape& s : known_mmproj_shapes())
        if (s.name == name) return s;
    return std::nullopt;
}

size_t synthesize_mmproj(const MmprojSynthOptions& options, const std::string& path) {
    const MmprojShape& s = options.shape;
    Builder b(options);
    GgufWriter& w = b.writer();
    w.set("general.architecture", text(std::string(gguf::kImageProjectorArchitecture)));
    w.set("general.type", text("mmproj"));
    w.set("general.name", text("synthetic " + s.name + " projector"));
    w.set("clip.projector_type", text("gemma3"));
    w.set("clip.has_vision_encoder", flag(true));
    w.set("clip.use_gelu", flag(true));
    w.set("clip.vision.image_size", u32(s.image_size));
    w.set("clip.vision.patch_size", u32(s.patch_size));
    w.set("clip.vision.embedding_length", u32(s.n_embd));
    w.set("clip.vision.feed_forward_length", u32(s.n_ff));
    w.set("clip.vision.block_count", u32(s.n_layer));
    w.set("clip.vision.attention.head_count", u32(s.n_head));
    w.set("clip.vision.attention.layer_norm_epsilon", f32(1e-6));
    w.set("clip.vision.projection_dim", u32(s.projection_dim));
    w.set("clip.vision.image_mean", three(0.5f, 0.5f, 0.5f));
    w.set("clip.vision.image_std", three(0.5f, 0.5f, 0.5f));

    const int64_t d = s.n_embd, f = s.n_ff, p = s.patch_size;
    const int64_t n_patches =
        static_cast<int64_t>(s.image_size / s.patch_size) * (s.image_size / s.patch_size);
    b.add("v.patch_embd.weight", {p, p, 3, d}, false);
    b.add("v.patch_embd.bias", {d}, false);
    b.add("v.position_embd.weight", {d, n_patches}, false);
    for (int32_t i = 0; i < s.n_layer; ++i) {
        const std::string blk = "v.blk." + std::to_string(i) + ".";
        for (const char* norm : {"ln1", "ln2"}) {
            b.add(blk + norm + ".weight", {d}, false, 1.0f);
            b.add(blk + norm + ".bias", {d}, false);
        }
        for (const char* proj : {"attn_q", "attn_k", "attn_v", "attn_out"}) {
            b.add(blk + proj + ".weight", {d, d}, true);
            b.add(blk + proj + ".bias", {d}, false);
        }
        b.add(blk + "ffn_up.weight", {d, f}, true);
        b.add(blk + "ffn_up.bias", {f}, false);
        b.add(blk + "ffn_down.weight", {f, d}, true);
        b.add(blk + "ffn_down.bias", {d}, false);
    }
    b.add("v.post_ln.weight", {d}, false, 1.0f);
    b.add("v.post_ln.bias", {d}, false);
    b.add("mm.soft_emb_norm.weight", {d}, false, 1.0f);
    b.add("mm.input_projection.weight", {s.projection_dim, d}, true);
    w.write(path);
    return static_cast<size_t>(std::filesystem::file_size(path));
}

} // namespace hearth::gguf
