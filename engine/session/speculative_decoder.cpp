#include "engine/session/speculative_decoder.h"
#include "engine/session/draft_prompt_lookup.h"
#include <algorithm>

namespace hearth::engine {

DraftVerdict verify_drafted_token(Sampler& sampler, std::span<const float> logits,
                                  std::span<const int32_t> recent, int32_t drafted) {
    const std::span<const Sampler::Candidate> p = sampler.distribution(logits, recent);
    if (sampler.greedy()) return {p[0].id == drafted, p[0].id};
    float p_drafted = 0.0f;
    for (const Sampler::Candidate& c : p)
        if (c.id == drafted) p_drafted = c.p;
    // q(drafted) = 1, so min(1, p/q) = p(drafted).
    if (sampler.uniform() < p_drafted) return {true, drafted};
    // The residual max(0, p - q): p with the drafted token's mass removed, renormalised.
    const double rest = 1.0 - static_cast<double>(p_drafted);
    double r = sampler.uniform() * rest;
    int32_t last = -1;
    for (const Sampler::Candidate& c : p) {
        if (c.id == drafted) continue;
        last = c.id;
        r -= c.p;
        if (r <= 0) return {false, c.id};
    }
    // Rounding left a sliver: the last candidate takes it (there is one, since p(drafted) < 1).
    return {false, last >= 0 ? last : drafted};
}

namespace {
// Acceptance is judged over this many verify passes before speculation may pause.
constexpr int32_t kWindow = 4;
constexpr int32_t kFirstWindow = 2; // a draft model's first judgement, until it has paid once
// A pause starts at this many draft() calls and doubles while speculation keeps failing.
constexpr int32_t kFirstPause = 32;
constexpr int32_t kLongestPause = 512;
// Judgements between two plain steps taken to time plain decoding.
constexpr int32_t kJudgementsPerPlainStep = 8;
// A pass length's timing counts for this many verify passes after it was taken.
constexpr int32_t kCostMemory = 32;
// The least a drafted token costs, in the price of a decoded token: the verify pass's extra row
// (its weights are read once for every row), plus, for a draft model, its own forward pass, by
// DraftModel::cost_ratio. What it really costs on this machine is timed.
constexpr double kVerifyRowCost = 0.05;
double cost_per_drafted(const DraftModel* draft) {
    return kVerifyRowCost + (draft ? draft->cost_ratio() : 0.0);
}
} // namespace

SpeculativeDecoder::SpeculativeDecoder(const SpeculationOptions& options, DraftModel* draft)
    : options_(options), draft_(draft),
      buffer_(static_cast<size_t>(std::clamp(options.max_draft, 1, kMostVerifyRows - 1))),
      length_(options.adaptive ? 1 : static_cast<int32_t>(buffer_.size())), pause_length_(kFirstPause),
      cost_per_drafted_(cost_per_drafted(draft)), pass_cost_(buffer_.size() + 1, 0.0),
      pass_timed_at_(buffer_.size() + 1, 0) {
    // The first step goes plain, to time plain decoding for the first judgement. The first pass
    // drafts one token, the cheapest try where drafts fail (a pass drafting more costs 0.6-0.9 of
    // a step more on the ymm tiers); the length grows as drafts pass.
    if (options_.adaptive) {
        paused_for_ = 1;
        // A draft model not yet shown to pay is judged after fewer passes; one that stopped for
        // never paying in the replies before waits, longer each time, before it is tried again:
        // a conversation whose drafts fail pays for few tries.
        unproven_draft_ = draft_ && !draft_->follows_whole_history();
        if (draft_ && draft_->failed_replies() > 0)
            paused_for_ = std::min(kLongestPause, kFirstPause << std::min(draft_->failed_replies() - 1, 8));
    }
    if ((options_.drafter == SpeculationOptions::Drafter::DraftModel && !draft_) ||
        (options_.drafter == SpeculationOptions::Drafter::Custom && !options_.custom))
        options_.drafter = SpeculationOptions::Drafter::Off;
}

std::span<const int32_t> SpeculativeDecoder::draft(std::span<const int32_t> history,
                                                   std::span<const int32_t> view, int32_t room) {
    if (!active() || room <= 0) return {};
    if (never_pays_) return {};
    if (paused_for_ > 0) {
        --paused_for_;
        return {};
    }
    const std::span<int32_t> out(buffer_.data(), static_cast<size_t>(std::min(length_, room)));
    int32_t n = 0;
    switch (options_.drafter) {
    case SpeculationOptions::Drafter::PromptLookup:
        n = draft_by_prompt_lookup(history, options_.lookup_ngram, out);
        break;
    case SpeculationOptions::Drafter::DraftModel:
        n = draft_->propose(view, out);
        break;
    case SpeculationOptions::Drafter::Custom:
        n = std::clamp(options_.custom(history, out), 0, static_cast<int32_t>(out.size()));
        break;
    case SpeculationOptions::Drafter::Off:
        break;
    }
    return out.first(static_cast<size_t>(n));
}

void SpeculativeDecoder::record_plain(double seconds) {
    plain_seconds_ = plain_seconds_ == 0 ? seconds : plain_seconds_ + (seconds - plain_seconds_) / kWindow;
}

int32_t SpeculativeDecoder::best_length() const {
    const int32_t most = static_cast<int32_t>(buffer_.size());
    // A pass's cost where it was timed lately, else a line through the nearest length timed lately
    // (each drafted row costing what that pass's rows did), else the prior price of a drafted
    // token. Forgetting old times lets a length that once timed slow (the machine was busy) be
    // tried again.
    const auto timed = [&](int32_t k) {
        return pass_cost_[static_cast<size_t>(k)] > 0 &&
               stats_.verify_passes - pass_timed_at_[static_cast<size_t>(k)] <= kCostMemory;
    };
    const auto cost = [&](int32_t k) {
        if (timed(k)) return pass_cost_[static_cast<size_t>(k)];
        for (int32_t d = 1; d < most; ++d)
            for (const int32_t near : {k - d, k + d})
                if (near >= 1 && near <= most && timed(near))
                    return 1 + std::max(0.0, pass_cost_[static_cast<size_t>(near)] - 1) * k / near;
        return 1 + cost_per_drafted_ * k;
    };
    // With each drafted token accepted with probability a once those before it were, a pass
    // drafting k gives 1 + a + ... + a^k tokens on average.
    const double a = judged_accepted_ / (judged_accepted_ + judged_rejected_);
    int32_t best = 1;
    double best_rate = 0, expected = 1, a_to_k = 1, highest_cost = 0;
    for (int32_t k = 1; k <= most; ++k) {
        a_to_k *= a;
        expected += a_to_k;
        highest_cost = std::max(highest_cost, cost(k)); // a longer pass never costs less
        const double rate = expected / highest_cost;
        if (rate > best_rate) {
            best_rate = rate;
            best = k;
        }
    }
    return best;
}

void SpeculativeDecoder::record(int32_t drafted, int32_t accepted, double seconds) {
    if (drafted <= 0) return;
    ++stats_.verify_passes;
    stats_.drafted += drafted;
    stats_.accepted += accepted;
    if (!options_.adaptive) return;
    const int32_t most = static_cast<int32_t>(buffer_.size());
    // The tokens judged: the accepted ones, and the first rejected one if any. Older passes
    // weigh less, so that the estimate follows the text (a copied passage, then free writing).
    constexpr double kKeep = 0.9;
    judged_accepted_ = judged_accepted_ * kKeep + accepted;
    judged_rejected_ = judged_rejected_ * kKeep + (accepted < drafted ? 1 : 0);
    recent_seconds_ = recent_seconds_ * kKeep + seconds;
    recent_tokens_ = recent_tokens_ * kKeep + accepted + 1;
    if (seconds > 0 && plain_seconds_ > 0 && drafted <= most) {
        double& cost = pass_cost_[static_cast<size_t>(drafted)];
        const double measured = seconds / plain_seconds_;
        const bool fresh = stats_.verify_passes - pass_timed_at_[static_cast<size_t>(drafted)] <= kCostMemory;
        cost = cost == 0 || !fresh ? measured : cost + (measured - cost) / kWindow;
        pass_timed_at_[static_cast<size_t>(drafted)] = stats_.verify_passes;
    }
    // All accepted: draft more next time; a rejection: draft what would have passed, and one more;
    // either at most the length that gives the most tokens per second.
    length_ = accepted == drafted ? std::min(most, length_ + std::max(1, length_ / 2))
                                  : std::clamp(accepted + 1, 1, most);
    length_ = std::min(length_, best_length());
    // The first pass after a pause for not paying is a probe: if nothing of it passed, the pause
    // starts again (twice as long) before the pass enters a window (empty since the pause), so
    // that where drafts fail each try costs one pass's drafted rows, not a window of 4 passes'.
    if (probing_) {
        probing_ = false;
        if (accepted == 0) {
            pause();
            return;
        }
    }
    window_drafted_ += drafted;
    window_seconds_ += seconds;
    // A draft model not yet shown to pay (new, or tried again after failing whole replies) is
    // judged after fewer passes: a pair that agrees fails two passes running rarely, and each
    // pass of one that fails costs a step of the draft (the price of a target's step and more
    // where the draft is a low-bit copy of the target).
    const int32_t window = unproven_draft_ && stats_.verify_passes <= kFirstWindow ? kFirstWindow : kWindow;
    if (++window_passes_ < window) return;
    // A pass that drafts k tokens costs about 1 + c k decoded tokens and gives 1 + a k, with a the
    // acceptance rate and c a drafted token's cost: it cannot pay unless a exceeds c. Where both
    // were timed, it pays while its time per token (each pass gives its accepted tokens and one
    // more) is below a plain step's.
    // A drafter that always drafts leaves no plain step to time: every few judgements (and at
    // the first) one step goes plain, so that the comparison below has a current plain time.
    const bool time_a_plain_step = plain_seconds_ == 0 || ++judgements_ % kJudgementsPerPlainStep == 0;
    // Judged on the decaying sums rather than the window's passes alone: where drafted rows are
    // dear (a CPU whose decode is compute-bound) speculation gains ~10-30%, and four passes of bad
    // luck would pause it again and again (in simulation, x1.11 instead of x1.25 at 80% right).
    const double seconds_per_token = recent_seconds_ / recent_tokens_;
    const bool slower = plain_seconds_ > 0 && recent_seconds_ > 0 && seconds_per_token > plain_seconds_;
    // Even were every drafted token accepted, a pass would give them and one more: where that is
    // still slower per token than a plain step (a draft model as slow as the target) in two
    // judgements running (one could be a hiccup of the machine), drafting stops for the reply,
    // rather than pausing and paying the draft's catch-up again and again.
    const double best_seconds_per_token = window_seconds_ / (window_passes_ + window_drafted_);
    const bool hopeless =
        plain_seconds_ > 0 && window_seconds_ > 0 && best_seconds_per_token > plain_seconds_;
    hopeless_judgements_ = hopeless ? hopeless_judgements_ + 1 : 0;
    if (hopeless_judgements_ >= 2) never_pays_ = true;
    // A draft model none of whose tokens passed in its first judgement (2 passes until it has paid
    // once, 4 after; a real pair agrees on most tokens, and one right 80% of the time fails 2
    // passes running once in 25) stops for the reply: were it paused, each resume would first
    // catch up on the paused tokens, which costs more than the passes.
    if (draft_ && stats_.accepted == 0) never_pays_ = true;
    if (never_pays_ && draft_) draft_->record_reply(false);
    // The acceptance judged on the decaying counts too, not on the window alone: a window of 4
    // passes of which none passed happens once in 120 windows to a drafter right 70% of the time,
    // and a pause then costs it 32 tokens at plain speed.
    const double acceptance = judged_accepted_ / (judged_accepted_ + judged_rejected_);
    if (acceptance < cost_per_drafted_ || slower) {
        pause();
    } else {
        pause_length_ = kFirstPause;
        if (time_a_plain_step) paused_for_ = 1;
        // A draft model that pays reads the whole history again (DraftModel::follows_whole_history).
        if (draft_ && stats_.accepted > 0 && !never_pays_) draft_->record_reply(true);
    }
    window_passes_ = window_drafted_ = 0;
    window_seconds_ = 0;
}

void SpeculativeDecoder::pause() {
    paused_for_ = pause_length_;
    pause_length_ = std::min(kLongestPause, pause_length_ * 2);
    length_ = 1;
    probing_ = true;
}

} // namespace hearth::engine
