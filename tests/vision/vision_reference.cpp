#include "tests/vision/vision_reference.h"
#include "tests/support/reference_logits.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <cmath>
#include <nlohmann/json.hpp>

namespace hearth::test {
namespace {

nlohmann::json read_json(const std::string& path) {
    return nlohmann::json::parse(read_file(path));
}

std::vector<uint8_t> from_hex(const std::string& hex) {
    std::vector<uint8_t> bytes(hex.size() / 2);
    for (size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
    return bytes;
}

} // namespace

std::string vision_data(const std::string& relative) {
    return testdata("vision/" + relative);
}

std::string vision_text_model() {
    return testdata("models/tiny-gemma3.gguf");
}

CanvasReference read_canvas_reference(const std::string& image) {
    const nlohmann::json entry = read_json(vision_data("reference/preprocess.json"))["images"].at(image);
    CanvasReference canvas;
    canvas.rgb = from_hex(entry.at("rgb_hex").get<std::string>());
    canvas.sha256 = entry.at("rgb_sha256").get<std::string>();
    const nlohmann::json& resized = entry.at("resized_size");
    const nlohmann::json& offset = entry.at("offset");
    canvas.resized_width = resized[0].get<int32_t>();
    canvas.resized_height = resized[1].get<int32_t>();
    canvas.x = offset[0].get<int32_t>();
    canvas.y = offset[1].get<int32_t>();
    return canvas;
}

ProjectorReference read_projector_reference(const std::string& file) {
    const nlohmann::json json = read_json(vision_data("reference/" + file + ".reference.json"));
    ProjectorReference ref;
    for (const auto& image : json.at("images")) {
        ref.images.push_back(image.at("image").get<std::string>());
        std::vector<double> values;
        for (const auto& row : image.at("embd"))
            for (const auto& v : row)
                values.push_back(v.get<double>());
        ref.embeddings.push_back(std::move(values));
    }
    for (const auto& p : json.at("prompts")) {
        ImagePromptReference prompt;
        prompt.image = p.at("image").get<std::string>();
        prompt.prompt = p.at("prompt").get<std::string>();
        prompt.text = p.at("text").get<std::string>();
        bool after_image = false;
        for (const auto& chunk : p.at("chunks")) {
            if (chunk.at("type") == "image") {
                prompt.image_first = chunk.at("pos")[0].get<int32_t>();
                prompt.image_last = chunk.at("pos")[1].get<int32_t>();
                after_image = true;
                continue;
            }
            auto& into = after_image ? prompt.after : prompt.before;
            for (const auto& t : chunk.at("tokens"))
                into.push_back(t.get<int32_t>());
        }
        prompt.n_prompt_positions = p.at("n_prompt_pos").get<int32_t>();
        prompt.greedy_tokens = p.at("greedy_tokens").get<std::vector<int32_t>>();
        for (const auto& s : p.at("steps")) {
            ImagePromptStep step;
            step.token = s.at("token").get<int32_t>();
            step.logits = s.at("logits").get<std::vector<double>>();
            prompt.steps.push_back(std::move(step));
        }
        ref.prompts.push_back(std::move(prompt));
    }
    return ref;
}

ProjectorBars read_projector_bars(const std::string& file) {
    const nlohmann::json entry = read_json(vision_data("llama_cpp_error.json")).at(file + ".gguf");
    const auto bar = [](const nlohmann::json& e) {
        return ErrorBar{e.at("llama_cpp_rms_err").get<double>(), e.at("llama_cpp_max_abs_err").get<double>(),
                        e.at("n_values").get<int64_t>()};
    };
    return {bar(entry.at("embd")), bar(entry.at("logits"))};
}

void ErrorStats::add(double value, double reference) {
    const double d = value - reference;
    sum_squares_ += d * d;
    max_abs_ = std::max(max_abs_, std::fabs(d));
    if (!std::isfinite(d)) max_abs_ = INFINITY;
    ++count_;
}

double ErrorStats::rms() const {
    return count_ ? std::sqrt(sum_squares_ / static_cast<double>(count_)) : 0.0;
}

void verify_error_bar(const std::string& what, const ErrorStats& measured, const ErrorBar& bar) {
    qInfo(
        "%s: RMS %.3g (bar %.3g = 1.1x llama.cpp's %.3g), max %.3g (bar %.3g = 1.5x llama.cpp's %.3g), %lld "
        "values",
        what.c_str(), measured.rms(), kRmsRatioLimit * bar.rms, bar.rms, measured.max_abs(),
        kMaxRatioLimit * bar.max_abs, bar.max_abs, static_cast<long long>(measured.count()));
    QCOMPARE(measured.count(), bar.values);
    QVERIFY2(measured.rms() <= kRmsRatioLimit * bar.rms, qPrintable(QString("%1: RMS %2 over the bar %3")
                                                                        .arg(QString::fromStdString(what))
                                                                        .arg(measured.rms())
                                                                        .arg(kRmsRatioLimit * bar.rms)));
    QVERIFY2(measured.max_abs() <= kMaxRatioLimit * bar.max_abs,
             qPrintable(QString("%1: max %2 over the bar %3")
                            .arg(QString::fromStdString(what))
                            .arg(measured.max_abs())
                            .arg(kMaxRatioLimit * bar.max_abs)));
}

} // namespace hearth::test
