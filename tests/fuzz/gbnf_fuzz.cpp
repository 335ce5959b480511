// Fuzz target: the GBNF reader and the grammar matcher (engine/grammar). The input is a grammar,
// then a NUL byte, then a text. Besides not crashing or hanging: a refusal is a GrammarError
// naming the line and column; on a grammar that reads, the text is matched byte by byte, a state
// that is finished is also accepting, and matching the text at once agrees with matching it byte
// by byte. A grammar too ambiguous to match says so (GrammarError), at once and byte by byte.
#include "engine/grammar/gbnf_parser.h"
#include "engine/grammar/grammar_matcher.h"
#include "tests/fuzz/fuzz_support.h"
#include <memory>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hearth::engine;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const size_t split = input.find('\0');
    const std::string_view grammar_text = input.substr(0, split);
    const std::string_view text =
        split == std::string_view::npos ? std::string_view() : input.substr(split + 1);
    std::shared_ptr<const Grammar> grammar;
    try {
        grammar = std::make_shared<const Grammar>(parse_gbnf(grammar_text, "fuzz.gbnf"));
    } catch (const GrammarError& e) {
        if (std::string_view(e.what()).find("fuzz.gbnf: line ") != 0)
            hearth::fuzz::invariant_failed(std::string("an error without its line: ") + e.what());
        return 0;
    }
    bool whole_refused = false;
    try {
        GrammarMatcher matcher(grammar);
        GrammarState whole;
        bool read = false;
        try {
            whole = matcher.start();
            read = matcher.advance(whole, text);
        } catch (const GrammarError&) {
            whole_refused = true;
            throw;
        }
        GrammarState state = matcher.start();
        GrammarState next;
        bool alive = true;
        for (const char byte : text) {
            if (GrammarMatcher::finished(state) && !GrammarMatcher::accepting(state))
                hearth::fuzz::invariant_failed("finished but not accepting");
            if (!matcher.advance(state, static_cast<uint8_t>(byte), next)) {
                alive = false;
                break;
            }
            std::swap(state, next);
        }
        if (alive != read) hearth::fuzz::invariant_failed("byte by byte and at once disagree");
        if (read && GrammarMatcher::accepting(whole) != GrammarMatcher::accepting(state))
            hearth::fuzz::invariant_failed("byte by byte and at once accept differently");
    } catch (const GrammarError& e) {
        if (std::string_view(e.what()).find("the grammar is too ambiguous: ") != 0)
            hearth::fuzz::invariant_failed(std::string("an unexpected matching error: ") + e.what());
        if (!whole_refused) hearth::fuzz::invariant_failed("too ambiguous byte by byte only");
    }
    return 0;
}
