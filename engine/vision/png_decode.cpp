// PNG through libpng's classic interface. libpng reports errors by longjmp: everything the
// jump skips is plain data, and the C++ exception is thrown only after setjmp has returned.
#include "engine/error.h"
#include "engine/vision/image_decode.h"
#include <csetjmp>
#include <cstring>
#include <png.h>

namespace hearth::vision {
namespace {

struct PngReader {
    std::span<const uint8_t> bytes;
    size_t offset = 0;
    char message[256] = {};
};

void on_png_error(png_structp png, png_const_charp message) {
    auto* reader = static_cast<PngReader*>(png_get_error_ptr(png));
    std::snprintf(reader->message, sizeof reader->message, "%s", message ? message : "unknown error");
    png_longjmp(png, 1);
}

void on_png_warning(png_structp, png_const_charp) {}

void read_bytes(png_structp png, png_bytep out, png_size_t count) {
    auto* reader = static_cast<PngReader*>(png_get_io_ptr(png));
    if (count > reader->bytes.size() - reader->offset) png_error(png, "the file ends early (truncated)");
    std::memcpy(out, reader->bytes.data() + reader->offset, count);
    reader->offset += count;
}

// Reads into `image`; returns false (with reader.message set) on a libpng error. The caller
// has checked nothing yet: the size is checked here, before the pixels are allocated.
bool read_png(PngReader& reader, RgbImage& image, std::string& size_problem, const std::string& name) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader, on_png_error, on_png_warning);
    if (png == nullptr) {
        std::snprintf(reader.message, sizeof reader.message, "libpng could not start");
        return false;
    }
    png_infop info = png_create_info_struct(png);
    if (info == nullptr) {
        png_destroy_read_struct(&png, nullptr, nullptr);
        std::snprintf(reader.message, sizeof reader.message, "libpng could not start");
        return false;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        return false;
    }
    png_set_read_fn(png, &reader, read_bytes);
    // Sizes are judged by check_image_size below (libpng's own default limit would refuse with
    // a less clear message); ancillary chunks (text, ICC) are bounded.
    png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    png_set_chunk_malloc_max(png, 8u << 20);
    png_read_info(png, info);
    const png_uint_32 width = png_get_image_width(png, info);
    const png_uint_32 height = png_get_image_height(png, info);
    try {
        check_image_size(width, height, name);
    } catch (const Error& e) {
        size_problem = e.what();
        png_destroy_read_struct(&png, &info, nullptr);
        return false;
    }
    const int color_type = png_get_color_type(png, info);
    png_set_expand(png); // palette and low-bit grey to 8 bits, tRNS to alpha
    png_set_strip_16(png);
    if (color_type & PNG_COLOR_MASK_ALPHA || png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_strip_alpha(png);
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(png);
    const int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != static_cast<size_t>(width) * 3)
        png_error(png, "unexpected row layout after conversion to RGB");
    image.width = static_cast<int32_t>(width);
    image.height = static_cast<int32_t>(height);
    image.pixels.resize(static_cast<size_t>(width) * height * 3);
    // Row by row (each pass of an interlaced file), so that nothing but `image` is allocated
    // between setjmp and a jump.
    for (int pass = 0; pass < passes; ++pass)
        for (png_uint_32 y = 0; y < height; ++y)
            png_read_row(png, image.pixels.data() + static_cast<size_t>(y) * width * 3, nullptr);
    png_read_end(png, nullptr);
    png_destroy_read_struct(&png, &info, nullptr);
    return true;
}

} // namespace

RgbImage decode_png(std::span<const uint8_t> bytes, const std::string& name) {
    PngReader reader{bytes};
    RgbImage image;
    std::string size_problem;
    if (!read_png(reader, image, size_problem, name)) {
        if (!size_problem.empty()) throw Error(size_problem);
        throw Error(name + ": damaged PNG: " + reader.message);
    }
    return image;
}

} // namespace hearth::vision
