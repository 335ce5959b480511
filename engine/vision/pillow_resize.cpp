#include "engine/vision/pillow_resize.h"
#include <algorithm>
#include <cmath>
#include <vector>

namespace hearth::vision {
namespace {

constexpr int kPrecisionBits = 32 - 8 - 2; // Pillow's 8-bit fixed point

// The weights of one axis, `in` pixels to `out`: for output pixel i, source pixels
// [first[i], first[i] + count[i]) with fixed-point weights weights[i * stride ...].
struct AxisWeights {
    std::vector<int32_t> first, count;
    std::vector<int32_t> weights;
    int32_t stride = 0;
};

double triangle(double x) {
    x = std::fabs(x);
    return x < 1.0 ? 1.0 - x : 0.0;
}

// Pillow's precompute_coeffs and normalize_coeffs_8bpc, in double precision as it does them.
AxisWeights axis_weights(int32_t in, int32_t out) {
    const double scale = static_cast<double>(in) / out;
    const double filter_scale = std::max(scale, 1.0);
    const double support = 1.0 * filter_scale; // the triangle's support is 1
    const double inverse_filter_scale = 1.0 / filter_scale;
    AxisWeights axis;
    axis.stride = static_cast<int32_t>(std::ceil(support)) * 2 + 1;
    axis.first.resize(static_cast<size_t>(out));
    axis.count.resize(static_cast<size_t>(out));
    axis.weights.assign(static_cast<size_t>(out) * axis.stride, 0);
    std::vector<double> w(static_cast<size_t>(axis.stride));
    for (int32_t i = 0; i < out; ++i) {
        const double center = (i + 0.5) * scale;
        const int32_t xmin = std::max(0, static_cast<int32_t>(center - support + 0.5));
        const int32_t xmax = std::min(in, static_cast<int32_t>(center + support + 0.5)) - xmin;
        double total = 0.0;
        for (int32_t x = 0; x < xmax; ++x) {
            w[static_cast<size_t>(x)] = triangle((x + xmin - center + 0.5) * inverse_filter_scale);
            total += w[static_cast<size_t>(x)];
        }
        for (int32_t x = 0; x < xmax; ++x) {
            const double normed =
                total != 0.0 ? w[static_cast<size_t>(x)] / total : w[static_cast<size_t>(x)];
            const double fixed = normed * (1 << kPrecisionBits);
            axis.weights[static_cast<size_t>(i) * axis.stride + x] =
                static_cast<int32_t>(normed < 0 ? -0.5 + fixed : 0.5 + fixed);
        }
        axis.first[static_cast<size_t>(i)] = xmin;
        axis.count[static_cast<size_t>(i)] = xmax;
    }
    return axis;
}

uint8_t clip8(int64_t sum) {
    const int64_t value = sum >> kPrecisionBits;
    return static_cast<uint8_t>(std::clamp<int64_t>(value, 0, 255));
}

RgbImage resize_horizontal(const RgbImage& in, int32_t width) {
    const AxisWeights axis = axis_weights(in.width, width);
    RgbImage out{width, in.height, std::vector<uint8_t>(static_cast<size_t>(width) * in.height * 3)};
    for (int32_t y = 0; y < in.height; ++y) {
        const uint8_t* src = in.pixels.data() + static_cast<size_t>(y) * in.width * 3;
        uint8_t* dst = out.pixels.data() + static_cast<size_t>(y) * width * 3;
        for (int32_t x = 0; x < width; ++x) {
            const int32_t* k = axis.weights.data() + static_cast<size_t>(x) * axis.stride;
            const int32_t first = axis.first[static_cast<size_t>(x)];
            for (int c = 0; c < 3; ++c) {
                int64_t sum = int64_t{1} << (kPrecisionBits - 1);
                for (int32_t j = 0; j < axis.count[static_cast<size_t>(x)]; ++j)
                    sum += int64_t{src[static_cast<size_t>(first + j) * 3 + c]} * k[j];
                dst[static_cast<size_t>(x) * 3 + c] = clip8(sum);
            }
        }
    }
    return out;
}

RgbImage resize_vertical(const RgbImage& in, int32_t height) {
    const AxisWeights axis = axis_weights(in.height, height);
    const size_t row_bytes = static_cast<size_t>(in.width) * 3;
    RgbImage out{in.width, height, std::vector<uint8_t>(row_bytes * height)};
    for (int32_t y = 0; y < height; ++y) {
        const int32_t* k = axis.weights.data() + static_cast<size_t>(y) * axis.stride;
        const int32_t first = axis.first[static_cast<size_t>(y)];
        uint8_t* dst = out.pixels.data() + static_cast<size_t>(y) * row_bytes;
        for (size_t i = 0; i < row_bytes; ++i) {
            int64_t sum = int64_t{1} << (kPrecisionBits - 1);
            for (int32_t j = 0; j < axis.count[static_cast<size_t>(y)]; ++j)
                sum += int64_t{in.pixels[static_cast<size_t>(first + j) * row_bytes + i]} * k[j];
            dst[i] = clip8(sum);
        }
    }
    return out;
}

} // namespace

RgbImage resize_bilinear(const RgbImage& image, int32_t width, int32_t height) {
    RgbImage out = image.width != width ? resize_horizontal(image, width) : image;
    if (out.height != height) out = resize_vertical(out, height);
    return out;
}

} // namespace hearth::vision
