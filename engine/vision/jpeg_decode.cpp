// JPEG through libjpeg(-turbo). Its errors end in a longjmp back to decode_jpeg's frame, which
// holds only plain data between setjmp and the jump; the exception is thrown after.
#include "engine/error.h"
#include "engine/vision/image_decode.h"
#include <csetjmp>
#include <cstdio>
#include <jpeglib.h>

namespace hearth::vision {
namespace {

struct JpegErrors {
    jpeg_error_mgr manager;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX] = {};
};

void on_jpeg_error(j_common_ptr jpeg) {
    auto* errors = reinterpret_cast<JpegErrors*>(jpeg->err);
    (*jpeg->err->format_message)(jpeg, errors->message);
    std::longjmp(errors->jump, 1);
}

void on_jpeg_message(j_common_ptr, int) {}

enum class JpegOutcome { Ok, Damaged, TooLarge };

JpegOutcome read_jpeg(std::span<const uint8_t> bytes, JpegErrors& errors, RgbImage& image,
                      unsigned long& width, unsigned long& height) {
    jpeg_decompress_struct jpeg{};
    jpeg.err = jpeg_std_error(&errors.manager);
    errors.manager.error_exit = on_jpeg_error;
    errors.manager.emit_message = on_jpeg_message;
    if (setjmp(errors.jump)) {
        jpeg_destroy_decompress(&jpeg);
        return JpegOutcome::Damaged;
    }
    jpeg_create_decompress(&jpeg);
    jpeg_mem_src(&jpeg, bytes.data(), static_cast<unsigned long>(bytes.size()));
    jpeg_read_header(&jpeg, TRUE);
    width = jpeg.image_width;
    height = jpeg.image_height;
    if (width == 0 || height == 0 || width > static_cast<unsigned long>(kMaxImageSide) ||
        height > static_cast<unsigned long>(kMaxImageSide)) {
        jpeg_destroy_decompress(&jpeg);
        return JpegOutcome::TooLarge;
    }
    jpeg.out_color_space = JCS_RGB; // grey and YCbCr widened; CMYK is an error from libjpeg
    jpeg_start_decompress(&jpeg);
    if (jpeg.output_components != 3) {
        std::snprintf(errors.message, sizeof errors.message, "cannot be converted to RGB");
        jpeg_destroy_decompress(&jpeg);
        return JpegOutcome::Damaged;
    }
    image.width = static_cast<int32_t>(jpeg.output_width);
    image.height = static_cast<int32_t>(jpeg.output_height);
    image.pixels.resize(static_cast<size_t>(image.width) * image.height * 3);
    while (jpeg.output_scanline < jpeg.output_height) {
        JSAMPROW row = image.pixels.data() + static_cast<size_t>(jpeg.output_scanline) * image.width * 3;
        jpeg_read_scanlines(&jpeg, &row, 1);
    }
    jpeg_finish_decompress(&jpeg);
    jpeg_destroy_decompress(&jpeg);
    return JpegOutcome::Ok;
}

} // namespace

RgbImage decode_jpeg(std::span<const uint8_t> bytes, const std::string& name) {
    JpegErrors errors;
    RgbImage image;
    unsigned long width = 0, height = 0;
    switch (read_jpeg(bytes, errors, image, width, height)) {
    case JpegOutcome::Ok:
        return image;
    case JpegOutcome::TooLarge:
        check_image_size(static_cast<int64_t>(width), static_cast<int64_t>(height), name);
        throw Error(name + ": unusable JPEG size");
    case JpegOutcome::Damaged:
        break;
    }
    throw Error(name + ": damaged JPEG: " + errors.message);
}

} // namespace hearth::vision
