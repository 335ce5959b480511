// Image input against exact math (../shared/testdata/vision): the preprocessed canvases byte
// for byte, the image embeddings of both projector files and the logits of their image prompts
// within llama.cpp's error times 1.1 (RMS) and 1.5 (max), the prompt layout and greedy tokens
// exactly, on every tier this CPU runs, and with the text model's layers on a Vulkan device.
#include "engine/forward/compute_device.h"
#include "engine/forward/device_forward.h"
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/vision/device_tower.h"
#include "engine/vision/image_decode.h"
#include "engine/vision/image_prompt.h"
#include "engine/vision/letterbox.h"
#include "engine/vision/mmproj_file.h"
#include "engine/vision/sha256.h"
#include "engine/vision/siglip_tower.h"
#include "engine/vision/vision_projector.h"
#include "kernels/isa_select.h"
#include "kernels/kernel_table.h"
#include "tests/support/reference_rule.h"
#include "tests/vision/vision_reference.h"
#include <QTest>
#include <algorithm>
#include <cmath>

using namespace hearth;
using test::tier_name;
using test::tier_of;

namespace {

constexpr int32_t kThreads = 2;

void add_projector_tier_rows() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("isa");
    for (const char* file : test::kProjectorFiles)
        test::add_tier_rows(file);
}

// The projector of a file; with on_device, its tower on the best Vulkan device, under the
// validation layer.
std::unique_ptr<vision::VisionProjector> load_projector(const std::string& file, int32_t text_n_embd = 0,
                                                        bool on_device = false) {
    vision::ProjectorOptions options;
    options.n_threads = kThreads;
    options.text_n_embd = text_n_embd;
    if (on_device) {
        options.device = {engine::ComputeDevice::Kind::Vulkan, -1};
        options.device_validation = true;
    }
    return vision::load_vision_projector(test::vision_data(file + ".gguf"), options);
}

// Why a Vulkan row cannot run here; empty when it can.
std::string no_vulkan_reason() {
    if (!engine::vulkan_built()) return "this build has no Vulkan backend (libvulkan-dev or glslc missing)";
    if (engine::gpu_devices().empty())
        return "no Vulkan device on this machine (not even lavapipe, mesa-vulkan-drivers)";
    return {};
}

std::vector<float> embed(vision::VisionProjector& projector, const std::string& image) {
    std::vector<float> out(static_cast<size_t>(projector.n_image_tokens()) * projector.n_embd());
    projector.encode(projector.canvas(vision::decode_image_file(test::vision_data("images/" + image))),
                     out.data());
    return out;
}

int32_t argmax(std::span<const float> logits) {
    return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

} // namespace

class TestVisionReference : public QObject {
    Q_OBJECT
private slots:
    void canvases_equal_the_reference_bytes_data() {
        QTest::addColumn<QString>("image");
        for (const char* image : test::kVisionImages)
            QTest::newRow(image) << QString(image);
    }
    void canvases_equal_the_reference_bytes() {
        QFETCH(QString, image);
        const test::CanvasReference expected = test::read_canvas_reference(image.toStdString());
        const vision::RgbImage source =
            vision::decode_image_file(test::vision_data("images/" + image.toStdString()));
        const vision::LetterboxPlacement placement =
            vision::letterbox_placement(source.width, source.height, 56);
        if (source.width != 56 || source.height != 56) {
            QCOMPARE(placement.width, expected.resized_width);
            QCOMPARE(placement.height, expected.resized_height);
            QCOMPARE(placement.x, expected.x);
            QCOMPARE(placement.y, expected.y);
        }
        const vision::RgbImage canvas = vision::letterbox(source, 56);
        QCOMPARE(canvas.width, 56);
        QCOMPARE(canvas.height, 56);
        const auto differing = std::mismatch(canvas.pixels.begin(), canvas.pixels.end(), expected.rgb.begin(),
                                             expected.rgb.end());
        QVERIFY2(
            differing.first == canvas.pixels.end() && differing.second == expected.rgb.end(),
            qPrintable(QString("canvas differs at byte %1").arg(differing.first - canvas.pixels.begin())));
        QCOMPARE(vision::sha256_hex(canvas.pixels), expected.sha256);
    }

    void embeddings_meet_the_bar_data() { add_projector_tier_rows(); }
    void embeddings_meet_the_bar() {
        QFETCH(QString, file);
        QFETCH(int, isa);
        if (!kernels::kernels_for(tier_of(isa))) QSKIP(kernels::isa_unavailable_reason(tier_of(isa)).c_str());
        kernels::force_isa(tier_of(isa));
        const std::string name = file.toStdString();
        const test::ProjectorReference reference = test::read_projector_reference(name);
        auto projector = load_projector(name);
        QCOMPARE(projector->n_image_tokens(), 4);
        QCOMPARE(projector->n_embd(), 128);
        test::ErrorStats error;
        for (size_t i = 0; i < reference.images.size(); ++i) {
            const std::vector<float> ours = embed(*projector, reference.images[i]);
            QCOMPARE(ours.size(), reference.embeddings[i].size());
            for (size_t v = 0; v < ours.size(); ++v)
                error.add(ours[v], reference.embeddings[i][v]);
        }
        test::verify_error_bar(name + "/" + tier_name(isa) + " embeddings", error,
                               test::read_projector_bars(name).embeddings);
    }

    // The tower on a Vulkan device (lavapipe where there is no GPU): the same bar, and the
    // validation layer sees nothing wrong.
    void embeddings_meet_the_bar_on_the_device_data() {
        QTest::addColumn<QString>("file");
        for (const char* file : test::kProjectorFiles)
            QTest::addRow("%s", file) << QString(file);
    }
    void embeddings_meet_the_bar_on_the_device() {
        QFETCH(QString, file);
        if (const std::string reason = no_vulkan_reason(); !reason.empty()) QSKIP(reason.c_str());
        const std::string name = file.toStdString();
        const test::ProjectorReference reference = test::read_projector_reference(name);
        auto projector = load_projector(name, 0, true);
        QVERIFY2(projector->tower_device_problem().empty(), projector->tower_device_problem().c_str());
        QVERIFY(projector->tower_device() != "cpu");
        test::ErrorStats error;
        for (size_t i = 0; i < reference.images.size(); ++i) {
            const std::vector<float> ours = embed(*projector, reference.images[i]);
            QCOMPARE(ours.size(), reference.embeddings[i].size());
            for (size_t v = 0; v < ours.size(); ++v)
                error.add(ours[v], reference.embeddings[i][v]);
        }
        QVERIFY2(projector->tower_device_problem().empty(), projector->tower_device_problem().c_str());
        QVERIFY(projector->tower_device() != "cpu");
        test::verify_error_bar(name + "/vulkan embeddings", error,
                               test::read_projector_bars(name).embeddings);
    }

    // The device tower alone against the CPU tower on the same pixels: the patch rows agree to
    // the rounding of F16 keys and values and of the shaders' sums, and the validation layer saw
    // no error.
    void the_device_tower_follows_the_cpu_tower_data() { embeddings_meet_the_bar_on_the_device_data(); }
    void the_device_tower_follows_the_cpu_tower() {
        QFETCH(QString, file);
        if (const std::string reason = no_vulkan_reason(); !reason.empty()) QSKIP(reason.c_str());
        const vision::MmprojFile mmproj =
            vision::MmprojFile::open(test::vision_data(file.toStdString() + ".gguf"));
        const vision::VisionHyperParams& hp = mmproj.hparams();
        auto device = vision::make_device_tower(mmproj, {{engine::ComputeDevice::Kind::Vulkan, -1}, true});
        vision::SiglipTower cpu(mmproj);
        kernels::ThreadPool pool(kThreads);
        std::vector<float> pixels(3 * static_cast<size_t>(hp.image_size) * hp.image_size);
        for (size_t i = 0; i < pixels.size(); ++i)
            pixels[i] =
                std::sin(0.37f * static_cast<float>(i)) * 1.5f; // normalized pixels span about [-1, 1]
        const size_t values = static_cast<size_t>(hp.n_patches()) * hp.n_embd;
        std::vector<float> on_device(values), on_cpu(values);
        device->forward(pixels.data(), on_device.data(), pool);
        cpu.forward(pixels.data(), on_cpu.data(), pool);
        double worst = 0, scale = 0;
        for (size_t i = 0; i < values; ++i) {
            worst = std::max(worst, std::fabs(static_cast<double>(on_device[i]) - on_cpu[i]));
            scale = std::max(scale, std::fabs(static_cast<double>(on_cpu[i])));
        }
        qInfo("%s: device tower vs CPU tower, max |difference| %.3g of max |value| %.3g (%s)",
              qPrintable(file), worst, scale, device->device().name.c_str());
        QVERIFY2(worst <= 2e-3 * scale, qPrintable(QString("max difference %1 of %2").arg(worst).arg(scale)));
        QVERIFY2(device->validation_errors() == 0, device->last_validation_message().c_str());
        QVERIFY(device->last_gpu_ns() > 0);
    }

    // Each image x prompt: the layout equals the reference's chunks; the logits of every step,
    // teacher-forced along the greedy tokens one token at a time (the decode path), within the
    // bar over all steps of all runs; and the greedy choice of every step is the reference's.
    void image_prompts_meet_the_bar_data() { add_projector_tier_rows(); }
    void image_prompts_meet_the_bar() {
        QFETCH(QString, file);
        QFETCH(int, isa);
        if (!kernels::kernels_for(tier_of(isa))) QSKIP(kernels::isa_unavailable_reason(tier_of(isa)).c_str());
        kernels::force_isa(tier_of(isa));
        check_image_prompts(file.toStdString(), engine::InferenceOptions{kThreads}, tier_name(isa));
    }

    // The same with the vision tower and the text model's layers on a Vulkan device (lavapipe
    // where there is no GPU), all of them and the first half: the image's positions run there as
    // tokens do, attending both ways among themselves; the validation layer sees nothing wrong.
    void image_prompts_meet_the_bar_on_the_device_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("layers"); // n_gpu_layers: -1 every layer, -2 the first half
        for (const char* file : test::kProjectorFiles) {
            QTest::addRow("%s/whole model", file) << QString(file) << -1;
            QTest::addRow("%s/half the layers", file) << QString(file) << -2;
        }
    }
    void image_prompts_meet_the_bar_on_the_device() {
        QFETCH(QString, file);
        QFETCH(int, layers);
        if (const std::string reason = no_vulkan_reason(); !reason.empty()) QSKIP(reason.c_str());
        const int32_t n_layer = engine::Model::read_info(test::vision_text_model()).n_layer;
        engine::InferenceOptions options{kThreads};
        options.device = {engine::ComputeDevice::Kind::Vulkan, -1};
        options.n_gpu_layers = layers == -2 ? n_layer / 2 : layers;
        options.device_validation = true;
        check_image_prompts(file.toStdString(), options, layers == -2 ? "vulkan, half the layers" : "vulkan");
    }

private:
    // Each reference prompt of the projector file: the layout exactly, then the logits of the
    // prompt and teacher-forced along the greedy tokens one token at a time (the decode path),
    // within the bar over all steps of all runs; the greedy choice of every step the reference's.
    static void check_image_prompts(const std::string& name, const engine::InferenceOptions& options,
                                    const std::string& label) {
        const test::ProjectorReference reference = test::read_projector_reference(name);
        const auto model = engine::Model::load(test::vision_text_model());
        const bool on_device = options.device.kind == engine::ComputeDevice::Kind::Vulkan;
        auto projector = load_projector(name, model->hparams().n_embd, on_device);
        if (on_device)
            QVERIFY2(projector->tower_device() != "cpu", projector->tower_device_problem().c_str());
        engine::Inference inference(model, options);
        if (options.device.kind == engine::ComputeDevice::Kind::Vulkan) {
            const engine::DeviceForward* device = inference.device_forward();
            QVERIFY2(device != nullptr, "no layer ran on the device");
            QCOMPARE(device->n_layers(),
                     options.n_gpu_layers < 0 ? model->hparams().n_layer : options.n_gpu_layers);
        }
        test::ErrorStats error;
        for (const test::ImagePromptReference& run : reference.prompts) {
            const std::string where = run.image + "/" + run.prompt;
            const vision::ImagePrompt prompt =
                vision::layout_image_prompt(model->tokenizer(), run.text, *projector);
            QVERIFY2(prompt.before == run.before, where.c_str());
            QVERIFY2(prompt.after == run.after, where.c_str());
            QCOMPARE(prompt.first_image_position(), run.image_first);
            QCOMPARE(prompt.first_image_position() + prompt.n_image_positions - 1, run.image_last);
            QCOMPARE(prompt.n_positions(), run.n_prompt_positions);

            const std::vector<float> image = embed(*projector, run.image);
            auto cache = inference.new_cache(prompt.n_positions() + static_cast<int32_t>(run.steps.size()));
            std::span<const float> logits = vision::eval_image_prompt(inference, *cache, prompt, image);
            std::vector<int32_t> greedy;
            for (size_t s = 0; s < run.steps.size(); ++s) {
                QCOMPARE(logits.size(), run.steps[s].logits.size());
                for (size_t v = 0; v < logits.size(); ++v)
                    error.add(logits[v], run.steps[s].logits[v]);
                greedy.push_back(argmax(logits));
                if (s + 1 < run.steps.size())
                    logits = inference.eval(*cache, std::span(&run.greedy_tokens[s], 1));
            }
            QVERIFY2(greedy == run.greedy_tokens, ("greedy tokens differ: " + where).c_str());
        }
        if (const engine::DeviceForward* device = inference.device_forward())
            QVERIFY2(device->validation_errors() == 0,
                     qPrintable(QString("%1 Vulkan validation errors, the last: %2")
                                    .arg(device->validation_errors())
                                    .arg(QString::fromStdString(device->last_validation_message()))));
        test::verify_error_bar(name + "/" + label + " logits", error, test::read_projector_bars(name).logits);
    }
};

QTEST_GUILESS_MAIN(TestVisionReference)
#include "test_vision_reference.moc"
