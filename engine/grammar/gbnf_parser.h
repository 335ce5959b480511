#pragma once
// llama.cpp's GBNF notation (its grammars/README.md) read into a Grammar:
//   name ::= alternatives, one rule a line (a line may go on after "|", inside parentheses, or
//   with a next line that begins with "|"); "literal" strings, [a-z] and [^...] classes, "."
//   for any character, ( groups ), postfix *, +, ?, {m}, {m,}, {m,n}; # comments; escapes
//   \n \r \t \\ \" \[ \] \- \xHH \uHHHH \UHHHHHHHH. The rule "root" is the start.
// Refused with the line, the column and the reason: bad syntax, a rule used but never defined,
// a missing root, a rule defined twice, and left recursion (which no left-to-right matcher ends).
#include "engine/grammar/grammar.h"
#include <string_view>

namespace hearth::engine {

// Throws GrammarError("<source>: line L, column C: <reason>").
Grammar parse_gbnf(std::string_view text, std::string_view source = "grammar");

} // namespace hearth::engine
