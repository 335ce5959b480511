#include "engine/chat/template_value_text.h"
#include "engine/chat/template_error.h"
#include "engine/chat/template_strings.h"
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace hearth::chat {

std::string format_python_float(double d) {
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
    if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
    // The shortest digits that round-trip, then laid out by Python's repr rules.
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, d, std::chars_format::scientific);
    (void)ec;
    std::string sci(buffer, end); // "-1.2345e+02"
    bool negative = sci[0] == '-';
    if (negative) sci.erase(0, 1);
    size_t e = sci.find('e');
    int exponent = std::stoi(sci.substr(e + 1));
    std::string digits;
    for (size_t i = 0; i < e; ++i)
        if (sci[i] != '.') digits += sci[i];
    std::string out = negative ? "-" : "";
    if (exponent >= -4 && exponent < 16) {
        if (exponent < 0) {
            out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
        } else {
            size_t int_len = static_cast<size_t>(exponent) + 1;
            if (digits.size() <= int_len) {
                out += digits + std::string(int_len - digits.size(), '0') + ".0";
            } else {
                out += digits.substr(0, int_len) + "." + digits.substr(int_len);
            }
        }
        return out;
    }
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char exp_text[16];
    std::snprintf(exp_text, sizeof exp_text, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return out + exp_text;
}

namespace {

void append_python_string_repr(std::string& out, const std::string& s) {
    bool has_single = s.find('\'') != std::string::npos;
    bool has_double = s.find('"') != std::string::npos;
    char quote = has_single && !has_double ? '"' : '\'';
    out += quote;
    size_t i = 0;
    while (i < s.size()) {
        size_t start = i;
        uint32_t cp = decode_utf8(s, i);
        char buffer[16];
        if (cp == '\\')
            out += "\\\\";
        else if (cp == static_cast<uint32_t>(quote))
            (out += '\\') += quote;
        else if (cp == '\n')
            out += "\\n";
        else if (cp == '\r')
            out += "\\r";
        else if (cp == '\t')
            out += "\\t";
        else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0xA0)) {
            std::snprintf(buffer, sizeof buffer, "\\x%02x", cp);
            out += buffer;
        } else if (cp == 0x2028 || cp == 0x2029) {
            std::snprintf(buffer, sizeof buffer, "\\u%04x", cp);
            out += buffer;
        } else {
            out.append(s, start, i - start);
        }
    }
    out += quote;
}

void append_repr(std::string& out, const Value& v);

void append_display(std::string& out, const Value& v) {
    switch (v.kind()) {
    case ValueKind::Undefined:
        return;
    case ValueKind::None:
        out += "None";
        return;
    case ValueKind::Bool:
        out += v.as_bool() ? "True" : "False";
        return;
    case ValueKind::Int:
        out += std::to_string(v.as_int());
        return;
    case ValueKind::Float:
        out += format_python_float(v.as_double());
        return;
    case ValueKind::String:
        out += v.as_string();
        return;
    default:
        append_repr(out, v);
        return;
    }
}

void append_repr(std::string& out, const Value& v) {
    switch (v.kind()) {
    case ValueKind::String:
        append_python_string_repr(out, v.as_string());
        return;
    case ValueKind::Undefined:
        out += "Undefined";
        return;
    case ValueKind::List: {
        out += '[';
        bool first = true;
        for (const Value& item : v.as_list()) {
            if (!first) out += ", ";
            first = false;
            append_repr(out, item);
        }
        out += ']';
        return;
    }
    case ValueKind::Dict: {
        out += '{';
        bool first = true;
        for (const auto& [key, value] : v.as_dict().entries()) {
            if (!first) out += ", ";
            first = false;
            append_repr(out, key);
            out += ": ";
            append_repr(out, value);
        }
        out += '}';
        return;
    }
    case ValueKind::Function:
        out += "<function " + v.as_function().name + ">";
        return;
    case ValueKind::Namespace: {
        out += "<Namespace ";
        append_repr(out, Value(std::make_shared<Dict>(v.as_namespace().attributes)));
        out += '>';
        return;
    }
    default:
        append_display(out, v);
        return;
    }
}

void append_json_string(std::string& out, const std::string& s) {
    out += '"';
    for (char ch : s) {
        unsigned char c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        default:
            if (c < 0x20) {
                char buffer[8];
                std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
                out += buffer;
            } else {
                out += ch;
            }
        }
    }
    out += '"';
}

std::string json_key_text(const Value& key) {
    switch (key.kind()) {
    case ValueKind::String:
        return key.as_string();
    case ValueKind::None:
        return "null";
    case ValueKind::Bool:
        return key.as_bool() ? "true" : "false";
    case ValueKind::Int:
    case ValueKind::Float:
        return to_display_string(key);
    default:
        throw TemplateFailure("tojson: keys must be str, int, float, bool or None, not " +
                              std::string(key.type_name()));
    }
}

void append_json(std::string& out, const Value& v, const JsonFormat& format, int depth) {
    auto newline = [&](int level) {
        if (!format.indent) return;
        out += '\n';
        out.append(static_cast<size_t>(*format.indent) * static_cast<size_t>(level), ' ');
    };
    if (depth > 512) throw TemplateFailure("tojson: value nested too deeply");
    switch (v.kind()) {
    case ValueKind::None:
        out += "null";
        return;
    case ValueKind::Bool:
        out += v.as_bool() ? "true" : "false";
        return;
    case ValueKind::Int:
        out += std::to_string(v.as_int());
        return;
    case ValueKind::Float: {
        double d = v.as_double();
        if (std::isnan(d))
            out += "NaN";
        else if (std::isinf(d))
            out += d < 0 ? "-Infinity" : "Infinity";
        else
            out += format_python_float(d);
        return;
    }
    case ValueKind::String:
        append_json_string(out, v.as_string());
        return;
    case ValueKind::List: {
        const List& list = v.as_list();
        if (list.empty()) {
            out += "[]";
            return;
        }
        out += '[';
        for (size_t i = 0; i < list.size(); ++i) {
            if (i) out += format.item_separator;
            newline(depth + 1);
            append_json(out, list[i], format, depth + 1);
        }
        newline(depth);
        out += ']';
        return;
    }
    case ValueKind::Dict:
    case ValueKind::Namespace: {
        const Dict& dict = v.is_dict() ? v.as_dict() : v.as_namespace().attributes;
        if (dict.size() == 0) {
            out += "{}";
            return;
        }
        std::vector<std::pair<std::string, const Value*>> entries;
        for (const auto& [key, value] : dict.entries())
            entries.emplace_back(json_key_text(key), &value);
        if (format.sort_keys)
            std::stable_sort(entries.begin(), entries.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
        out += '{';
        for (size_t i = 0; i < entries.size(); ++i) {
            if (i) out += format.item_separator;
            newline(depth + 1);
            append_json_string(out, entries[i].first);
            out += format.key_separator;
            append_json(out, *entries[i].second, format, depth + 1);
        }
        newline(depth);
        out += '}';
        return;
    }
    default:
        throw TemplateFailure("tojson: Object of type " + std::string(v.type_name()) +
                              " is not JSON serializable");
    }
}

template <typename Json> Value value_from_json(const Json& j, int depth) {
    if (depth > 512) throw TemplateFailure("input JSON nested too deeply");
    switch (j.type()) {
    case nlohmann::json::value_t::null:
        return Value(None{});
    case nlohmann::json::value_t::boolean:
        return Value(j.template get<bool>());
    case nlohmann::json::value_t::number_integer:
        return Value(j.template get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: {
        auto u = j.template get<uint64_t>();
        if (u <= static_cast<uint64_t>(INT64_MAX)) return Value(static_cast<int64_t>(u));
        return Value(static_cast<double>(u));
    }
    case nlohmann::json::value_t::number_float:
        return Value(j.template get<double>());
    case nlohmann::json::value_t::string:
        return Value(j.template get<std::string>());
    case nlohmann::json::value_t::array: {
        List list;
        list.reserve(j.size());
        for (const auto& item : j)
            list.push_back(value_from_json(item, depth + 1));
        return Value(std::move(list));
    }
    case nlohmann::json::value_t::object: {
        Dict dict;
        for (auto it = j.begin(); it != j.end(); ++it)
            dict.set(Value(it.key()), value_from_json(it.value(), depth + 1));
        return Value(std::move(dict));
    }
    default:
        return Value(None{});
    }
}

} // namespace

std::string to_display_string(const Value& v) {
    if (v.is_string()) return v.as_string();
    std::string out;
    append_display(out, v);
    return out;
}

std::string to_repr(const Value& v) {
    std::string out;
    append_repr(out, v);
    return out;
}

std::string to_json_text(const Value& v, const JsonFormat& format) {
    std::string out;
    append_json(out, v, format, 0);
    return out;
}

Value from_json(const nlohmann::ordered_json& j) {
    return value_from_json(j, 0);
}
Value from_json(const nlohmann::json& j) {
    return value_from_json(j, 0);
}

} // namespace hearth::chat
