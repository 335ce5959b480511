#include "tests/support/reference_logits.h"
#include "tests/support/test_support.h"
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hearth::test {

using nlohmann::json;

namespace {

std::vector<json> read_json_lines(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::vector<json> lines;
    std::string line;
    while (std::getline(in, line))
        if (!line.empty()) lines.push_back(json::parse(line));
    return lines;
}

} // namespace

std::vector<int32_t> ReferenceLine::teacher_forced_sequence() const {
    std::vector<int32_t> sequence = prompt_tokens;
    for (size_t i = 0; i + 1 < steps.size(); ++i)
        sequence.push_back(steps[i].token);
    return sequence;
}

bool has_reference(const std::string& model) {
    return std::filesystem::exists(testdata("reference/" + model + ".reference.jsonl"));
}

std::set<std::string> models_with_reference() {
    const std::string suffix = ".reference.jsonl";
    std::set<std::string> models;
    for (const auto& entry : std::filesystem::directory_iterator(testdata("reference"))) {
        const std::string file = entry.path().filename().string();
        if (file.ends_with(suffix)) models.insert(file.substr(0, file.size() - suffix.size()));
    }
    return models;
}

ReferenceLine golden_line(const json& line, const std::string& where) {
    ReferenceLine parsed;
    try {
        parsed.prompt = line.at("prompt").get<std::string>();
        parsed.prompt_tokens = line.at("prompt_tokens").get<std::vector<int32_t>>();
        const json& steps = line.at("steps");
        for (size_t s = 0; s < steps.size(); ++s) {
            ReferenceStep step;
            step.token = steps[s].at("token").get<int32_t>();
            for (const json& pair : steps[s].at("top5"))
                step.golden_top5.emplace_back(pair.at(0).get<int32_t>(), pair.at(1).get<float>());
            if (step.golden_top5.size() != 5)
                throw std::runtime_error(where + ", step " + std::to_string(s) + ": not 5 golden logits");
            parsed.steps.push_back(std::move(step));
        }
    } catch (const json::exception& e) {
        throw std::runtime_error(where + ": " + e.what());
    }
    if (parsed.prompt_tokens.empty()) throw std::runtime_error(where + ": no prompt tokens");
    return parsed;
}

std::vector<ReferenceLine> read_reference(const std::string& model) {
    const std::string golden_path = testdata("golden/" + model + ".greedy.jsonl");
    const std::string reference_path = testdata("reference/" + model + ".reference.jsonl");
    const std::vector<json> golden = read_json_lines(golden_path);
    const std::vector<json> reference = read_json_lines(reference_path);
    if (golden.size() != reference.size() || golden.empty())
        throw std::runtime_error(reference_path + ": " + std::to_string(reference.size()) + " lines, " +
                                 golden_path + ": " + std::to_string(golden.size()));

    std::vector<ReferenceLine> lines;
    for (size_t l = 0; l < golden.size(); ++l) {
        const json& r = reference[l];
        const std::string where = reference_path + " line " + std::to_string(l + 1);
        ReferenceLine line = golden_line(golden[l], golden_path + " line " + std::to_string(l + 1));
        if (r["prompt"].get<std::string>() != line.prompt ||
            r["prompt_tokens"].get<std::vector<int32_t>>() != line.prompt_tokens)
            throw std::runtime_error(where + ": another prompt than the golden's");
        const json& reference_steps = r["steps"];
        if (line.steps.size() != reference_steps.size())
            throw std::runtime_error(where + ": " + std::to_string(reference_steps.size()) +
                                     " steps, the golden " + std::to_string(line.steps.size()));
        for (size_t s = 0; s < line.steps.size(); ++s) {
            ReferenceStep& step = line.steps[s];
            if (reference_steps[s]["token"].get<int32_t>() != step.token)
                throw std::runtime_error(where + ", step " + std::to_string(s) +
                                         ": another token than the golden's");
            for (const json& pair : reference_steps[s]["ref"])
                step.exact.emplace(pair[0].get<int32_t>(), pair[1].get<double>());
            for (const auto& [id, logit] : step.golden_top5)
                if (!step.exact.contains(id))
                    throw std::runtime_error(where + ", step " + std::to_string(s) + ": golden id " +
                                             std::to_string(id) + " has no exact logit");
        }
        lines.push_back(std::move(line));
    }
    return lines;
}

LlamaCppError llama_cpp_error(const std::string& model) {
    const std::string path = testdata("reference/llama_cpp_error.json");
    const json all = json::parse(read_file(path));
    if (!all.contains(model)) throw std::runtime_error(path + ": no entry for " + model);
    const json& entry = all[model];
    return {entry["llama_cpp_top5_rms_err"].get<double>(), entry["llama_cpp_top5_max_abs_err"].get<double>(),
            entry["steps"].get<int>()};
}

void TopFiveError::add_step(const ReferenceStep& step, const std::function<double(int32_t)>& logit_of) {
    for (const auto& [id, golden_logit] : step.golden_top5) {
        const double exact = step.exact.at(id);
        const double logit = logit_of(id);
        const double error = logit - exact;
        sum_squares_ += error * error;
        ++values_;
        // Written so that a NaN logit becomes the worst error rather than being skipped.
        if (!(std::fabs(error) <= max_abs_)) {
            max_abs_ = std::isnan(error) ? INFINITY : std::fabs(error);
            char text[160];
            std::snprintf(text, sizeof text, ", id %d: %.6f vs exact %.6f", id, logit, exact);
            worst_at_ = location_ + text;
        }
    }
    ++steps_;
}

double TopFiveError::rms() const {
    return values_ == 0 ? 0.0 : std::sqrt(sum_squares_ / values_);
}

} // namespace hearth::test
