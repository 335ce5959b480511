#pragma once
// How one reply is generated: the sampling, its length limits, the template, what a context
// shift keeps, and a grammar the reply must follow. Plain values (the grammar is immutable and
// shared), so that the app can send them across threads as they are.
#include "engine/grammar/grammar.h"
#include "engine/sampling/sampler.h"
#include <cstdint>
#include <memory>
#include <string>

namespace hearth::engine {

struct GenerationOptions {
    SamplingParams sampling;
    int32_t max_tokens = 512;
    // true: the reply also ends where the context is full, so that the conversation it answers
    // stays in view; false: older turns are shifted out to make room as it goes on.
    bool end_at_full_context = false;
    std::string template_override; // Jinja source; empty: the model's template (ChatML if none)
    // Tokens a context shift never drops; -1: those of the system prompt (or the BOS token).
    int32_t n_keep = -1;
    // The BOS token before the prompt where the model's tokenizer adds one; false: never.
    bool add_bos = true;
    // The reply is a sentence of this grammar (gbnf_parser.h, json_schema_grammar.h); null: free
    // text. The reply ends when the grammar is complete and nothing more can follow, or at an end
    // token once it is complete; max_tokens still bounds it (its stop reason is then Length).
    std::shared_ptr<const Grammar> grammar;
};

// A template that writes the messages' text as it is, with nothing around it: a raw prompt
// (the API's /v1/completions, hearth-cli generate) is one user message under it.
inline constexpr const char* kRawPromptTemplate =
    "{% for message in messages %}{{ message.content }}{% endfor %}";

} // namespace hearth::engine
