#include "tests/support/reference_rule.h"
#include "engine/error.h"
#include <QTest>
#include <algorithm>
#include <cmath>

namespace hearth::test {

Measured measure_reference(const std::shared_ptr<const engine::Model>& model,
                           const std::vector<ReferenceLine>& lines, Evaluation how,
                           engine::InferenceOptions options,
                           const std::function<void(const engine::Inference&)>& after) {
    size_t longest = 0;
    for (const ReferenceLine& line : lines)
        longest = std::max(longest, line.teacher_forced_sequence().size());
    const int32_t n_batch = how == Evaluation::OnePass ? static_cast<int32_t>(longest) : 1;
    options.n_batch = n_batch;
    engine::Inference inference(model, options);
    const size_t n_vocab = static_cast<size_t>(inference.n_vocab());

    Measured measured;
    std::vector<float> logits;
    for (size_t l = 0; l < lines.size(); ++l) {
        const ReferenceLine& line = lines[l];
        const std::vector<int32_t> sequence = line.teacher_forced_sequence();
        auto cache = inference.new_cache(static_cast<int32_t>(sequence.size()));
        if (how == Evaluation::OnePass) {
            inference.eval(*cache, sequence, &logits);
        } else {
            logits.assign(sequence.size() * n_vocab, NAN);
            for (size_t i = 0; i < sequence.size(); ++i) {
                const std::span<const float> row =
                    inference.eval(*cache, std::span<const int32_t>(&sequence[i], 1));
                std::copy(row.begin(), row.end(), logits.begin() + static_cast<std::ptrdiff_t>(i * n_vocab));
            }
        }
        if (logits.size() != sequence.size() * n_vocab) throw Error("eval gave logits of another size");
        const int steps_before = measured.error.steps();
        for (size_t s = 0; s < line.steps.size(); ++s) {
            const size_t row = line.first_predicting_row() + s;
            measured.error.set_location("line " + std::to_string(l + 1) + ", step " + std::to_string(s));
            measured.error.add_step(line.steps[s],
                                    std::span<const float>(logits.data() + row * n_vocab, n_vocab));
        }
        measured.compared_per_line.push_back(static_cast<size_t>(measured.error.steps() - steps_before));
    }
    if (after) after(inference);
    return measured;
}

kernels::Isa tier_of(int isa) {
    return static_cast<kernels::Isa>(isa);
}

std::string tier_name(int isa) {
    return std::string(kernels::isa_name(tier_of(isa)));
}

int best_tier() {
    int best = static_cast<int>(kernels::Isa::Scalar);
    for (kernels::Isa isa : kernels::kIsaTiers)
        if (kernels::kernels_for(isa)) best = static_cast<int>(isa);
    return best;
}

void add_tier_rows(const std::string& model, std::optional<int> evaluation) {
    for (kernels::Isa isa : kernels::kIsaTiers) {
        const std::string tag =
            model + "/" + std::string(kernels::isa_name(isa)) + (evaluation == 1 ? " token by token" : "");
        QTestData& row = QTest::newRow(tag.c_str()) << QString::fromStdString(model) << static_cast<int>(isa);
        if (evaluation) row << *evaluation;
    }
}

void verify_reference_rule(const std::string& name, const std::string& how,
                           const std::vector<ReferenceLine>& lines, const Measured& measured) {
    verify_reference_rule(name, how, lines, measured, llama_cpp_error(name));
}

void verify_reference_rule(const std::string& name, const std::string& how,
                           const std::vector<ReferenceLine>& lines, const Measured& measured,
                           const LlamaCppError& llama_cpp) {
    const TopFiveError& ours = measured.error;
    for (size_t l = 0; l < lines.size(); ++l)
        QVERIFY2(measured.compared_per_line[l] >= kMinStepsPerPrompt,
                 qPrintable(QString("\"%1\": %2 steps compared, fewer than %3")
                                .arg(QString::fromStdString(lines[l].prompt))
                                .arg(measured.compared_per_line[l])
                                .arg(kMinStepsPerPrompt)));
    const double rms_ratio = ours.rms() / llama_cpp.rms, max_ratio = ours.max_abs() / llama_cpp.max_abs;
    qInfo("%s/%s: RMS %.3g (%.2fx llama.cpp's %.3g), max %.3g (%.2fx llama.cpp's %.3g); %d steps of %zu "
          "lines, %d logits compared",
          name.c_str(), how.c_str(), ours.rms(), rms_ratio, llama_cpp.rms, ours.max_abs(), max_ratio,
          llama_cpp.max_abs, ours.steps(), lines.size(), ours.values());
    QCOMPARE(ours.steps(), llama_cpp.steps); // every step, as llama.cpp's error was measured
    QVERIFY2(ours.rms() <= kRmsRatioLimit * llama_cpp.rms,
             qPrintable(QString("RMS error %1 is %2x llama.cpp's %3 (limit %4x)")
                            .arg(ours.rms())
                            .arg(rms_ratio)
                            .arg(llama_cpp.rms)
                            .arg(kRmsRatioLimit)));
    QVERIFY2(ours.max_abs() <= kMaxRatioLimit * llama_cpp.max_abs,
             qPrintable(QString("max error %1 is %2x llama.cpp's %3 (limit %4x), at %5")
                            .arg(ours.max_abs())
                            .arg(max_ratio)
                            .arg(llama_cpp.max_abs)
                            .arg(kMaxRatioLimit)
                            .arg(QString::fromStdString(ours.worst_at()))));
}

} // namespace hearth::test
