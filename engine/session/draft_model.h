#pragma once
// A draft model: a smaller model with the target's vocabulary that proposes the next tokens
// greedily, on the target's kernel threads, in a KV cache of its own that follows the target's
// tokens (its common prefix with them is kept, the rest recomputed).
#include "engine/forward/inference.h"
#include "engine/forward/kv_cache.h"
#include "engine/model/model.h"
#include <memory>
#include <span>
#include <string>

namespace hearth::engine {

// Throws hearth::Error, naming both files, when `draft` cannot draft for `target`: another
// vocabulary (size or any token's text), or more parameters than the target.
void check_draft_model(const Model& draft, const Model& target);

class DraftModel {
public:
    // Checks the pair (check_draft_model), then gives the draft a cache of n_ctx positions of the
    // target's cache types and the target's thread pool. Throws hearth::Error.
    DraftModel(std::shared_ptr<const Model> draft, Inference& target, int32_t n_ctx);
    // Model::load of `path`, then as above: a damaged file's error names it.
    static std::unique_ptr<DraftModel> load(const std::string& path, Inference& target, int32_t n_ctx);

    const Model& model() const { return inference_.model(); }
    // Runs on `target`'s kernel threads (again, after its set_threads).
    void share_threads_of(const Inference& target) { inference_.share_threads_of(target); }
    // What a drafted token costs beside a decoded one, before either is timed: the draft's file
    // bytes over the target's (decode reads every weight once), or its parameters over the
    // target's where that is less. A draft quantized from the target's own weights (Q2_K of a
    // Q8_0) has as many parameters but reads a third of the bytes.
    double cost_ratio() const { return cost_ratio_; }
    // Writes up to out.size() greedy tokens that follow `history` (the target's sequence as its
    // cache sees it, then the token not yet evaluated); returns how many (0 when the draft's
    // context has no room). Allocates nothing once its buffers are warm.
    int32_t propose(std::span<const int32_t> history, std::span<int32_t> out);

private:
    Inference inference_;
    std::unique_ptr<KvCache> cache_;
    double cost_ratio_;
};

} // namespace hearth::engine
