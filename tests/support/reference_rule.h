#pragma once
// The README's rule for an engine (reference_logits.h) applied to a forward pass: each golden
// line's teacher-forced sequence evaluated from a fresh cache, `logit - exact` collected at
// llama.cpp's golden top-5 ids of every step, and the limits checked with Qt Test's macros.
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "kernels/kernel_table.h"
#include "tests/support/reference_logits.h"
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hearth::test {

// Every comparison with the golden covers at least this many steps of each prompt.
inline constexpr size_t kMinStepsPerPrompt = 10;

// A CPU tier as a data-driven test's int column, and its name.
kernels::Isa tier_of(int isa);
std::string tier_name(int isa);
// The best tier this CPU runs.
int best_tier();
// Rows (model, tier) for every tier, named model/tier; with an evaluation (0 one pass, 1 token
// by token), that column too, and " token by token" in the name of 1.
void add_tier_rows(const std::string& model, std::optional<int> evaluation = {});

// How a line is evaluated: in one pass (the prompt path; n_batch covers the longest line), or
// one token per eval (the decode path: a batch of one row).
enum class Evaluation { OnePass, TokenByToken };

struct Measured {
    TopFiveError error;
    std::vector<size_t> compared_per_line; // steps compared on each line
};

// Feeds every line's teacher-forced sequence through a fresh cache of a forward pass made with
// `options` (its n_batch set by `how`) and collects the errors; `after` sees the forward pass
// once every line is done. Throws hearth::Error from the forward pass.
Measured measure_reference(const std::shared_ptr<const engine::Model>& model,
                           const std::vector<ReferenceLine>& lines, Evaluation how,
                           engine::InferenceOptions options = engine::InferenceOptions{2},
                           const std::function<void(const engine::Inference&)>& after = {});

// The rule; a failed check fails the calling test (QVERIFY returns from here only: the caller
// checks QTest::currentTestFailed() when it has more to do). `how` names the path in the log.
// llama.cpp's error is the shared reference's for the model `name` (reference_logits.h), or
// the one given, for a model the suite writes itself.
void verify_reference_rule(const std::string& name, const std::string& how,
                           const std::vector<ReferenceLine>& lines, const Measured& measured);
void verify_reference_rule(const std::string& name, const std::string& how,
                           const std::vector<ReferenceLine>& lines, const Measured& measured,
                           const LlamaCppError& llama_cpp);

} // namespace hearth::test
