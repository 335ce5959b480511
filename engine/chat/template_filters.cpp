// Jinja's built-in filters (name|filter(args)), with Python's behaviour.
#include "engine/chat/template_builtin_support.h"
#include "engine/chat/template_builtins.h"
#include "engine/chat/template_strings.h"
#include "engine/chat/template_value_text.h"
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

namespace hearth::chat {

using builtins::Arguments;
using builtins::fail;
using builtins::require_string;
using builtins::split_lines;

namespace {

CallArgs rest_of(const CallArgs& args, size_t from) {
    CallArgs rest;
    for (size_t i = from; i < args.positional.size(); ++i)
        rest.positional.push_back(args.positional[i]);
    rest.keyword = args.keyword;
    return rest;
}

// attribute="a.b.0" as Jinja's make_attrgetter reads it.
Value get_path(const Value& item, const std::string& path) {
    Value v = item;
    size_t start = 0;
    while (true) {
        size_t dot = path.find('.', start);
        std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        bool numeric = !part.empty() &&
                       std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
        int64_t index = 0;
        // A number past int64 names no item: looked up as text, it is undefined, as in Jinja.
        if (numeric && std::from_chars(part.data(), part.data() + part.size(), index).ec != std::errc())
            numeric = false;
        v = numeric ? get_item(v, Value(index)) : get_item(v, Value(part));
        if (dot == std::string::npos) return v;
        start = dot + 1;
    }
}

// Sort key of Jinja's case-insensitive filters: strings compared lowercased.
Value sort_key(const Value& v, bool case_sensitive) {
    if (!case_sensitive && v.is_string()) return Value(py_lower(v.as_string()));
    return v;
}

int64_t length_of(const Value& v) {
    switch (v.kind()) {
    case ValueKind::Undefined:
        return 0;
    case ValueKind::String:
        return static_cast<int64_t>(code_point_count(v.as_string()));
    case ValueKind::List:
        return static_cast<int64_t>(v.as_list().size());
    case ValueKind::Dict:
        return static_cast<int64_t>(v.as_dict().size());
    case ValueKind::Namespace:
        return static_cast<int64_t>(v.as_namespace().attributes.size());
    default:
        fail("object of type '" + std::string(v.type_name()) + "' has no len()");
    }
}

std::optional<int64_t> parse_int(std::string text, int base) {
    text = py_strip(text, std::nullopt, true, false);
    text = py_strip(text, std::nullopt, false, true);
    text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
    if (!text.empty() && text[0] == '+') text.erase(0, 1);
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return v;
}

std::optional<double> parse_float(std::string text) {
    text = py_strip(text, std::nullopt, true, true);
    if (text.empty()) return std::nullopt;
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) return std::nullopt;
    return d;
}

Value round_value(const Value& v, int64_t precision, const std::string& method) {
    if (!v.is_number()) fail("round expects a number, got " + std::string(v.type_name()));
    double x = v.as_double();
    if (method == "floor" || method == "ceil") {
        double scale = std::pow(10.0, static_cast<double>(precision));
        return Value((method == "floor" ? std::floor(x * scale) : std::ceil(x * scale)) / scale);
    }
    if (method != "common") fail("round: method must be 'common', 'ceil' or 'floor'");
    if (!v.is_float()) return Value(v.as_int()); // Python's round() keeps an int an int
    if (precision < 0 || precision > 30) {
        double scale = std::pow(10.0, static_cast<double>(precision));
        return Value(std::nearbyint(x * scale) / scale);
    }
    // printf rounds the exact binary value half to even, as Python's round() does.
    char buffer[400];
    std::snprintf(buffer, sizeof buffer, "%.*f", static_cast<int>(precision), x);
    return Value(std::strtod(buffer, nullptr));
}

std::string html_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&#34;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

int64_t word_count(const std::string& s) {
    int64_t count = 0;
    bool in_word = false;
    for (char ch : s) {
        unsigned char c = static_cast<unsigned char>(ch);
        bool word_char = std::isalnum(c) || c == '_' || c >= 0x80;
        if (word_char && !in_word) ++count;
        in_word = word_char;
    }
    return count;
}

std::string indent_text(std::string s, const Value& width, bool first, bool blank) {
    std::string indention = width.is_string()
                                ? width.as_string()
                                : std::string(static_cast<size_t>(std::max<int64_t>(0, width.as_int())), ' ');
    s += "\n";
    std::vector<std::string> lines = split_lines(s);
    std::string out;
    if (blank) {
        for (size_t i = 0; i < lines.size(); ++i)
            out += (i ? "\n" + indention : "") + lines[i];
    } else {
        out = lines.empty() ? "" : lines[0];
        for (size_t i = 1; i < lines.size(); ++i)
            out += "\n" + (lines[i].empty() ? "" : indention) + lines[i];
    }
    if (first) out = indention + out;
    return out;
}

List sorted_items(List items, bool reverse, bool case_sensitive,
                  const std::optional<std::string>& attribute) {
    auto key = [&](const Value& v) {
        return sort_key(attribute ? get_path(v, *attribute) : v, case_sensitive);
    };
    std::stable_sort(items.begin(), items.end(), [&](const Value& a, const Value& b) {
        return reverse ? value_less(key(b), key(a)) : value_less(key(a), key(b));
    });
    return items;
}

Value min_max(const Value& input, const CallArgs& args, bool want_max) {
    Arguments a(want_max ? "max" : "min", args, {"case_sensitive", "attribute"});
    List items = iteration_items(input);
    if (items.empty()) return Value(Undefined{"no items"});
    bool case_sensitive = a.boolean(0, false);
    std::optional<std::string> attribute = a.optional_string(1);
    auto key = [&](const Value& v) {
        return sort_key(attribute ? get_path(v, *attribute) : v, case_sensitive);
    };
    size_t best = 0;
    for (size_t i = 1; i < items.size(); ++i) {
        bool better = want_max ? value_less(key(items[best]), key(items[i]))
                               : value_less(key(items[i]), key(items[best]));
        if (better) best = i;
    }
    return items[best];
}

JsonFormat json_format(const CallArgs& args) {
    Arguments a("tojson", args, {"indent", "ensure_ascii", "separators", "sort_keys"});
    JsonFormat format;
    if (a.has(0) && !a.value(0).is_none()) {
        format.indent = static_cast<int>(a.integer(0, 0));
        format.item_separator = ",";
    }
    if (a.has(2) && !a.value(2).is_none()) {
        List separators = iteration_items(a.value(2));
        if (separators.size() != 2 || !separators[0].is_string() || !separators[1].is_string())
            fail("tojson(): separators must be two strings");
        format.item_separator = separators[0].as_string();
        format.key_separator = separators[1].as_string();
    }
    format.sort_keys = a.boolean(3, false);
    return format;
}

using FilterFn = Value (*)(const Value& input, const CallArgs& args);

Value filter_by_test(const Value& input, const CallArgs& args, bool keep, bool by_attribute) {
    List out;
    size_t test_at = by_attribute ? 1 : 0;
    std::string attribute;
    if (by_attribute) {
        if (args.positional.empty() || !args.positional[0].is_string())
            fail(std::string(keep ? "selectattr" : "rejectattr") + "() needs an attribute name");
        attribute = args.positional[0].as_string();
    }
    std::string test;
    if (args.positional.size() > test_at) test = require_string(args.positional[test_at], "select");
    CallArgs test_args = rest_of(args, test_at + 1);
    for (const Value& item : iteration_items(input)) {
        Value subject = by_attribute ? get_path(item, attribute) : item;
        bool passed = test.empty() ? subject.truthy() : apply_test(test, subject, test_args);
        if (passed == keep) out.push_back(item);
    }
    return Value(std::move(out));
}

const std::unordered_map<std::string_view, FilterFn>& filters() {
    static const std::unordered_map<std::string_view, FilterFn> table = {
        {"abs",
         [](const Value& v, const CallArgs&) -> Value {
             if (v.is_float()) return Value(std::fabs(v.as_double()));
             if (v.is_number()) return Value(v.as_int() < 0 ? -v.as_int() : v.as_int());
             fail("bad operand type for abs(): '" + std::string(v.type_name()) + "'");
         }},
        {"attr",
         [](const Value& v, const CallArgs& args) {
             return get_attribute(v, Arguments("attr", args, {"name"}).string(0));
         }},
        {"batch",
         [](const Value& v, const CallArgs& args) {
             Arguments a("batch", args, {"linecount", "fill_with"});
             int64_t size = a.integer(0, 1);
             if (size <= 0) fail("batch(): linecount must be positive");
             List out, current;
             for (const Value& item : iteration_items(v)) {
                 current.push_back(item);
                 if (static_cast<int64_t>(current.size()) == size) {
                     out.emplace_back(std::move(current));
                     current = List{};
                 }
             }
             if (!current.empty()) {
                 if (a.has(1))
                     while (static_cast<int64_t>(current.size()) < size)
                         current.push_back(a.value(1));
                 out.emplace_back(std::move(current));
             }
             return Value(std::move(out));
         }},
        {"capitalize",
         [](const Value& v, const CallArgs&) { return Value(py_capitalize(to_display_string(v))); }},
        {"count", [](const Value& v, const CallArgs&) { return Value(length_of(v)); }},
        {"length", [](const Value& v, const CallArgs&) { return Value(length_of(v)); }},
        {"default",
         [](const Value& v, const CallArgs& args) {
             Arguments a("default", args, {"default_value", "boolean"});
             bool use_default = a.boolean(1, false) ? !v.truthy() : v.is_undefined();
             return use_default ? a.value(0, Value(std::string())) : v;
         }},
        {"dictsort",
         [](const Value& v, const CallArgs& args) {
             Arguments a("dictsort", args, {"case_sensitive", "by", "reverse"});
             if (!v.is_dict()) fail("dictsort expects a dict, got " + std::string(v.type_name()));
             std::string by = a.has(1) ? a.string(1) : "key";
             if (by != "key" && by != "value") fail("dictsort(): 'by' must be 'key' or 'value'");
             List pairs;
             for (const auto& [key, value] : v.as_dict().entries())
                 pairs.emplace_back(List{key, value});
             bool case_sensitive = a.boolean(0, false), reverse = a.boolean(2, false);
             size_t slot = by == "key" ? 0 : 1;
             std::stable_sort(pairs.begin(), pairs.end(), [&](const Value& x, const Value& y) {
                 Value kx = sort_key(x.as_list()[slot], case_sensitive),
                       ky = sort_key(y.as_list()[slot], case_sensitive);
                 return reverse ? value_less(ky, kx) : value_less(kx, ky);
             });
             return Value(std::move(pairs));
         }},
        {"escape", [](const Value& v, const CallArgs&) { return Value(html_escape(to_display_string(v))); }},
        {"first",
         [](const Value& v, const CallArgs&) {
             List items = iteration_items(v);
             return items.empty() ? Value(Undefined{"first"}) : items.front();
         }},
        {"last",
         [](const Value& v, const CallArgs&) {
             List items = iteration_items(v);
             return items.empty() ? Value(Undefined{"last"}) : items.back();
         }},
        {"float",
         [](const Value& v, const CallArgs& args) {
             Arguments a("float", args, {"default"});
             if (v.is_number()) return Value(v.as_double());
             if (v.is_string())
                 if (auto d = parse_float(v.as_string())) return Value(*d);
             return a.value(0, Value(0.0));
         }},
        {"int",
         [](const Value& v, const CallArgs& args) {
             Arguments a("int", args, {"default", "base"});
             if (v.is_float()) return Value(static_cast<int64_t>(std::trunc(v.as_double())));
             if (v.is_number()) return Value(v.as_int());
             if (v.is_string()) {
                 if (auto i = parse_int(v.as_string(), static_cast<int>(a.integer(1, 10)))) return Value(*i);
                 if (auto d = parse_float(v.as_string()); d && std::isfinite(*d))
                     return Value(static_cast<int64_t>(std::trunc(*d)));
             }
             return a.value(0, Value(0));
         }},
        {"indent",
         [](const Value& v, const CallArgs& args) {
             Arguments a("indent", args, {"width", "first", "blank"});
             Value width = a.value(0, Value(4));
             if (!width.is_string() && !width.is_int())
                 fail("indent(): width must be an integer or a string");
             return Value(indent_text(to_display_string(v), width, a.boolean(1, false), a.boolean(2, false)));
         }},
        {"items",
         [](const Value& v, const CallArgs&) -> Value {
             if (v.is_undefined()) return Value(List{});
             if (!v.is_dict()) fail("items expects a dict, got " + std::string(v.type_name()));
             return *call_method(v, "items", CallArgs{});
         }},
        {"join",
         [](const Value& v, const CallArgs& args) {
             Arguments a("join", args, {"d", "attribute"});
             std::string separator = a.has(0) ? to_display_string(a.value(0)) : "";
             std::optional<std::string> attribute = a.optional_string(1);
             std::string out;
             bool first = true;
             for (const Value& item : iteration_items(v)) {
                 if (!first) out += separator;
                 first = false;
                 out += to_display_string(attribute ? get_path(item, *attribute) : item);
             }
             return Value(std::move(out));
         }},
        {"list", [](const Value& v, const CallArgs&) { return Value(iteration_items(v)); }},
        {"lower", [](const Value& v, const CallArgs&) { return Value(py_lower(to_display_string(v))); }},
        {"upper", [](const Value& v, const CallArgs&) { return Value(py_upper(to_display_string(v))); }},
        {"title", [](const Value& v, const CallArgs&) { return Value(jinja_title(to_display_string(v))); }},
        {"map",
         [](const Value& v, const CallArgs& args) {
             List out;
             bool by_attribute = false;
             std::string attribute;
             Value fallback(Undefined{});
             for (const auto& [name, value] : args.keyword) {
                 if (name == "attribute") {
                     by_attribute = true;
                     attribute = require_string(value, "map(attribute=...)");
                 } else if (name == "default") {
                     fallback = value;
                 }
             }
             if (by_attribute) {
                 for (const Value& item : iteration_items(v)) {
                     Value got = get_path(item, attribute);
                     out.push_back(got.is_undefined() && !fallback.is_undefined() ? fallback : got);
                 }
                 return Value(std::move(out));
             }
             if (args.positional.empty()) fail("map() needs a filter name or attribute=");
             std::string filter = require_string(args.positional[0], "map");
             CallArgs filter_args = rest_of(args, 1);
             for (const Value& item : iteration_items(v))
                 out.push_back(apply_filter(filter, item, filter_args));
             return Value(std::move(out));
         }},
        {"max", [](const Value& v, const CallArgs& args) { return min_max(v, args, true); }},
        {"min", [](const Value& v, const CallArgs& args) { return min_max(v, args, false); }},
        {"reject",
         [](const Value& v, const CallArgs& args) { return filter_by_test(v, args, false, false); }},
        {"select", [](const Value& v, const CallArgs& args) { return filter_by_test(v, args, true, false); }},
        {"rejectattr",
         [](const Value& v, const CallArgs& args) { return filter_by_test(v, args, false, true); }},
        {"selectattr",
         [](const Value& v, const CallArgs& args) { return filter_by_test(v, args, true, true); }},
        {"replace",
         [](const Value& v, const CallArgs& args) {
             Arguments a("replace", args, {"old", "new", "count"});
             return Value(py_replace(to_display_string(v), to_display_string(a.required(0)),
                                     to_display_string(a.required(1)), a.integer(2, -1)));
         }},
        {"reverse",
         [](const Value& v, const CallArgs&) {
             if (v.is_string()) {
                 std::vector<size_t> offsets = code_point_offsets(v.as_string());
                 std::string out;
                 for (size_t k = offsets.size() - 1; k-- > 0;)
                     out.append(v.as_string(), offsets[k], offsets[k + 1] - offsets[k]);
                 return Value(std::move(out));
             }
             List items = iteration_items(v);
             std::reverse(items.begin(), items.end());
             return Value(std::move(items));
         }},
        {"round",
         [](const Value& v, const CallArgs& args) {
             Arguments a("round", args, {"precision", "method"});
             return round_value(v, a.integer(0, 0), a.has(1) ? a.string(1) : "common");
         }},
        {"safe", [](const Value& v, const CallArgs&) { return v; }},
        {"sort",
         [](const Value& v, const CallArgs& args) {
             Arguments a("sort", args, {"reverse", "case_sensitive", "attribute"});
             return Value(sorted_items(iteration_items(v), a.boolean(0, false), a.boolean(1, false),
                                       a.optional_string(2)));
         }},
        {"string", [](const Value& v, const CallArgs&) { return Value(to_display_string(v)); }},
        {"sum",
         [](const Value& v, const CallArgs& args) {
             Arguments a("sum", args, {"attribute", "start"});
             std::optional<std::string> attribute = a.optional_string(0);
             Value total = a.value(1, Value(0));
             for (const Value& item : iteration_items(v)) {
                 Value x = attribute ? get_path(item, *attribute) : item;
                 if (!x.is_number() || !total.is_number()) fail("sum(): items must be numbers");
                 if (x.is_float() || total.is_float())
                     total = Value(total.as_double() + x.as_double());
                 else
                     total = Value(total.as_int() + x.as_int());
             }
             return total;
         }},
        {"tojson",
         [](const Value& v, const CallArgs& args) { return Value(to_json_text(v, json_format(args))); }},
        {"trim",
         [](const Value& v, const CallArgs& args) {
             Arguments a("trim", args, {"chars"});
             return Value(py_strip(to_display_string(v), a.optional_string(0), true, true));
         }},
        {"unique",
         [](const Value& v, const CallArgs& args) {
             Arguments a("unique", args, {"case_sensitive", "attribute"});
             bool case_sensitive = a.boolean(0, false);
             std::optional<std::string> attribute = a.optional_string(1);
             List out, seen;
             for (const Value& item : iteration_items(v)) {
                 Value key = sort_key(attribute ? get_path(item, *attribute) : item, case_sensitive);
                 bool duplicate = false;
                 for (const Value& s : seen)
                     duplicate = duplicate || values_equal(s, key);
                 if (duplicate) continue;
                 seen.push_back(key);
                 out.push_back(item);
             }
             return Value(std::move(out));
         }},
        {"wordcount",
         [](const Value& v, const CallArgs&) { return Value(word_count(to_display_string(v))); }},
    };
    return table;
}

std::string_view canonical_filter(std::string_view name) {
    if (name == "d") return "default";
    if (name == "e") return "escape";
    return name;
}

} // namespace

bool is_known_filter(std::string_view name) {
    return filters().count(canonical_filter(name)) > 0;
}

Value apply_filter(std::string_view name, const Value& input, const CallArgs& args) {
    auto it = filters().find(canonical_filter(name));
    if (it == filters().end()) fail("no filter named '" + std::string(name) + "'");
    return it->second(input, args);
}

} // namespace hearth::chat
