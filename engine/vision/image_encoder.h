#pragma once
// A projector with a cache of what it computed: the image positions' vectors of each picture, by
// the picture's id (the SHA-256 of its file), so that an image shown again, in this conversation
// or another, is not decoded and encoded again. The cache holds at most a byte budget of vectors,
// the least recently used dropped first. Not thread-safe: the engine's thread only.
#include "engine/chat/chat_image.h"
#include "engine/vision/vision_projector.h"
#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <vector>

namespace hearth::vision {

class ImageEncoder {
public:
    explicit ImageEncoder(std::unique_ptr<VisionProjector> projector, size_t cache_bytes = size_t{128} << 20);

    VisionProjector& projector() { return *projector_; }
    const VisionProjector& projector() const { return *projector_; }

    struct Encoded {
        std::shared_ptr<const std::vector<float>> vectors; // (n_image_tokens, n_embd)
        bool from_cache = false;
        double seconds = 0; // decoding, preprocessing and encoding; 0 from the cache
    };
    // The image's vectors. Throws hearth::Error("<image name>: <problem>") when the image cannot
    // be decoded (damaged, too large, not an image); nothing is cached then.
    Encoded encode(const chat::ChatImage& image);

    size_t cached_images() const { return cache_.size(); }

private:
    struct CachedVectors {
        std::string id;
        std::shared_ptr<const std::vector<float>> vectors;
    };
    std::unique_ptr<VisionProjector> projector_;
    size_t cache_bytes_;
    std::list<CachedVectors> cache_; // most recently used first
};

} // namespace hearth::vision
