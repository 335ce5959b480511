#include "app/cli/generation_flags.h"
#include "app/cli/text_file.h"
#include "engine/grammar/gbnf_parser.h"
#include "engine/grammar/json_schema_grammar.h"
#include <memory>

namespace hearth::cli {

std::set<std::string> generation_value_options() {
    return {"--lookup", "--draft", "--draft-max", "--grammar", "--json-schema"};
}

void apply_generation_flags(const Args& args, engine::GenerationOptions& options) {
    using Drafter = engine::SpeculationOptions::Drafter;
    engine::SpeculationOptions& speculation = options.speculation;
    if (args.value("--lookup")) {
        const int n = args.get_int("--lookup", 3);
        if (n < 1 || n > 4) throw ArgError("--lookup expects 1 to 4 (the tokens looked up)");
        speculation.drafter = Drafter::PromptLookup;
        speculation.lookup_ngram = n;
    }
    if (auto draft = args.value("--draft")) {
        if (speculation.drafter != Drafter::Off) throw ArgError("--draft and --lookup exclude each other");
        speculation.drafter = Drafter::DraftModel;
        speculation.draft_model_path = *draft;
    }
    if (args.value("--draft-max")) {
        const int k = args.get_int("--draft-max", speculation.max_draft);
        if (k < 1 || k > 16) throw ArgError("--draft-max expects 1 to 16");
        speculation.max_draft = k;
    }

    const auto grammar_file = args.value("--grammar");
    const auto schema_file = args.value("--json-schema");
    if (grammar_file && schema_file) throw ArgError("--grammar and --json-schema exclude each other");
    if (grammar_file)
        options.grammar = std::make_shared<const engine::Grammar>(
            engine::parse_gbnf(read_text_file(*grammar_file), *grammar_file));
    if (schema_file)
        options.grammar = std::make_shared<const engine::Grammar>(engine::parse_gbnf(
            engine::json_schema_to_gbnf(read_text_file(*schema_file), *schema_file), *schema_file));
}

} // namespace hearth::cli
