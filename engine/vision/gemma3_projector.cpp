#include "engine/vision/gemma3_projector.h"
#include "engine/error.h"
#include "engine/forward/transformer_ops.h"
#include "engine/vision/letterbox.h"
#include "engine/vision/pixel_normalize.h"
#include "kernels/tensor_type.h"
#include <cstring>
#include <stdexcept>

namespace hearth::vision {

Gemma3Projector::Gemma3Projector(MmprojFile file, int32_t n_threads, const DeviceTowerOptions& device)
    : file_(std::move(file)), path_(file_.path()) {
    const VisionHyperParams& hp = file_.hparams();
    if (hp.scale_factor > 0) pool_kernel_ = hp.scale_factor;
    if (hp.patches_per_side() % pool_kernel_ != 0)
        file_.gguf().fail("the patch grid's side " + std::to_string(hp.patches_per_side()) +
                          " is not a multiple of the pooling kernel " + std::to_string(pool_kernel_));
    tokens_per_side_ = hp.patches_per_side() / pool_kernel_;
    soft_emb_norm_ = file_.floats("mm.soft_emb_norm.weight", {hp.n_embd});

    // x @ W with W stored (n_embd rows, projection_dim columns): as a matmul weight it is W^T,
    // projection_dim rows of n_embd, element by element in the file's own type.
    const kernels::WeightMatrix stored =
        file_.matrix("mm.input_projection.weight", hp.n_embd, hp.projection_dim);
    const size_t element = kernels::type_traits(stored.type).block_bytes;
    const auto rows = static_cast<size_t>(hp.n_embd), cols = static_cast<size_t>(hp.projection_dim);
    projection_bytes_.resize(rows * cols * element);
    const auto* from = static_cast<const std::byte*>(stored.data);
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; ++c)
            std::memcpy(projection_bytes_.data() + (c * rows + r) * element, from + (r * cols + c) * element,
                        element);
    projection_ = kernels::WeightMatrix{stored.type, hp.projection_dim, hp.n_embd, projection_bytes_.data()};

    pool_ = std::make_unique<kernels::ThreadPool>(n_threads);
    pixels_.resize(3 * static_cast<size_t>(hp.image_size) * hp.image_size);
    patches_.resize(static_cast<size_t>(hp.n_patches()) * hp.n_embd);
    pooled_.resize(static_cast<size_t>(n_image_tokens()) * hp.n_embd);
    matmul_scratch_.resize(
        kernels::matmul_scratch_bytes(projection_.type, projection_.cols, n_image_tokens()));

    if (device.device.kind != engine::ComputeDevice::Kind::Cpu) {
        try {
            device_tower_ = make_device_tower(file_, device);
        } catch (const Error& e) {
            device_problem_ = e.what();
        }
    }
    if (!device_tower_) tower_.emplace(file_);
}

RgbImage Gemma3Projector::canvas(const RgbImage& image) const {
    return letterbox(image, file_.hparams().image_size);
}

void Gemma3Projector::encode(const RgbImage& canvas, float* out) {
    const VisionHyperParams& hp = file_.hparams();
    if (canvas.width != hp.image_size || canvas.height != hp.image_size)
        throw std::invalid_argument("Gemma3Projector::encode: the canvas is not image_size square");
    normalize_planar(canvas, hp.image_mean, hp.image_std, pixels_.data());
    if (device_tower_) {
        try {
            device_tower_->forward(pixels_.data(), patches_.data(), *pool_);
        } catch (const engine::DeviceError& e) {
            // The device failed: this image and the next ones on the CPU.
            device_problem_ = e.what();
            device_tower_.reset();
        }
    }
    if (!device_tower_) {
        if (!tower_) tower_.emplace(file_);
        tower_->forward(pixels_.data(), patches_.data(), *pool_);
    }

    // Average pooling of k x k patches into tokens, row-major.
    const int32_t d = hp.n_embd, side = hp.patches_per_side(), k = pool_kernel_;
    const float inverse_area = 1.0f / static_cast<float>(k * k);
    for (int32_t ty = 0; ty < tokens_per_side_; ++ty)
        for (int32_t tx = 0; tx < tokens_per_side_; ++tx) {
            float* token = pooled_.data() + (static_cast<size_t>(ty) * tokens_per_side_ + tx) * d;
            std::fill(token, token + d, 0.0f);
            for (int32_t dy = 0; dy < k; ++dy)
                for (int32_t dx = 0; dx < k; ++dx)
                    engine::add_rows(
                        token, patches_.data() + (static_cast<size_t>(ty * k + dy) * side + tx * k + dx) * d,
                        static_cast<size_t>(d));
            engine::scale_values(token, static_cast<size_t>(d), inverse_area);
        }
    engine::rms_norm_rows(pooled_.data(), soft_emb_norm_.data(), n_image_tokens(), d, hp.eps, pooled_.data());
    kernels::matmul(projection_, pooled_.data(), n_image_tokens(), out, *pool_, matmul_scratch_);
}

} // namespace hearth::vision
