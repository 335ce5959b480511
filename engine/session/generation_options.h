#pragma once
// How one reply is generated: the sampling, its length limits, the template, what a context
// shift keeps, a grammar the reply must follow, and speculative decoding. Plain values (the
// grammar and a draft model are immutable and shared), so that the app can send them across
// threads as they are.
#include "engine/grammar/grammar.h"
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
    // true: the reply also ends where the context is full, so that the conversation it answers
    // stays in view; false: older turns are shifted out to make room as it goes on.
    bool end_at_full_context = false;
    std::string template_override; // Jinja source; empty: the model's template (ChatML if none)
    // The template's `tools` variable: OpenAI's JSON array of tools, as text; empty: none.
    std::string tools_json;
    // Tokens a context shift never drops; -1: those of the system prompt (or the BOS token).
    int32_t n_keep = -1;
    // The BOS token before the prompt where the model's tokenizer adds one; false: never.
    bool add_bos = true;
    // The reply is a sentence of this grammar (gbnf_parser.h, json_schema_grammar.h); null: free
    // text. The reply ends when the grammar is complete and nothing more can follow, or at an end
    // token once it is complete; max_tokens still bounds it (its stop reason is then Length).
    std::shared_ptr<const Grammar> grammar;
    // Not combined with a grammar: a reply under one decodes plainly.
    SpeculationOptions speculation;
};

// A template that writes the messages' text as it is, with nothing around it: a raw prompt
// (the API's /v1/completions, hearth-cli generate) is one user message under it.
inline constexpr const char* kRawPromptTemplate =
    "{% for message in messages %}{{ message.content }}{% endfor %}";

} // namespace hearth::engine
