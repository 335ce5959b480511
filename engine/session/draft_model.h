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
#include <vector>

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

    // A draft not yet shown to pay (a new one, or one that stopped for never paying) reads only
    // what its cache already shares with the history (at least its first kStartTokens: the BOS
    // and the template's opening, on which attention leans, as StreamingLLM keeps its "attention
    // sinks"), then the history's last kRecentTokens: trying a draft costs a short prefill, not
    // one of the whole conversation, which a draft that fails would pay for nothing. Its
    // positions past the gap are then not the target's; for rotary positions only distances
    // count, and a draft only proposes. Once it pays it reads the whole history.
    static constexpr int32_t kStartTokens = 4;
    static constexpr int32_t kRecentTokens = 8;
    // Whether the draft reads the whole history: from its first judgement that found it paying,
    // until a reply where it stopped for never paying, and again from the reply where it pays.
    bool follows_whole_history() const { return paid_ && failed_replies_ == 0; }
    // Replies running in which the draft stopped for never paying (0 once one pays): the next
    // reply waits the longer before it drafts.
    int32_t failed_replies() const { return failed_replies_; }
    void record_reply(bool paid) {
        failed_replies_ = paid ? 0 : failed_replies_ + 1;
        paid_ = paid_ || paid;
    }
    // What the draft's cache holds after the last proposal, its drafted tokens included.
    int32_t cached_tokens() const { return cache_->size(); }

private:
    // What the draft reads of the history: the history itself, or (in view_) the history less its
    // positions [gap_start_, gap_end_) while that gap is open.
    std::span<const int32_t> view_of(std::span<const int32_t> history);

    Inference inference_;
    std::unique_ptr<KvCache> cache_;
    double cost_ratio_;
    std::vector<int32_t> view_; // a view with a gap: the cache's capacity and one more, reserved once
    int32_t gap_start_ = 0, gap_end_ = 0;
    int32_t failed_replies_ = 0;
    bool paid_ = false;
};

} // namespace hearth::engine
