#pragma once
// How one reply is generated: the sampling, its length limit, the template, what a context
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
    std::string template_override; // Jinja source; empty: the model's template (ChatML if none)
    // Tokens a context shift never drops; -1: those of the system prompt (or the BOS token).
    int32_t n_keep = -1;
    // The reply is a sentence of this grammar (gbnf_parser.h, json_schema_grammar.h); null: free
    // text. The reply ends when the grammar is complete and nothing more can follow, or at an end
    // token once it is complete; max_tokens still bounds it (its stop reason is then Length).
    std::shared_ptr<const Grammar> grammar;
};

} // namespace hearth::engine
