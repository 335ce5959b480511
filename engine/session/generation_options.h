#pragma once
// How one reply is generated: the sampling, its length limit, the template, what a context
// shift keeps, and speculative decoding. Plain values, so that the app can send them across
// threads as they are.
#include "engine/sampling/sampler.h"
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

namespace hearth::engine {

class Model;

// Speculative decoding (speculative_decoder.h): a drafter proposes the next tokens, one forward
// pass of the target checks them all, and the accepted ones cost no pass of their own. The reply
// is the one plain decoding gives: token for token when greedy, in distribution when sampling.
struct SpeculationOptions {
    enum class Drafter {
        Off,
        PromptLookup, // what followed the last lookup_ngram tokens earlier in the conversation
        DraftModel,   // a smaller model with the target's vocabulary, drafting greedily
        Custom,       // `custom` (tests, experiments)
    };
    Drafter drafter = Drafter::Off;
    int32_t lookup_ngram = 3;                 // 1..4: the longest suffix looked up (shorter ones after it)
    std::string draft_model_path;             // DraftModel: loaded on first use, unless draft_model is set
    std::shared_ptr<const Model> draft_model; // DraftModel: already loaded
    // Custom: writes up to out.size() tokens to follow `history` (the logical conversation so
    // far), returns how many; each is a point mass for the acceptance rule. Must not allocate.
    std::function<int32_t(std::span<const int32_t> history, std::span<int32_t> out)> custom;
    int32_t max_draft = 8; // most tokens drafted for one verify pass (1..16)
    bool adaptive = true;  // draft length from the acceptance rate, off when it stops paying
};

struct GenerationOptions {
    SamplingParams sampling;
    int32_t max_tokens = 512;
    std::string template_override; // Jinja source; empty: the model's template (ChatML if none)
    // Tokens a context shift never drops; -1: those of the system prompt (or the BOS token).
    int32_t n_keep = -1;
    SpeculationOptions speculation;
};

} // namespace hearth::engine
