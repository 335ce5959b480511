#pragma once
// Values as text the way Python and Hugging Face's Jinja write them, and values
// made from JSON inputs.
#include "engine/chat/template_value.h"
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace hearth::chat {

// Python str(): strings as they are, None -> "None", lists and dicts like repr().
std::string to_display_string(const Value& v);
// Python repr(): strings quoted, e.g. ['a', 'b'] and {'k': 1}.
std::string to_repr(const Value& v);
// Python repr() of a float: shortest round trip, "1.0", "1e+16", "inf", "nan".
std::string format_python_float(double d);

struct JsonFormat {
    std::optional<int> indent;         // none: one line
    std::string item_separator = ", "; // with an indent Python uses ","
    std::string key_separator = ": ";
    bool sort_keys = false;
};
// json.dumps(value, ensure_ascii=False, ...): keys in insertion order, non-ASCII kept.
std::string to_json_text(const Value& v, const JsonFormat& format);

Value from_json(const nlohmann::ordered_json& j);
Value from_json(const nlohmann::json& j);

} // namespace hearth::chat
