#pragma once
// A JSON Schema, the subset people use for structured output, as a GBNF grammar whose every
// sentence is a JSON text the schema accepts:
// - "type" (one or a list): object, array, string, number, integer, boolean, null;
// - objects: "properties" in the schema's order, "required" (the others may be left out),
//   "additionalProperties" (no other property is ever generated);
// - "enum", "const"; "anyOf", "oneOf" (its branches should not overlap);
// - arrays: "items", "minItems", "maxItems";
// - strings: "minLength", "maxLength", "pattern" (a plain regex: regex_grammar.h), and "format"
//   date, time, date-time and uuid;
// - no keyword at all: any JSON value.
// Whitespace between tokens is short and bounded, numbers have at most 16 digits before and
// after the point and an exponent below 100 (a double holds them), so a generation ends.
// Anything else that constrains values (minimum, $ref, allOf, ...) is refused, naming the
// keyword's JSON pointer.
#include "engine/grammar/grammar.h"
#include <nlohmann/json.hpp>
#include <string>

namespace hearth::engine {

// Throws GrammarError("<source>: <JSON pointer>: <reason>").
std::string json_schema_to_gbnf(const nlohmann::ordered_json& schema, const std::string& source = "schema");

// Parses the text as JSON first (its errors name the byte offset).
std::string json_schema_to_gbnf(const std::string& schema_text, const std::string& source = "schema");

} // namespace hearth::engine
