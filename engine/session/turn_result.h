#pragma once
// What one turn of a conversation reports: the reply's figures and how the conversation's KV
// cache came into memory for it. Plain values, so that the app can carry them across threads
// as they are.
#include "engine/session/stop_reason.h"
#include <cstdint>
#include <string>

namespace hearth::engine {

struct TurnStats {
    int32_t prompt_tokens = 0;   // tokens of the rendered conversation in the model's view
    int32_t reused_tokens = 0;   // of those, already in the cache
    int32_t computed_tokens = 0; // of those, prefilled now
    int32_t generated_tokens = 0;
    double prefill_seconds = 0;
    double time_to_first_token = 0; // seconds from the call to the first sampled token
    double decode_seconds = 0;
    int32_t context_shifts = 0;     // times older turns left the model's view during this reply
    int32_t shifted_out_tokens = 0; // tokens of the conversation out of the model's view after this reply
    int32_t n_keep = 0;             // tokens kept at the start when shifting (when context_shifted)
    // Turns of the conversation wholly out of the model's view after this reply are
    // [0, first_visible_turn), not counting system turns (a shift keeps them). 0 when
    // nothing is shifted out; the conversation's size when every turn is.
    int32_t first_visible_turn = 0;
    StopReason stop_reason = StopReason::Length;
    // Speculative decoding: whether it ran (a drafter was on and usable), verify passes that
    // carried drafted tokens, tokens drafted, of those accepted; and why it did not run (a draft
    // model refused or unreadable), empty otherwise.
    bool speculative = false;
    int32_t verify_passes = 0;
    int32_t drafted_tokens = 0;
    int32_t accepted_tokens = 0;
    std::string speculation_error;
    // Images: those whose positions this turn's prefill evaluated, their positions, how many of
    // them were encoded now (the others' vectors came from the cache, by content), and the time
    // the encoding took. An image already in the KV cache counts in none of these.
    int32_t images = 0;
    int32_t image_positions = 0;
    int32_t images_encoded = 0;
    double image_encode_seconds = 0;
    bool context_shifted() const { return context_shifts > 0; }
    double prefill_tokens_per_second() const {
        return prefill_seconds > 0 ? computed_tokens / prefill_seconds : 0.0;
    }
    double decode_tokens_per_second() const {
        return decode_seconds > 0 ? generated_tokens / decode_seconds : 0.0;
    }
    // Of the drafted tokens, the share accepted (0 when none was drafted).
    double acceptance_rate() const {
        return drafted_tokens > 0 ? static_cast<double>(accepted_tokens) / drafted_tokens : 0.0;
    }
    // Tokens a verify pass gave the reply: the accepted ones and the one the pass itself samples.
    double tokens_per_verify_pass() const {
        return verify_passes > 0 ? static_cast<double>(accepted_tokens + verify_passes) / verify_passes : 0.0;
    }
};

// What happened when a conversation came into memory.
struct ResumeInfo {
    bool from_memory = false; // it was already there
    bool restored = false;    // it was read from a saved state
    bool branch = false;      // that state was one of its branches' (the turn switched to it)
    int32_t tokens = 0;       // tokens the restored cache holds
    double seconds = 0;       // time to restore
    std::string reason;       // why a saved state was not used, if there was one
};

// All one turn tells: the reply's figures (stats.first_visible_turn among them: the turns
// shifted wholly out of the model's view) and how the conversation came into memory for it.
struct TurnResult {
    TurnStats stats;
    ResumeInfo resume;
};

} // namespace hearth::engine
