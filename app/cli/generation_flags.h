#pragma once
// The flags that shape a reply beyond its sampling, shared by the commands that generate:
//   --lookup N        speculative decoding with prompt lookup (the last 1-4 tokens looked up)
//   --draft MODEL     speculative decoding with a draft model of the same vocabulary
//   --draft-max K     the most tokens drafted for one verify pass (1-16, default 8)
//   --grammar FILE    the reply follows a GBNF grammar
//   --json-schema FILE  the reply is JSON the schema accepts
// A bad grammar or schema is an error naming the file, the line and column, and the reason.
#include "app/cli/cli_args.h"
#include "engine/session/generation_options.h"
#include <set>
#include <string>

namespace hearth::cli {

// Their names, for Args' value options.
std::set<std::string> generation_value_options();
// Sets options.speculation and options.grammar from the flags present.
void apply_generation_flags(const Args& args, engine::GenerationOptions& options);

// The speculation flags alone (--lookup, --draft, --draft-max), for what decodes without a
// grammar of its own: serve (one setting for every request) and hearth-bench.
std::set<std::string> speculation_value_options();
void apply_speculation_flags(const Args& args, engine::SpeculationOptions& speculation);
// "prompt lookup (3 tokens), up to 8 drafted", "draft model FILE, up to 8 drafted", or "off".
std::string describe_speculation(const engine::SpeculationOptions& speculation);

} // namespace hearth::cli
