#pragma once
// The accuracy rule of ../shared/testdata/README.md ("The rule for an engine"): the engine's
// logits against exact float64 math (reference/), at llama.cpp's golden top-5 ids, held to
// llama.cpp's own error against the same exact math.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace hearth::test {

// One generated step of a golden line, with the exact logits that predict it.
struct ReferenceStep {
    int32_t token = 0;                                  // llama.cpp's greedy pick
    std::vector<std::pair<int32_t, float>> golden_top5; // llama.cpp's top-5 [id, logit], best first
    std::unordered_map<int32_t, double> exact;          // id -> exact logit (the 32 largest + golden_top5)
    float golden_top_gap() const { return golden_top5[0].second - golden_top5[1].second; }
};

// A line of golden/<model>.greedy.jsonl joined with the same line of the reference file.
struct ReferenceLine {
    std::string prompt;
    std::vector<int32_t> prompt_tokens; // with BOS
    std::vector<ReferenceStep> steps;
    // prompt_tokens, then every step's token but the last: evaluated as one prompt, its rows
    // from first_predicting_row() on predict the steps in order.
    std::vector<int32_t> teacher_forced_sequence() const;
    size_t first_predicting_row() const { return prompt_tokens.size() - 1; }
};

// One line of a golden file as llama.cpp's greedy run wrote it (golden/*.greedy.jsonl): the
// prompt, its tokens and each step's token and top-5, with no exact logits yet. Throws
// std::runtime_error starting with `where` when a part is missing or not 5 logits are given.
ReferenceLine golden_line(const nlohmann::json& line, const std::string& where);

// Whether testdata has reference/<model>.reference.jsonl.
bool has_reference(const std::string& model);
// Every model testdata has a reference/<model>.reference.jsonl of.
std::set<std::string> models_with_reference();
// Reads a model's golden and reference lines and checks that they describe the same steps
// (prompts, tokens, step counts, every golden top-5 id among the exact ones); throws
// std::runtime_error naming the file and line otherwise.
std::vector<ReferenceLine> read_reference(const std::string& model);

// llama.cpp's error against the reference over its golden top-5 ids (reference/llama_cpp_error.json).
struct LlamaCppError {
    double rms = 0;
    double max_abs = 0;
    int steps = 0; // the steps it was measured over: every step of every line
};
LlamaCppError llama_cpp_error(const std::string& model);

// The README's rule: RMS error at most 1.1x llama.cpp's, maximum error at most 1.5x.
inline constexpr double kRmsRatioLimit = 1.1;
inline constexpr double kMaxRatioLimit = 1.5;

// `logit - exact` at the golden top-5 ids of every step added.
class TopFiveError {
public:
    // logit_of(id): the logit being judged at that id.
    void add_step(const ReferenceStep& step, const std::function<double(int32_t)>& logit_of);
    void add_step(const ReferenceStep& step, std::span<const float> logits) {
        add_step(step, [&](int32_t id) { return static_cast<double>(logits[static_cast<size_t>(id)]); });
    }
    double rms() const;
    double max_abs() const { return max_abs_; }
    int steps() const { return steps_; }
    int values() const { return values_; }
    // Where the largest error was, e.g. "line 2, step 17, id 383: 12.3456 vs exact 12.3301".
    const std::string& worst_at() const { return worst_at_; }
    void set_location(std::string location) { location_ = std::move(location); }

private:
    double sum_squares_ = 0, max_abs_ = 0;
    int steps_ = 0, values_ = 0;
    std::string location_, worst_at_;
};

} // namespace hearth::test
