#pragma once
// A JSON Schema validator for the subset json_schema_grammar.h generates (types, properties,
// required, additionalProperties, enum, const, anyOf, oneOf, items, minItems, maxItems,
// minLength, maxLength, pattern, the formats date, time, date-time and uuid), written apart
// from the generator, so that the tests judge its output independently. Empty: valid; else why not.
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

namespace hearth::test {

inline size_t code_points(const std::string& text) {
    size_t n = 0;
    for (const char c : text)
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
}

inline std::string schema_violation(const nlohmann::json& value, const nlohmann::json& schema,
                                    const std::string& at = "$") {
    using nlohmann::json;
    if (schema.is_boolean()) return schema.get<bool>() ? "" : at + ": false schema";
    if (schema.contains("const") && value != schema["const"]) return at + ": not the const";
    if (schema.contains("enum")) {
        bool found = false;
        for (const json& v : schema["enum"])
            found = found || v == value;
        if (!found) return at + ": not in the enum";
    }
    if (schema.contains("anyOf")) {
        bool any = false;
        for (const json& branch : schema["anyOf"])
            any = any || schema_violation(value, branch, at).empty();
        if (!any) return at + ": no anyOf branch matches";
    }
    if (schema.contains("oneOf")) {
        int matches = 0;
        for (const json& branch : schema["oneOf"])
            matches += schema_violation(value, branch, at).empty() ? 1 : 0;
        if (matches != 1) return at + ": " + std::to_string(matches) + " oneOf branches match";
    }
    if (schema.contains("type")) {
        const auto is = [&value](const std::string& type) {
            if (type == "object") return value.is_object();
            if (type == "array") return value.is_array();
            if (type == "string") return value.is_string();
            if (type == "integer") return value.is_number_integer();
            if (type == "number") return value.is_number();
            if (type == "boolean") return value.is_boolean();
            if (type == "null") return value.is_null();
            return false;
        };
        bool ok = false;
        if (schema["type"].is_string()) {
            ok = is(schema["type"].get<std::string>());
        } else {
            for (const json& t : schema["type"])
                ok = ok || is(t.get<std::string>());
        }
        if (!ok) return at + ": wrong type";
    }
    if (value.is_object()) {
        const json properties = schema.value("properties", json::object());
        for (const json& name : schema.value("required", json::array()))
            if (!value.contains(name.get<std::string>())) return at + ": missing " + name.get<std::string>();
        for (const auto& [key, v] : value.items()) {
            if (properties.contains(key)) {
                if (std::string why = schema_violation(v, properties[key], at + "." + key); !why.empty())
                    return why;
            } else if (schema.contains("additionalProperties") && schema["additionalProperties"] == false) {
                return at + ": unexpected property " + key;
            }
        }
    }
    if (value.is_array()) {
        if (schema.contains("minItems") && value.size() < schema["minItems"].get<size_t>())
            return at + ": too few items";
        if (schema.contains("maxItems") && value.size() > schema["maxItems"].get<size_t>())
            return at + ": too many items";
        if (schema.contains("items"))
            for (size_t i = 0; i < value.size(); ++i)
                if (std::string why =
                        schema_violation(value[i], schema["items"], at + "[" + std::to_string(i) + "]");
                    !why.empty())
                    return why;
    }
    if (value.is_string()) {
        const std::string text = value.get<std::string>();
        if (schema.contains("minLength") && code_points(text) < schema["minLength"].get<size_t>())
            return at + ": too short";
        if (schema.contains("maxLength") && code_points(text) > schema["maxLength"].get<size_t>())
            return at + ": too long";
        if (schema.contains("pattern") &&
            !std::regex_search(text, std::regex(schema["pattern"].get<std::string>())))
            return at + ": does not match the pattern: " + text;
        if (schema.contains("format")) {
            static const std::regex date(R"(\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01]))");
            static const std::regex time(
                R"(([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d))");
            static const std::regex uuid(
                R"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})");
            const std::string format = schema["format"].get<std::string>();
            const size_t t = text.find('T');
            const bool ok = format == "date"   ? std::regex_match(text, date)
                            : format == "time" ? std::regex_match(text, time)
                            : format == "uuid" ? std::regex_match(text, uuid)
                            : format == "date-time"
                                ? t != std::string::npos && std::regex_match(text.substr(0, t), date) &&
                                      std::regex_match(text.substr(t + 1), time)
                                : false;
            if (!ok) return at + ": not a " + format + ": " + text;
        }
    }
    return {};
}

} // namespace hearth::test
