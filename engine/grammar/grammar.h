#pragma once
// A context-free grammar over Unicode code points, compiled for matching: every rule is a list
// of alternatives, every alternative a run of elements (a character set or a reference to a
// rule) ending in End, all in one flat array. Groups and repetitions of the notation are
// rules of their own. Read from llama.cpp's GBNF notation (gbnf_parser.h); JSON Schemas are
// turned into it (json_schema_grammar.h). Immutable once built: one grammar serves any number
// of generations at once.
#include "engine/error.h"
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hearth::engine {

// A grammar or schema that cannot be used: the message names where ("line 3, column 14" or a
// JSON pointer) and why.
class GrammarError : public Error {
public:
    using Error::Error;
};

struct CharRange {
    uint32_t first = 0;
    uint32_t last = 0; // inclusive
};

// A set of code points: ranges, or everything but them.
struct CharSet {
    std::vector<CharRange> ranges;
    bool negated = false;
    std::array<uint64_t, 2> ascii{}; // the answer for code points below 128, precomputed

    void finish(); // fills `ascii` from the ranges
    [[nodiscard]] bool matches(uint32_t c) const {
        if (c < 128) return (ascii[c >> 6] >> (c & 63)) & 1;
        bool in = false;
        for (const CharRange& r : ranges)
            in = in || (c >= r.first && c <= r.last);
        return in != negated;
    }
    // Whether some code point in [first, last] matches (a character whose first bytes came).
    [[nodiscard]] bool matches_some(uint32_t first, uint32_t last) const;
};

struct GrammarElement {
    enum class Kind : uint8_t { End, Chars, Rule };
    Kind kind = Kind::End;
    uint32_t index = 0; // the char set or the rule
};

struct Grammar {
    std::vector<GrammarElement> code;
    std::vector<std::vector<uint32_t>> alternatives; // per rule: where each alternative starts in code
    std::vector<CharSet> char_sets;
    std::vector<std::string> rule_names;
    uint32_t root = 0;
};

} // namespace hearth::engine
