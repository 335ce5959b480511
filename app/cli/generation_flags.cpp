#include "app/cli/generation_flags.h"
#include "app/cli/text_file.h"
#include "engine/grammar/gbnf_parser.h"
#include "engine/grammar/json_schema_grammar.h"
#include <memory>

namespace hearth::cli {

std::set<std::string> speculation_value_options() {
    return {"--lookup", "--draft", "--draft-max"};
}

std::set<std::string> generation_value_options() {
    std::set<std::string> names = speculation_value_options();
    names.insert({"--grammar", "--json-schema"});
    return names;
}

void apply_speculation_flags(const Args& args, engine::SpeculationOptions& speculation) {
    using Drafter = engine::SpeculationOptions::Drafter;
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
}

std::string describe_speculation(const engine::SpeculationOptions& speculation) {
    using Drafter = engine::SpeculationOptions::Drafter;
    const std::string most = ", up to " + std::to_string(speculation.max_draft) + " drafted";
    switch (speculation.drafter) {
    case Drafter::PromptLookup:
        return "prompt lookup (" + std::to_string(speculation.lookup_ngram) + " tokens)" + most;
    case Drafter::DraftModel:
        return "draft model " + speculation.draft_model_path + most;
    case Drafter::Custom:
        return "custom drafter" + most;
    case Drafter::Off:
        break;
    }
    return "off";
}

void apply_generation_flags(const Args& args, engine::GenerationOptions& options) {
    apply_speculation_flags(args, options.speculation);

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
