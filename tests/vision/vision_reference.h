#pragma once
// The vision test data (../shared/testdata/vision, its README): the exact canvases, the float64
// reference of each projector file's image embeddings and image prompts, and llama.cpp's error
// against it, which is the bar.
#include <cstdint>
#include <string>
#include <vector>

namespace hearth::test {

inline constexpr const char* kProjectorFiles[] = {"mmproj-tiny-gemma3-f32", "mmproj-tiny-gemma3-f16"};
inline constexpr const char* kVisionImages[] = {"grad-56x56.png", "shapes-96x64.png", "rings-30x42.png"};

std::string vision_data(const std::string& relative); // testdata/vision/<relative>
std::string vision_text_model();                      // testdata/models/tiny-gemma3.gguf

struct CanvasReference {
    std::vector<uint8_t> rgb; // row-major, R G B per pixel
    std::string sha256;
    int32_t resized_width = 0, resized_height = 0, x = 0, y = 0;
};
CanvasReference read_canvas_reference(const std::string& image);

struct ImagePromptStep {
    int32_t token = 0;          // the greedy token this step chose
    std::vector<double> logits; // n_vocab
};
struct ImagePromptReference {
    std::string image, prompt, text;
    std::vector<int32_t> before, after; // the text chunks around the image
    int32_t image_first = 0, image_last = 0;
    int32_t n_prompt_positions = 0;
    std::vector<int32_t> greedy_tokens;
    std::vector<ImagePromptStep> steps;
};
struct ProjectorReference {
    std::vector<std::string> images;
    std::vector<std::vector<double>> embeddings; // per image: (n_image_tokens * n_embd)
    std::vector<ImagePromptReference> prompts;
};
ProjectorReference read_projector_reference(const std::string& file);

struct ErrorBar {
    double rms = 0, max_abs = 0; // llama.cpp's error against the reference
    int64_t values = 0;
};
struct ProjectorBars {
    ErrorBar embeddings, logits;
};
ProjectorBars read_projector_bars(const std::string& file);

// Differences against a reference, collected.
class ErrorStats {
public:
    void add(double value, double reference);
    double rms() const;
    double max_abs() const { return max_abs_; }
    int64_t count() const { return count_; }

private:
    double sum_squares_ = 0, max_abs_ = 0;
    int64_t count_ = 0;
};

// Logs the measured error against the bar (1.1x RMS, 1.5x max) and fails the calling test when
// it is over (QVERIFY returns from here only).
void verify_error_bar(const std::string& what, const ErrorStats& measured, const ErrorBar& bar);

} // namespace hearth::test
