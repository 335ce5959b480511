#include "tests/bench/image_encode_bench.h"

#include "engine/vision/rgb_image.h"
#include "engine/vision/vision_projector.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace hearth::bench {
namespace {

// A picture with detail everywhere (gradients and a checkerboard), at the canvas's own size so
// that preprocessing only copies it.
vision::RgbImage test_picture(int32_t size) {
    vision::RgbImage image{size, size, std::vector<uint8_t>(static_cast<size_t>(size) * size * 3)};
    for (int32_t y = 0; y < size; ++y)
        for (int32_t x = 0; x < size; ++x) {
            uint8_t* p = image.pixels.data() + (static_cast<size_t>(y) * size + x) * 3;
            p[0] = static_cast<uint8_t>(x * 255 / std::max(1, size - 1));
            p[1] = static_cast<uint8_t>(y * 255 / std::max(1, size - 1));
            p[2] = ((x / 16 + y / 16) % 2) != 0 ? 220 : 30;
        }
    return image;
}

} // namespace

void bench_image_encode(const std::string& mmproj_path, int threads, const engine::ComputeDevice& device,
                        int repetitions) {
    auto projector = vision::load_vision_projector(
        mmproj_path, {.n_threads = threads, .device = device, .text_n_embd = 0, .text_model_path = {}});
    // The family's canvas from a picture of any size: a square one of 896 px, Gemma 3's.
    const vision::RgbImage canvas = projector->canvas(test_picture(896));
    std::vector<float> out(static_cast<size_t>(projector->n_image_tokens()) * projector->n_embd());
    projector->encode(canvas, out.data()); // warm-up: caches, pipelines, the pool
    std::vector<double> seconds;
    for (int r = 0; r < repetitions; ++r) {
        const auto start = std::chrono::steady_clock::now();
        projector->encode(canvas, out.data());
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    double mean = 0;
    for (double s : seconds)
        mean += s / static_cast<double>(seconds.size());
    const std::string where =
        projector->tower_device() == "cpu" ? std::to_string(threads) + " threads" : projector->tower_device();
    std::printf("image encode: %s (%s), %d image positions of %d, tower on %s: mean %.3f s, best %.3f s "
                "over %d runs\n",
                mmproj_path.c_str(), projector->family().c_str(), projector->n_image_tokens(),
                projector->n_embd(), where.c_str(), mean, *std::min_element(seconds.begin(), seconds.end()),
                repetitions);
    if (!projector->tower_device_problem().empty())
        std::printf("image encode: the tower stayed on the CPU: %s\n",
                    projector->tower_device_problem().c_str());
    std::fflush(stdout);
}

} // namespace hearth::bench
