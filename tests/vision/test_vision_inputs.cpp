// Bad input to image input: damaged and oversized images, damaged or mismatched projector files,
// prompts without their image marker. Each is a hearth::Error naming the file and the problem.
#include "engine/error.h"
#include "engine/model/model.h"
#include "engine/synth/synth_mmproj.h"
#include "engine/vision/image_decode.h"
#include "engine/vision/image_prompt.h"
#include "engine/vision/sha256.h"
#include "engine/vision/vision_projector.h"
#include "tests/support/test_support.h"
#include "tests/vision/vision_reference.h"
#include <QTest>
#include <functional>

using namespace hearth;

namespace {

std::vector<uint8_t> bytes_of(const std::string& path) {
    const std::string text = test::read_file(path);
    return {text.begin(), text.end()};
}

std::string write_temp(const std::string& name, const std::vector<uint8_t>& bytes) {
    static const std::string dir = test::make_temp_dir("hearth-vision-inputs");
    const std::string path = dir + "/" + name;
    test::write_file(path, std::string(bytes.begin(), bytes.end()));
    return path;
}

// The message of the hearth::Error `fn` throws, or "" when it throws none.
std::string error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

uint32_t crc32_of(const uint8_t* data, size_t n) {
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; ++i) {
        crc ^= data[i];
        for (int k = 0; k < 8; ++k)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

void put_be32(uint8_t* at, uint32_t v) {
    at[0] = static_cast<uint8_t>(v >> 24);
    at[1] = static_cast<uint8_t>(v >> 16);
    at[2] = static_cast<uint8_t>(v >> 8);
    at[3] = static_cast<uint8_t>(v);
}

std::string grad_png() {
    return test::vision_data("images/grad-56x56.png");
}

} // namespace

class TestVisionInputs : public QObject {
    Q_OBJECT
private slots:
    void sha256_of_known_texts() {
        const auto hex = [](const std::string& s) {
            return vision::sha256_hex({reinterpret_cast<const uint8_t*>(s.data()), s.size()});
        };
        QCOMPARE(hex(""), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        QCOMPARE(hex("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        // 56 bytes: the length no longer fits in the first padded block.
        QCOMPARE(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                 std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    }

    void png_decodes_to_rgb() {
        const vision::RgbImage image = vision::decode_image_file(grad_png());
        QCOMPARE(image.width, 56);
        QCOMPARE(image.height, 56);
        QCOMPARE(image.pixels.size(), size_t{56 * 56 * 3});
    }

    // Alpha is dropped, not blended; grey is widened to RGB; 16-bit samples keep their high byte.
    void other_pixel_formats_decode_to_rgb() {
        const std::string seeds = HEARTH_IMAGE_SEEDS;
        const vision::RgbImage rgba = vision::decode_image_file(seeds + "/rgba-5x4.png");
        QCOMPARE(rgba.width, 5);
        QCOMPARE(rgba.height, 4);
        for (size_t i = 0; i < rgba.pixels.size(); i += 3)
            QVERIFY(rgba.pixels[i] == 10 && rgba.pixels[i + 1] == 200 && rgba.pixels[i + 2] == 30);
        const vision::RgbImage grey = vision::decode_image_file(seeds + "/gray16-7x3.png");
        QCOMPARE(grey.pixels.size(), size_t{7 * 3 * 3});
        QCOMPARE(grey.pixels[0], uint8_t{102}); // 40% grey
        QVERIFY(grey.pixels[0] == grey.pixels[1] && grey.pixels[1] == grey.pixels[2]);
        const vision::RgbImage jpeg = vision::decode_image_file(seeds + "/gradient-12x8.jpg");
        QCOMPARE(jpeg.width, 12);
        QCOMPARE(jpeg.height, 8);
        const vision::RgbImage grey_jpeg = vision::decode_image_file(seeds + "/gray-6x5.jpg");
        QCOMPARE(grey_jpeg.pixels.size(), size_t{6 * 5 * 3});
        // Lossless WebP keeps the pixels exactly.
        const vision::RgbImage webp = vision::decode_image_file(seeds + "/lossless-9x7.webp");
        QCOMPARE(webp.width, 9);
        QCOMPARE(webp.height, 7);
        for (size_t i = 0; i < webp.pixels.size(); i += 3)
            QVERIFY(webp.pixels[i] == 200 && webp.pixels[i + 1] == 40 && webp.pixels[i + 2] == 90);
    }

    void truncated_png_names_the_file() {
        std::vector<uint8_t> bytes = bytes_of(grad_png());
        bytes.resize(bytes.size() / 2);
        const std::string path = write_temp("truncated.png", bytes);
        const std::string message = error_of([&] { vision::decode_image_file(path); });
        QVERIFY2(message.find(path) != std::string::npos, message.c_str());
        QVERIFY2(message.find("damaged PNG") != std::string::npos, message.c_str());
    }

    void corrupt_png_data_names_the_file() {
        std::vector<uint8_t> bytes = bytes_of(grad_png());
        for (size_t i = 60; i < bytes.size() - 20; i += 7)
            bytes[i] ^= 0x5a;
        const std::string path = write_temp("corrupt.png", bytes);
        const std::string message = error_of([&] { vision::decode_image_file(path); });
        QVERIFY2(message.find(path) != std::string::npos, message.c_str());
    }

    // A small file whose header claims 100000 x 100000 pixels (a decompression bomb) is refused
    // from the header, before anything is allocated.
    void huge_dimensions_are_refused() {
        std::vector<uint8_t> bytes = bytes_of(grad_png());
        // IHDR: length (4) and type (4) after the 8-byte signature; width, height, then the CRC
        // over type and data (13 bytes).
        put_be32(bytes.data() + 16, 100000);
        put_be32(bytes.data() + 20, 100000);
        put_be32(bytes.data() + 29, crc32_of(bytes.data() + 12, 17));
        const std::string path = write_temp("huge.png", bytes);
        const std::string message = error_of([&] { vision::decode_image_file(path); });
        QVERIFY2(message.find(path) != std::string::npos, message.c_str());
        QVERIFY2(message.find("100000x100000") != std::string::npos, message.c_str());
        QVERIFY2(message.find("8192x8192") != std::string::npos, message.c_str());
    }

    void unknown_and_empty_files_are_refused() {
        const std::string text = write_temp("notes.png", {'h', 'e', 'l', 'l', 'o'});
        QVERIFY(error_of([&] { vision::decode_image_file(text); }).find("not a PNG, JPEG or WebP") !=
                std::string::npos);
        const std::string empty = write_temp("empty.png", {});
        QVERIFY(error_of([&] { vision::decode_image_file(empty); }).find("empty") != std::string::npos);
        const std::string jpeg = write_temp("cut.jpg", {0xff, 0xd8, 0xff, 0xe0, 0x00});
        const std::string message = error_of([&] { vision::decode_image_file(jpeg); });
        QVERIFY2(message.find(jpeg + ": damaged JPEG") != std::string::npos, message.c_str());
        const std::string webp =
            write_temp("cut.webp", {'R', 'I', 'F', 'F', 9, 0, 0, 0, 'W', 'E', 'B', 'P', 'V'});
        const std::string webp_message = error_of([&] { vision::decode_image_file(webp); });
        QVERIFY2(webp_message.find(webp + ": damaged WebP") != std::string::npos, webp_message.c_str());
    }

    void truncated_mmproj_names_the_file() {
        std::vector<uint8_t> bytes = bytes_of(test::vision_data("mmproj-tiny-gemma3-f32.gguf"));
        bytes.resize(bytes.size() * 2 / 3);
        const std::string path = write_temp("truncated-mmproj.gguf", bytes);
        const std::string message = error_of([&] { vision::load_vision_projector(path, {}); });
        QVERIFY2(message.find(path + ":") == 0, message.c_str());
    }

    void a_text_model_is_not_a_projector() {
        const std::string path = test::vision_text_model();
        const std::string message = error_of([&] { vision::load_vision_projector(path, {}); });
        QVERIFY2(message.find(path + ": not a multimodal projector") == 0, message.c_str());
    }

    void projection_width_must_match_the_text_model() {
        const std::string path = test::vision_data("mmproj-tiny-gemma3-f16.gguf");
        const std::string message = error_of([&] {
            vision::load_vision_projector(
                path, {.n_threads = 1, .device = {}, .text_n_embd = 96, .text_model_path = "text.gguf"});
        });
        QVERIFY2(message.find(path + ":") == 0, message.c_str());
        QVERIFY2(message.find("128") != std::string::npos && message.find("n_embd 96") != std::string::npos,
                 message.c_str());
        QVERIFY2(message.find("text.gguf") != std::string::npos, message.c_str());
    }

    // hearth-cli synth's Gemma 3 projector (one block of the 27, for size) reads back with the real
    // model's layout: 896 x 896 pixels, 4096 patches pooled to 256 positions of 2560.
    void a_synthesized_gemma3_projector_loads() {
        gguf::MmprojSynthOptions options;
        options.shape = *gguf::find_mmproj_shape("gemma3");
        options.shape.n_layer = 1;
        const std::string path = test::make_temp_dir("hearth-vision-synth") + "/mmproj-gemma3.gguf";
        gguf::synthesize_mmproj(options, path);
        auto projector = vision::load_vision_projector(
            path, {.n_threads = 1, .device = {}, .text_n_embd = 2560, .text_model_path = "gemma-3-4b.gguf"});
        QCOMPARE(projector->family(), std::string("gemma3"));
        QCOMPARE(projector->n_image_tokens(), 256);
        QCOMPARE(projector->n_embd(), 2560);
        const vision::RgbImage canvas = projector->canvas(vision::decode_image_file(grad_png()));
        QCOMPARE(canvas.width, 896);
        QCOMPARE(canvas.height, 896);
    }

    void a_prompt_takes_the_marker_once() {
        const auto model = engine::Model::load(test::vision_text_model());
        auto projector = vision::load_vision_projector(
            test::vision_data("mmproj-tiny-gemma3-f32.gguf"),
            {.n_threads = 1, .device = {}, .text_n_embd = 0, .text_model_path = {}});
        const auto layout = [&](const std::string& text) {
            return error_of([&] { vision::layout_image_prompt(model->tokenizer(), text, *projector); });
        };
        QVERIFY(layout("no image here").find("no image marker") != std::string::npos);
        QVERIFY(layout("<__media__> and <__media__>").find("more than once") != std::string::npos);
        QVERIFY(layout("<__media__>").empty());
        // An empty text piece gives no tokens: BOS and the image-start text, then the image.
        const vision::ImagePrompt bare =
            vision::layout_image_prompt(model->tokenizer(), "<__media__>", *projector);
        QCOMPARE(bare.before.size(), size_t{1 + 14});
        QCOMPARE(bare.after.size(), size_t{12});
    }
};

QTEST_GUILESS_MAIN(TestVisionInputs)
#include "test_vision_inputs.moc"
