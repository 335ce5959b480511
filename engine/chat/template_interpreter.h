#pragma once
// Runs a parsed template against a context and returns the text it renders.
#include "engine/chat/template_ast.h"
#include "engine/chat/template_builtins.h"
#include "engine/chat/template_value.h"
#include <cstddef>
#include <string>

namespace hearth::chat {

struct RenderLimits {
    size_t max_output_bytes = 16u << 20;      // also bounds every string a template builds
    int max_call_depth = 100;                 // nested macro calls
    int max_eval_depth = 2000;                // nested evaluation, whatever causes it
    int64_t max_loop_iterations = 10'000'000; // in all loops of one rendering together
};

// Throws TemplateFailure (located where possible) on any runtime error,
// including raise_exception (with raised set).
std::string run_template(const Body& body, const Dict& context, const GlobalOptions& globals,
                         const RenderLimits& limits);

} // namespace hearth::chat
