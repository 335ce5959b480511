#include "engine/grammar/json_schema_grammar.h"
#include "engine/grammar/regex_grammar.h"
#include <map>
#include <set>

namespace hearth::engine {

namespace {

using json = nlohmann::ordered_json; // the properties in the order the schema lists them

// The JSON building blocks, named as the rules that use them.
const std::map<std::string, std::string>& primitive_rules() {
    static const std::map<std::string, std::string> rules{
        {"ws", R"(| " " | "\n" [ \t]{0,8})"},
        {"boolean", R"("true" | "false")"},
        {"null", R"("null")"},
        {"integer", R"("-"? ("0" | [1-9] [0-9]{0,15}))"},
        {"number", R"("-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,16})? ([eE] [-+]? [1-9] [0-9]?)?)"},
        // \u escapes without the surrogates, which JSON readers refuse alone.
        {"char",
         R"([^"\\\x00-\x1F] | "\\" (["\\/bfnrt] | "u" ([0-9a-cA-CeEfF] [0-9a-fA-F]{3} | [dD] [0-7] [0-9a-fA-F]{2})))"},
        {"string", R"("\"" char* "\"")"},
        {"value", R"(object | array | string | number | boolean | null)"},
        {"object", R"("{" ws (string ws ":" ws value ws ("," ws string ws ":" ws value ws)*)? "}")"},
        {"array", R"("[" ws (value ws ("," ws value ws)*)? "]")"},
        {"date", R"([0-9]{4} "-" ("0" [1-9] | "1" [0-2]) "-" ("0" [1-9] | [1-2] [0-9] | "3" [0-1]))"},
        {"time",
         R"(([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ("." [0-9]{1,6})? ("Z" | [+-] ([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9]))"},
        {"hex", R"([0-9a-f])"},
        {"uuid", R"(hex{8} "-" hex{4} "-" hex{4} "-" hex{4} "-" hex{12})"},
    };
    return rules;
}

// What each primitive rule needs besides itself.
const std::map<std::string, std::vector<std::string>>& primitive_needs() {
    static const std::map<std::string, std::vector<std::string>> needs{
        {"string", {"char"}},
        {"value", {"object", "array", "string", "number", "boolean", "null"}},
        {"object", {"ws", "string", "value"}},
        {"array", {"ws", "value"}},
        {"uuid", {"hex"}},
    };
    return needs;
}

const std::set<std::string> kUnsupported{"$ref",
                                         "allOf",
                                         "not",
                                         "if",
                                         "then",
                                         "else",
                                         "minimum",
                                         "maximum",
                                         "exclusiveMinimum",
                                         "exclusiveMaximum",
                                         "multipleOf",
                                         "patternProperties",
                                         "prefixItems",
                                         "uniqueItems",
                                         "minProperties",
                                         "maxProperties",
                                         "dependentRequired",
                                         "dependentSchemas",
                                         "propertyNames",
                                         "contains",
                                         "unevaluatedProperties",
                                         "unevaluatedItems"};

std::string escape_pointer(const std::string& key) {
    std::string out;
    for (const char c : key) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out += c;
        }
    }
    return out;
}

class SchemaConverter {
public:
    explicit SchemaConverter(std::string source) : source_(std::move(source)) {}

    std::string convert(const json& schema) {
        const std::string root = visit(schema, "");
        std::string out = "root ::= " + root + "\n";
        for (const auto& [name, body] : rules_)
            out += name + " ::= " + body + "\n";
        return out;
    }

private:
    [[noreturn]] void fail(const std::string& pointer, const std::string& why) const {
        throw GrammarError(source_ + ": " + (pointer.empty() ? std::string("/") : pointer) + ": " + why);
    }

    std::string use_primitive(const std::string& name) {
        if (rules_.count(name)) return name;
        rules_[name] = primitive_rules().at(name);
        if (const auto needs = primitive_needs().find(name); needs != primitive_needs().end())
            for (const std::string& other : needs->second)
                use_primitive(other);
        return name;
    }

    // A rule of its own for a part of the schema (named by a counter), so that the root stays short.
    std::string add_rule(const std::string& body) {
        if (const auto found = by_body_.find(body); found != by_body_.end()) return found->second;
        const std::string name = "part" + std::to_string(rules_.size());
        rules_[name] = body;
        by_body_[body] = name;
        return name;
    }

    static std::string literal_of(const json& value) { return gbnf_literal(value.dump()); }

    std::string alternatives(const json& list, const std::string& pointer, const char* keyword) {
        if (!list.is_array() || list.empty())
            fail(pointer, std::string("'") + keyword + "' must be a non-empty array");
        std::string out;
        for (size_t i = 0; i < list.size(); ++i)
            out += (i ? " | " : "") + visit(list[i], pointer + "/" + std::to_string(i));
        return add_rule(out);
    }

    uint64_t count(const json& schema, const char* keyword, const std::string& pointer, uint64_t fallback) {
        if (!schema.contains(keyword)) return fallback;
        const json& v = schema[keyword];
        if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
            fail(pointer + "/" + keyword, "expected a non-negative integer");
        const auto n = v.get<uint64_t>();
        if (n > 10000) fail(pointer + "/" + keyword, "more than 10000 is not supported");
        return n;
    }

    std::string visit(const json& schema, const std::string& pointer) {
        if (schema.is_boolean()) {
            if (!schema.get<bool>()) fail(pointer, "the schema 'false' accepts nothing");
            return use_primitive("value");
        }
        if (!schema.is_object()) fail(pointer, "a schema must be an object or a boolean");
        for (const auto& [key, value] : schema.items())
            if (kUnsupported.count(key))
                fail(pointer + "/" + escape_pointer(key), "'" + key + "' is not supported");
        if (schema.contains("const")) return literal_of(schema["const"]);
        if (schema.contains("enum")) {
            const json& values = schema["enum"];
            if (!values.is_array() || values.empty())
                fail(pointer + "/enum", "'enum' must be a non-empty array");
            std::string out;
            for (size_t i = 0; i < values.size(); ++i)
                out += (i ? " | " : "") + literal_of(values[i]);
            return add_rule(out);
        }
        if (schema.contains("anyOf")) return alternatives(schema["anyOf"], pointer + "/anyOf", "anyOf");
        if (schema.contains("oneOf")) return alternatives(schema["oneOf"], pointer + "/oneOf", "oneOf");

        if (schema.contains("type")) {
            const json& type = schema["type"];
            if (type.is_string()) return typed(schema, type.get<std::string>(), pointer);
            if (!type.is_array() || type.empty())
                fail(pointer + "/type", "'type' must be a type name or a non-empty list of them");
            std::string out;
            for (size_t i = 0; i < type.size(); ++i) {
                if (!type[i].is_string())
                    fail(pointer + "/type/" + std::to_string(i), "expected a type name");
                out += (i ? " | " : "") + typed(schema, type[i].get<std::string>(), pointer);
            }
            return add_rule(out);
        }
        if (schema.contains("properties")) return typed(schema, "object", pointer);
        if (schema.contains("items")) return typed(schema, "array", pointer);
        if (schema.contains("pattern") || schema.contains("format") || schema.contains("minLength") ||
            schema.contains("maxLength"))
            return typed(schema, "string", pointer);
        return use_primitive("value");
    }

    std::string typed(const json& schema, const std::string& type, const std::string& pointer) {
        if (type == "object") return object(schema, pointer);
        if (type == "array") return array(schema, pointer);
        if (type == "string") return string(schema, pointer);
        if (type == "number" || type == "integer" || type == "boolean" || type == "null")
            return use_primitive(type);
        fail(pointer + "/type", "unknown type '" + type + "'");
    }

    std::string object(const json& schema, const std::string& pointer) {
        if (schema.contains("additionalProperties")) {
            const json& additional = schema["additionalProperties"];
            if (!additional.is_boolean() && !additional.is_object())
                fail(pointer + "/additionalProperties", "expected a boolean or a schema");
        }
        if (!schema.contains("properties")) {
            // No properties named: with additionalProperties false only {}, else any object.
            const auto additional = schema.find("additionalProperties");
            if (additional != schema.end() && additional->is_boolean() && !additional->get<bool>())
                return add_rule(R"("{" )" + use_primitive("ws") + R"( "}")");
            return use_primitive("object");
        }
        const json& properties = schema["properties"];
        if (!properties.is_object()) fail(pointer + "/properties", "'properties' must be an object");
        std::set<std::string> required;
        if (schema.contains("required")) {
            const json& list = schema["required"];
            if (!list.is_array()) fail(pointer + "/required", "'required' must be an array");
            for (size_t i = 0; i < list.size(); ++i) {
                if (!list[i].is_string()) fail(pointer + "/required/" + std::to_string(i), "expected a name");
                const std::string name = list[i].get<std::string>();
                if (!properties.contains(name))
                    fail(pointer + "/required/" + std::to_string(i),
                         "'" + name + "' is required but not among the properties");
                required.insert(name);
            }
        }
        const std::string ws = use_primitive("ws");
        std::vector<std::string> required_pairs;
        std::vector<std::string> optional_pairs;
        for (const auto& [name, property] : properties.items()) {
            const std::string value = visit(property, pointer + "/properties/" + escape_pointer(name));
            const std::string pair = add_rule(gbnf_literal(json(name).dump()) + " " + ws + R"( ":" )" + ws +
                                              " " + value + " " + ws);
            (required.count(name) ? required_pairs : optional_pairs).push_back(pair);
        }
        std::string body = R"("{" )" + ws;
        for (size_t i = 0; i < required_pairs.size(); ++i)
            body += (i ? R"( "," )" + ws + " " : " ") + required_pairs[i];
        if (!optional_pairs.empty()) {
            if (!required_pairs.empty()) {
                for (const std::string& pair : optional_pairs)
                    body += R"( ("," )" + ws + " " + pair + ")?";
            } else {
                // Any in-order subset: one of them first, then any of those after it.
                std::string choices;
                for (size_t first = 0; first < optional_pairs.size(); ++first) {
                    std::string tail = optional_pairs[first];
                    for (size_t next = first + 1; next < optional_pairs.size(); ++next)
                        tail += R"( ("," )" + ws + " " + optional_pairs[next] + ")?";
                    choices += (first ? " | " : "") + tail;
                }
                body += " (" + add_rule(choices) + ")?";
            }
        }
        return add_rule(body + R"( "}")");
    }

    std::string array(const json& schema, const std::string& pointer) {
        const std::string item =
            schema.contains("items") ? visit(schema["items"], pointer + "/items") : use_primitive("value");
        const uint64_t min = count(schema, "minItems", pointer, 0);
        const bool bounded = schema.contains("maxItems");
        const uint64_t max = count(schema, "maxItems", pointer, 0);
        if (bounded && max < min) fail(pointer + "/maxItems", "'maxItems' is below 'minItems'");
        const std::string ws = use_primitive("ws");
        const std::string one = item + " " + ws;
        if (bounded && max == 0) return add_rule(R"("[" )" + ws + R"( "]")");
        const std::string more_min = std::to_string(min == 0 ? 0 : min - 1);
        const std::string more = R"(("," )" + ws + " " + one + "){" + more_min + "," +
                                 (bounded ? std::to_string(max - 1) : std::string()) + "}";
        const std::string list = one + " " + more;
        return add_rule(R"("[" )" + ws + " " + (min == 0 ? "(" + list + ")?" : list) + R"( "]")");
    }

    std::string string(const json& schema, const std::string& pointer) {
        if (schema.contains("pattern")) {
            const json& pattern = schema["pattern"];
            if (!pattern.is_string()) fail(pointer + "/pattern", "expected a string");
            try {
                return add_rule(R"("\"" ()" + regex_to_gbnf(pattern.get<std::string>()) + R"() "\"")");
            } catch (const GrammarError& e) {
                fail(pointer + "/pattern", e.what());
            }
        }
        if (schema.contains("format")) {
            const json& format = schema["format"];
            const std::string name = format.is_string() ? format.get<std::string>() : std::string();
            if (name == "date" || name == "time" || name == "uuid")
                return add_rule(R"("\"" )" + use_primitive(name) + R"( "\"")");
            if (name == "date-time")
                return add_rule(R"("\"" )" + use_primitive("date") + R"( "T" )" + use_primitive("time") +
                                R"( "\"")");
            fail(pointer + "/format",
                 "the format '" + name + "' is not supported (date, time, date-time, uuid are)");
        }
        const uint64_t min = count(schema, "minLength", pointer, 0);
        const bool bounded = schema.contains("maxLength");
        const uint64_t max = count(schema, "maxLength", pointer, 0);
        if (bounded && max < min) fail(pointer + "/maxLength", "'maxLength' is below 'minLength'");
        if (min == 0 && !bounded) return use_primitive("string");
        use_primitive("char");
        return add_rule(R"("\"" char{)" + std::to_string(min) + "," +
                        (bounded ? std::to_string(max) : std::string()) + R"(} "\"")");
    }

    std::string source_;
    std::map<std::string, std::string> rules_;
    std::map<std::string, std::string> by_body_;
};

} // namespace

std::string json_schema_to_gbnf(const nlohmann::ordered_json& schema, const std::string& source) {
    return SchemaConverter(source).convert(schema);
}

std::string json_schema_to_gbnf(const std::string& schema_text, const std::string& source) {
    json schema;
    try {
        schema = json::parse(schema_text);
    } catch (const json::parse_error& e) {
        throw GrammarError(source + ": not JSON (byte " + std::to_string(e.byte) + "): " + e.what());
    }
    return json_schema_to_gbnf(schema, source);
}

} // namespace hearth::engine
