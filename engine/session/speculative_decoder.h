#pragma once
// Speculative decoding's two halves beside the forward pass: what to draft (a drafter, and how
// many tokens, from the running acceptance rate), and the rule that accepts or replaces each
// drafted token against the target's distribution. The chat session runs the verify pass: one
// forward pass over the token not yet evaluated and the drafted ones, every row's logits kept,
// the cache cut back past the longest accepted prefix.
#include "engine/sampling/sampler.h"
#include "engine/session/draft_model.h"
#include "engine/session/generation_options.h"
#include <cstdint>
#include <span>
#include <vector>

namespace hearth::engine {

// The outcome of one drafted token against the target's logits at its position.
struct DraftVerdict {
    bool accepted;
    int32_t token; // the drafted token when accepted, else the token drawn in its place
};

// The speculative sampling rule for a drafter whose proposal q is a point mass on `drafted` (prompt
// lookup, a greedy draft model). With p the sampler's distribution (every setting applied): accept
// with probability min(1, p/q) = p(drafted); on rejection, draw from the normalised residual
// max(0, p - q), which is p without `drafted`, renormalised. The token that comes out is then
// distributed exactly as p. Greedy: accepted when `drafted` is the argmax, else the argmax.
DraftVerdict verify_drafted_token(Sampler& sampler, std::span<const float> logits,
                                  std::span<const int32_t> recent, int32_t drafted);

// Figures of one reply's speculation.
struct SpeculationStats {
    int32_t verify_passes = 0; // passes that carried drafted tokens
    int32_t drafted = 0;
    int32_t accepted = 0;
};

class SpeculativeDecoder {
public:
    // `draft`: the draft model when options.drafter is DraftModel (it must outlive this).
    SpeculativeDecoder(const SpeculationOptions& options, DraftModel* draft);

    bool active() const { return options_.drafter != SpeculationOptions::Drafter::Off; }
    // The tokens to verify after the last one (at most `room`): `history` is the logical
    // conversation so far (prompt and reply), `view` what the target's cache holds followed by
    // the token not yet evaluated. Empty while speculation is switched off for not paying.
    std::span<const int32_t> draft(std::span<const int32_t> history, std::span<const int32_t> view,
                                   int32_t room);
    // What the last verify pass made of draft()'s tokens, and how long it took with the drafting:
    // the draft length adapts (the acceptance rule's length, capped at best_length), and
    // speculation pauses when accepted tokens no longer pay for the drafted ones (a time per
    // token above plain decoding's, as record_plain measured it); a probe (the first pass after a
    // pause) of which nothing passes pauses it again at once.
    void record(int32_t drafted, int32_t accepted, double seconds = 0);
    // The time of a plain decoding step (one token, no draft).
    void record_plain(double seconds);
    const SpeculationStats& stats() const { return stats_; }
    int32_t draft_length() const { return length_; }
    // The drafted tokens per pass that give the most tokens per second, for the acceptance and
    // the pass costs measured so far (at most max_draft).
    int32_t best_length() const;

private:
    // Drafting stops for pause_length_ draft() calls, the next pause twice as long; the next pass
    // is a probe.
    void pause();

    SpeculationOptions options_;
    DraftModel* draft_;
    std::vector<int32_t> buffer_; // max_draft tokens, allocated once
    int32_t length_;              // tokens to draft next
    int32_t window_passes_ = 0;   // verify passes since acceptance was last judged
    int32_t window_drafted_ = 0;
    double window_seconds_ = 0;
    double plain_seconds_ = 0;        // running mean of a plain step's time; 0: none measured yet
    int32_t paused_for_ = 0;          // draft() calls left before speculation is tried again
    int32_t pause_length_;            // the next pause, doubled each time speculation fails again
    bool probing_ = false;            // the next pass is the first after a pause for not paying
    bool never_pays_ = false;         // drafting is slower than plain decoding even at full acceptance
    int32_t judgements_ = 0;          // windows judged
    bool unproven_draft_ = false;     // a draft model not shown to pay (not following the whole history)
    int32_t hopeless_judgements_ = 0; // judgements running that found even full acceptance slower
    double cost_per_drafted_;         // a drafted token's price, in accepted tokens
    // pass_cost_[k]: a pass that drafts k tokens, in plain steps (running mean; 0: not timed).
    std::vector<double> pass_cost_;
    std::vector<int32_t> pass_timed_at_; // verify_passes when pass_cost_[k] was last timed
    // Each drafted token is judged only after those before it passed: of the tokens judged,
    // these (decaying) counts of the accepted and the rejected give the acceptance of the next.
    double judged_accepted_ = 1;
    double judged_rejected_ = 1;
    // The passes' seconds and tokens (accepted and one more), decaying alike: speculation's
    // recent time per token, against a plain step's.
    double recent_seconds_ = 0;
    double recent_tokens_ = 0;
    SpeculationStats stats_;
};

} // namespace hearth::engine
