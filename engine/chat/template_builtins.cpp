// Attribute and item lookup and iteration, as Jinja reads Python objects.
#include "engine/chat/template_builtins.h"
#include "engine/chat/template_builtin_support.h"
#include "engine/chat/template_strings.h"
#include "engine/chat/template_value_text.h"

namespace hearth::chat {

using builtins::fail;

Value get_attribute(const Value& target, const std::string& name) {
    if (has_method(target, name)) {
        return Value::function(name,
                               [target, name](CallArgs& args) { return *call_method(target, name, args); });
    }
    if (target.is_dict()) {
        if (const Value* v = target.as_dict().find_name(name)) return *v;
    } else if (target.is_namespace()) {
        if (const Value* v = target.as_namespace().attributes.find_name(name)) return *v;
    }
    return Value(Undefined{name});
}

Value get_item(const Value& target, const Value& key) {
    if (target.is_list() || target.is_string()) {
        if (!key.is_int() && !key.is_bool()) {
            if (key.is_string()) return get_attribute(target, key.as_string());
            fail(std::string(target.is_list() ? "list" : "string") + " indices must be integers, not " +
                 std::string(key.type_name()));
        }
        int64_t i = key.as_int();
        Value missing(Undefined{"[" + std::to_string(i) + "]"});
        if (target.is_list()) {
            int64_t n = static_cast<int64_t>(target.as_list().size());
            if (i < 0) i += n;
            if (i < 0 || i >= n) return missing;
            return target.as_list()[static_cast<size_t>(i)];
        }
        std::vector<size_t> offsets = code_point_offsets(target.as_string());
        int64_t n = static_cast<int64_t>(offsets.size()) - 1;
        if (i < 0) i += n;
        if (i < 0 || i >= n) return missing;
        size_t at = static_cast<size_t>(i);
        return Value(target.as_string().substr(offsets[at], offsets[at + 1] - offsets[at]));
    }
    if (target.is_dict()) {
        if (const Value* v = target.as_dict().find(key)) return *v;
    }
    if (key.is_string()) return get_attribute(target, key.as_string());
    return Value(Undefined{to_display_string(key)});
}

List iteration_items(const Value& v) {
    switch (v.kind()) {
    case ValueKind::Undefined:
        return {};
    case ValueKind::List:
        return v.as_list();
    case ValueKind::Dict: {
        List keys;
        for (const auto& [key, value] : v.as_dict().entries())
            keys.push_back(key);
        return keys;
    }
    case ValueKind::String: {
        List chars;
        const std::string& s = v.as_string();
        for (size_t i = 0; i < s.size();) {
            size_t start = i;
            decode_utf8(s, i);
            chars.emplace_back(s.substr(start, i - start));
        }
        return chars;
    }
    default:
        fail("'" + std::string(v.type_name()) + "' object is not iterable");
    }
}

} // namespace hearth::chat
