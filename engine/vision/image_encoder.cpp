#include "engine/vision/image_encoder.h"
#include "engine/error.h"
#include "engine/vision/image_decode.h"
#include <chrono>

namespace hearth::vision {

ImageEncoder::ImageEncoder(std::unique_ptr<VisionProjector> projector, size_t cache_bytes)
    : projector_(std::move(projector)), cache_bytes_(cache_bytes) {}

ImageEncoder::Encoded ImageEncoder::encode(const chat::ChatImage& image) {
    for (auto it = cache_.begin(); it != cache_.end(); ++it) {
        if (it->id != image.id) continue;
        cache_.splice(cache_.begin(), cache_, it);
        return {cache_.front().vectors, true, 0};
    }
    if (!image.bytes || image.bytes->empty()) throw Error(image.name + ": the image has no data");
    const auto start = std::chrono::steady_clock::now();
    const RgbImage decoded = decode_image(*image.bytes, image.name);
    auto vectors = std::make_shared<std::vector<float>>(static_cast<size_t>(projector_->n_image_tokens()) *
                                                        projector_->n_embd());
    projector_->encode(projector_->canvas(decoded), vectors->data());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    cache_.push_front({image.id, vectors});
    const size_t per_image = vectors->size() * sizeof(float);
    while (cache_.size() > 1 && cache_.size() * per_image > cache_bytes_)
        cache_.pop_back();
    return {std::move(vectors), false, seconds};
}

} // namespace hearth::vision
