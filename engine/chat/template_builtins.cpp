#include "engine/chat/template_builtins.h"
#include "engine/chat/template_error.h"
#include "engine/chat/template_strings.h"
#include "engine/chat/template_value_text.h"
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <unordered_map>

namespace hearth::chat {

namespace {

[[noreturn]] void fail(const std::string& problem) {
    throw TemplateFailure(problem);
}

// Positional-or-keyword arguments of a builtin, by Python parameter name.
class Arguments {
public:
    Arguments(std::string_view function, const CallArgs& args, std::initializer_list<const char*> names,
              size_t skip_positional = 0)
        : function_(function), args_(args), names_(names), skip_(skip_positional) {
        if (args.positional.size() > skip_ + names_.size())
            fail(std::string(function_) + "() takes at most " + std::to_string(names_.size()) + " arguments");
        for (const auto& [name, value] : args.keyword) {
            if (std::find(names_.begin(), names_.end(), name) == names_.end())
                fail(std::string(function_) + "() got an unexpected keyword argument '" + name + "'");
        }
    }

    const Value* get(size_t index) const {
        if (skip_ + index < args_.positional.size()) return &args_.positional[skip_ + index];
        for (const auto& [name, value] : args_.keyword)
            if (name == names_[index]) return &value;
        return nullptr;
    }
    bool has(size_t index) const {
        const Value* v = get(index);
        return v && !v->is_undefined();
    }
    Value value(size_t index, Value fallback = Value(None{})) const {
        const Value* v = get(index);
        return v ? *v : fallback;
    }
    const Value& required(size_t index) const {
        const Value* v = get(index);
        if (!v) fail(std::string(function_) + "() missing required argument '" + names_[index] + "'");
        return *v;
    }
    std::string string(size_t index) const {
        const Value& v = required(index);
        if (!v.is_string()) fail(std::string(function_) + "(): '" + names_[index] + "' must be a string");
        return v.as_string();
    }
    std::optional<std::string> optional_string(size_t index) const {
        const Value* v = get(index);
        if (!v || v->is_none() || v->is_undefined()) return std::nullopt;
        if (!v->is_string()) fail(std::string(function_) + "(): '" + names_[index] + "' must be a string");
        return v->as_string();
    }
    int64_t integer(size_t index, int64_t fallback) const {
        const Value* v = get(index);
        if (!v || v->is_none() || v->is_undefined()) return fallback;
        if (!v->is_int() && !v->is_bool())
            fail(std::string(function_) + "(): '" + names_[index] + "' must be an integer");
        return v->as_int();
    }
    bool boolean(size_t index, bool fallback) const {
        const Value* v = get(index);
        return v && !v->is_undefined() ? v->truthy() : fallback;
    }

private:
    std::string_view function_;
    const CallArgs& args_;
    std::vector<const char*> names_;
    size_t skip_;
};

CallArgs rest_of(const CallArgs& args, size_t from) {
    CallArgs rest;
    for (size_t i = from; i < args.positional.size(); ++i)
        rest.positional.push_back(args.positional[i]);
    rest.keyword = args.keyword;
    return rest;
}

const std::string& require_string(const Value& v, std::string_view what) {
    if (!v.is_string()) fail(std::string(what) + " expects a string, got " + std::string(v.type_name()));
    return v.as_string();
}

Value to_list_value(const std::vector<std::string>& parts) {
    List list;
    for (const std::string& p : parts)
        list.emplace_back(p);
    return Value(std::move(list));
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
        v = numeric ? get_item(v, Value(static_cast<int64_t>(std::stoll(part)))) : get_item(v, Value(part));
        if (dot == std::string::npos) return v;
        start = dot + 1;
    }
}

// Sort key of Jinja's case-insensitive filters: strings compared lowercased.
Value sort_key(const Value& v, bool case_sensitive) {
    if (!case_sensitive && v.is_string()) return Value(py_lower(v.as_string()));
    return v;
}

std::vector<std::string> split_lines(const std::string& s) {
    std::vector<std::string> lines;
    std::string current;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\x1c' || c == '\x1d' || c == '\x1e') {
            if (c == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
            lines.push_back(std::move(current));
            current.clear();
        } else {
            current += c;
        }
    }
    if (!current.empty()) lines.push_back(std::move(current));
    return lines;
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

// ---- tests ----

using TestFn = bool (*)(const Value& v, const CallArgs& args);

const Value& test_operand(const CallArgs& args, std::string_view test) {
    if (args.positional.empty()) fail("test '" + std::string(test) + "' needs an argument");
    return args.positional[0];
}

bool same_object(const Value& a, const Value& b) {
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
    case ValueKind::List:
        return &a.as_list() == &b.as_list();
    case ValueKind::Dict:
        return &a.as_dict() == &b.as_dict();
    case ValueKind::Function:
        return &a.as_function() == &b.as_function();
    case ValueKind::Namespace:
        return &a.as_namespace() == &b.as_namespace();
    default:
        return values_equal(a, b);
    }
}

const std::unordered_map<std::string_view, TestFn>& tests() {
    static const std::unordered_map<std::string_view, TestFn> table = {
        {"boolean", [](const Value& v, const CallArgs&) { return v.is_bool(); }},
        {"callable", [](const Value& v, const CallArgs&) { return v.is_function(); }},
        {"defined", [](const Value& v, const CallArgs&) { return !v.is_undefined(); }},
        {"undefined", [](const Value& v, const CallArgs&) { return v.is_undefined(); }},
        {"divisibleby",
         [](const Value& v, const CallArgs& args) {
             const Value& d = test_operand(args, "divisibleby");
             if (!v.is_number() || !d.is_number()) fail("divisibleby expects numbers");
             if (v.is_float() || d.is_float()) {
                 if (d.as_double() == 0) fail("float modulo");
                 return std::fmod(v.as_double(), d.as_double()) == 0;
             }
             if (d.as_int() == 0) fail("integer division or modulo by zero");
             return v.as_int() % d.as_int() == 0;
         }},
        {"eq",
         [](const Value& v, const CallArgs& args) { return values_equal(v, test_operand(args, "eq")); }},
        {"ne",
         [](const Value& v, const CallArgs& args) { return !values_equal(v, test_operand(args, "ne")); }},
        {"lt", [](const Value& v, const CallArgs& args) { return value_less(v, test_operand(args, "lt")); }},
        {"gt", [](const Value& v, const CallArgs& args) { return value_less(test_operand(args, "gt"), v); }},
        {"le", [](const Value& v, const CallArgs& args) { return !value_less(test_operand(args, "le"), v); }},
        {"ge", [](const Value& v, const CallArgs& args) { return !value_less(v, test_operand(args, "ge")); }},
        {"even",
         [](const Value& v, const CallArgs&) {
             if (!v.is_int() && !v.is_bool()) fail("even expects an integer");
             return v.as_int() % 2 == 0;
         }},
        {"odd",
         [](const Value& v, const CallArgs&) {
             if (!v.is_int() && !v.is_bool()) fail("odd expects an integer");
             return v.as_int() % 2 != 0;
         }},
        {"false", [](const Value& v, const CallArgs&) { return v.is_bool() && !v.as_bool(); }},
        {"true", [](const Value& v, const CallArgs&) { return v.is_bool() && v.as_bool(); }},
        {"float", [](const Value& v, const CallArgs&) { return v.is_float(); }},
        {"integer", [](const Value& v, const CallArgs&) { return v.is_int(); }},
        {"in",
         [](const Value& v, const CallArgs& args) {
             const Value& container = test_operand(args, "in");
             if (container.is_string())
                 return v.is_string() && container.as_string().find(v.as_string()) != std::string::npos;
             if (container.is_dict()) return container.as_dict().find(v) != nullptr;
             for (const Value& item : iteration_items(container))
                 if (values_equal(item, v)) return true;
             return false;
         }},
        {"iterable",
         [](const Value& v, const CallArgs&) {
             return v.is_string() || v.is_list() || v.is_dict() ||
                    v.is_undefined(); // Undefined iterates as empty
         }},
        {"sequence",
         [](const Value& v, const CallArgs&) {
             return v.is_string() || v.is_list() || v.is_dict() || v.is_undefined();
         }},
        {"mapping", [](const Value& v, const CallArgs&) { return v.is_dict(); }},
        {"none", [](const Value& v, const CallArgs&) { return v.is_none(); }},
        {"number", [](const Value& v, const CallArgs&) { return v.is_number(); }},
        {"string", [](const Value& v, const CallArgs&) { return v.is_string(); }},
        {"lower", [](const Value& v,
                     const CallArgs&) { return v.is_string() && py_lower(v.as_string()) == v.as_string(); }},
        {"upper", [](const Value& v,
                     const CallArgs&) { return v.is_string() && py_upper(v.as_string()) == v.as_string(); }},
        {"sameas",
         [](const Value& v, const CallArgs& args) { return same_object(v, test_operand(args, "sameas")); }},
        {"filter",
         [](const Value& v, const CallArgs&) { return v.is_string() && is_known_filter(v.as_string()); }},
        {"test",
         [](const Value& v, const CallArgs&) { return v.is_string() && is_known_test(v.as_string()); }},
    };
    return table;
}

std::string_view canonical_test(std::string_view name) {
    if (name == "equalto" || name == "==") return "eq";
    if (name == "!=") return "ne";
    if (name == "<" || name == "lessthan") return "lt";
    if (name == ">" || name == "greaterthan") return "gt";
    if (name == "<=") return "le";
    if (name == ">=") return "ge";
    return name;
}

// ---- methods ----

bool starts_or_ends_with(const std::string& s, const Value& affix, bool at_start) {
    auto matches = [&](const Value& a) {
        const std::string& x = require_string(a, at_start ? "startswith" : "endswith");
        if (x.size() > s.size()) return false;
        return at_start ? s.compare(0, x.size(), x) == 0 : s.compare(s.size() - x.size(), x.size(), x) == 0;
    };
    if (affix.is_list()) {
        for (const Value& a : affix.as_list())
            if (matches(a)) return true;
        return false;
    }
    return matches(affix);
}

std::string python_format(const std::string& format, const CallArgs& args) {
    std::string out;
    size_t next_auto = 0;
    for (size_t i = 0; i < format.size(); ++i) {
        char c = format[i];
        if (c == '{' && i + 1 < format.size() && format[i + 1] == '{') {
            out += '{';
            ++i;
        } else if (c == '}' && i + 1 < format.size() && format[i + 1] == '}') {
            out += '}';
            ++i;
        } else if (c == '{') {
            size_t close = format.find('}', i);
            if (close == std::string::npos) fail("format(): single '{' encountered in format string");
            std::string field = format.substr(i + 1, close - i - 1);
            field =
                field.substr(0, field.find(':')); // format specs are not supported; the value is used as is
            Value value;
            if (field.empty()) {
                if (next_auto >= args.positional.size()) fail("format(): not enough arguments");
                value = args.positional[next_auto++];
            } else if (std::all_of(field.begin(), field.end(), [](char d) { return d >= '0' && d <= '9'; })) {
                size_t index = std::stoul(field);
                if (index >= args.positional.size()) fail("format(): index " + field + " out of range");
                value = args.positional[index];
            } else {
                bool found = false;
                for (const auto& [name, v] : args.keyword) {
                    if (name == field) {
                        value = v;
                        found = true;
                    }
                }
                if (!found) fail("format(): no argument named '" + field + "'");
            }
            out += to_display_string(value);
            i = close;
        } else if (c == '}') {
            fail("format(): single '}' encountered in format string");
        } else {
            out += c;
        }
    }
    return out;
}

std::optional<Value> string_method(const std::string& s, std::string_view name, const CallArgs& args) {
    if (name == "startswith" || name == "endswith") {
        Arguments a(name, args, {"prefix"});
        return Value(starts_or_ends_with(s, a.required(0), name == "startswith"));
    }
    if (name == "strip" || name == "lstrip" || name == "rstrip") {
        Arguments a(name, args, {"chars"});
        return Value(py_strip(s, a.optional_string(0), name != "rstrip", name != "lstrip"));
    }
    if (name == "split" || name == "rsplit") {
        Arguments a(name, args, {"sep", "maxsplit"});
        auto parts = name == "split" ? py_split(s, a.optional_string(0), a.integer(1, -1))
                                     : py_rsplit(s, a.optional_string(0), a.integer(1, -1));
        return to_list_value(parts);
    }
    if (name == "splitlines") return to_list_value(split_lines(s));
    if (name == "upper") return Value(py_upper(s));
    if (name == "lower") return Value(py_lower(s));
    if (name == "title") return Value(py_title(s));
    if (name == "capitalize") return Value(py_capitalize(s));
    if (name == "replace") {
        Arguments a(name, args, {"old", "new", "count"});
        return Value(py_replace(s, a.string(0), a.string(1), a.integer(2, -1)));
    }
    if (name == "find") {
        Arguments a(name, args, {"sub"});
        return Value(py_find(s, a.string(0)));
    }
    if (name == "count") {
        Arguments a(name, args, {"sub"});
        return Value(py_count(s, a.string(0)));
    }
    if (name == "format") return Value(python_format(s, args));
    if (name == "join") {
        Arguments a(name, args, {"iterable"});
        std::string out;
        bool first = true;
        for (const Value& item : iteration_items(a.required(0))) {
            if (!first) out += s;
            first = false;
            out += require_string(item, "str.join");
        }
        return Value(std::move(out));
    }
    if (name == "isdigit" || name == "isalpha" || name == "isalnum" || name == "isspace") {
        if (s.empty()) return Value(false);
        for (size_t i = 0; i < s.size();) {
            uint32_t cp = decode_utf8(s, i);
            bool ok = name == "isspace"   ? is_python_space(cp)
                      : cp >= 0x80        ? name != "isdigit"
                      : name == "isdigit" ? std::isdigit(static_cast<int>(cp)) != 0
                      : name == "isalpha" ? std::isalpha(static_cast<int>(cp)) != 0
                                          : std::isalnum(static_cast<int>(cp)) != 0;
            if (!ok) return Value(false);
        }
        return Value(true);
    }
    return std::nullopt;
}

std::optional<Value> list_method(const Value& self, std::string_view name, const CallArgs& args) {
    List& list = self.as_list();
    if (name == "append") {
        Arguments a(name, args, {"object"});
        list.push_back(a.required(0));
        return Value(None{});
    }
    if (name == "extend") {
        Arguments a(name, args, {"iterable"});
        List items = iteration_items(a.required(0));
        list.insert(list.end(), items.begin(), items.end());
        return Value(None{});
    }
    if (name == "insert") {
        Arguments a(name, args, {"index", "object"});
        int64_t n = static_cast<int64_t>(list.size()), i = a.integer(0, 0);
        if (i < 0) i = std::max<int64_t>(0, i + n);
        i = std::min(i, n);
        list.insert(list.begin() + i, a.required(1));
        return Value(None{});
    }
    if (name == "pop") {
        Arguments a(name, args, {"index"});
        if (list.empty()) fail("pop from empty list");
        int64_t n = static_cast<int64_t>(list.size()), i = a.integer(0, -1);
        if (i < 0) i += n;
        if (i < 0 || i >= n) fail("pop index out of range");
        Value v = list[static_cast<size_t>(i)];
        list.erase(list.begin() + i);
        return v;
    }
    if (name == "index") {
        Arguments a(name, args, {"value"});
        for (size_t i = 0; i < list.size(); ++i)
            if (values_equal(list[i], a.required(0))) return Value(static_cast<int64_t>(i));
        fail(to_repr(a.required(0)) + " is not in list");
    }
    if (name == "count") {
        Arguments a(name, args, {"value"});
        int64_t count = 0;
        for (const Value& v : list)
            count += values_equal(v, a.required(0)) ? 1 : 0;
        return Value(count);
    }
    return std::nullopt;
}

std::optional<Value> dict_method(const Value& self, std::string_view name, const CallArgs& args) {
    const Dict& dict = self.as_dict();
    if (name == "items" || name == "keys" || name == "values") {
        Arguments a(name, args, {});
        List out;
        for (const auto& [key, value] : dict.entries()) {
            if (name == "items")
                out.emplace_back(List{key, value});
            else
                out.push_back(name == "keys" ? key : value);
        }
        return Value(std::move(out));
    }
    if (name == "get") {
        Arguments a(name, args, {"key", "default"});
        if (const Value* v = dict.find(a.required(0))) return *v;
        return a.value(1, Value(None{}));
    }
    return std::nullopt;
}

bool is_string_method(std::string_view name) {
    static const char* const names[] = {
        "startswith", "endswith", "strip", "lstrip",  "rstrip",     "split",   "rsplit",
        "splitlines", "upper",    "lower", "title",   "capitalize", "replace", "find",
        "count",      "format",   "join",  "isdigit", "isalpha",    "isalnum", "isspace"};
    return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

// ---- globals ----

Value range_function(CallArgs& args) {
    if (!args.keyword.empty()) fail("range() takes no keyword arguments");
    std::vector<int64_t> n;
    for (const Value& v : args.positional) {
        if (!v.is_int() && !v.is_bool()) fail("range() expects integers, got " + std::string(v.type_name()));
        n.push_back(v.as_int());
    }
    int64_t start = 0, stop = 0, step = 1;
    if (n.size() == 1)
        stop = n[0];
    else if (n.size() == 2 || n.size() == 3) {
        start = n[0];
        stop = n[1];
        if (n.size() == 3) step = n[2];
    } else {
        fail("range() expects 1 to 3 arguments");
    }
    if (step == 0) fail("range() arg 3 must not be zero");
    double count =
        std::ceil((static_cast<double>(stop) - static_cast<double>(start)) / static_cast<double>(step));
    if (count > static_cast<double>(kMaxRangeLength)) fail("range() too large");
    List out;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step)
        out.emplace_back(i);
    return Value(std::move(out));
}

Dict dict_from_args(CallArgs& args, const char* function) {
    Dict dict;
    if (args.positional.size() > 1) fail(std::string(function) + "() expects at most 1 positional argument");
    if (!args.positional.empty()) {
        const Value& source = args.positional[0];
        if (source.is_dict()) {
            dict = source.as_dict();
        } else {
            for (const Value& pair : iteration_items(source)) {
                List kv = iteration_items(pair);
                if (kv.size() != 2) fail(std::string(function) + "(): sequence items must be pairs");
                dict.set(kv[0], kv[1]);
            }
        }
    }
    for (const auto& [name, value] : args.keyword)
        dict.set(Value(name), value);
    return dict;
}

} // namespace

bool is_known_filter(std::string_view name) {
    return filters().count(canonical_filter(name)) > 0;
}
bool is_known_test(std::string_view name) {
    return tests().count(canonical_test(name)) > 0;
}

Value apply_filter(std::string_view name, const Value& input, const CallArgs& args) {
    auto it = filters().find(canonical_filter(name));
    if (it == filters().end()) fail("no filter named '" + std::string(name) + "'");
    return it->second(input, args);
}

bool apply_test(std::string_view name, const Value& input, const CallArgs& args) {
    auto it = tests().find(canonical_test(name));
    if (it == tests().end()) fail("no test named '" + std::string(name) + "'");
    return it->second(input, args);
}

bool has_method(const Value& self, std::string_view name) {
    switch (self.kind()) {
    case ValueKind::String:
        return is_string_method(name);
    case ValueKind::List:
        return name == "append" || name == "extend" || name == "insert" || name == "pop" || name == "index" ||
               name == "count";
    case ValueKind::Dict:
        return name == "items" || name == "keys" || name == "values" || name == "get";
    default:
        return false;
    }
}

std::optional<Value> call_method(const Value& self, std::string_view name, const CallArgs& args) {
    if (!has_method(self, name)) return std::nullopt;
    switch (self.kind()) {
    case ValueKind::String:
        return string_method(self.as_string(), name, args);
    case ValueKind::List:
        return list_method(self, name, args);
    case ValueKind::Dict:
        return dict_method(self, name, args);
    default:
        return std::nullopt;
    }
}

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

Dict make_globals(const GlobalOptions& options) {
    Dict globals;
    globals.set(Value("range"), Value::function("range", range_function));
    globals.set(Value("namespace"), Value::function("namespace", [](CallArgs& args) {
                    auto ns = std::make_shared<Namespace>();
                    ns->attributes = dict_from_args(args, "namespace");
                    return Value(ns);
                }));
    globals.set(Value("dict"),
                Value::function("dict", [](CallArgs& args) { return Value(dict_from_args(args, "dict")); }));
    globals.set(Value("raise_exception"), Value::function("raise_exception", [](CallArgs& args) -> Value {
                    std::string message = args.positional.empty() ? "raise_exception called"
                                                                  : to_display_string(args.positional[0]);
                    throw TemplateFailure(message, true);
                }));
    auto clock = options.clock;
    globals.set(Value("strftime_now"), Value::function("strftime_now", [clock](CallArgs& args) {
                    Arguments a("strftime_now", args, {"format"});
                    std::string format = a.string(0);
                    std::tm now{};
                    if (clock) {
                        now = clock();
                    } else {
                        std::time_t t =
                            std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
                        localtime_r(&t, &now);
                    }
                    if (format.empty()) return Value(std::string());
                    std::string buffer(format.size() * 8 + 64, '\0');
                    size_t n = std::strftime(buffer.data(), buffer.size(), format.c_str(), &now);
                    buffer.resize(n);
                    return Value(std::move(buffer));
                }));
    globals.set(Value("joiner"), Value::function("joiner", [](CallArgs& args) {
                    Arguments a("joiner", args, {"sep"});
                    std::string separator = a.has(0) ? to_display_string(a.value(0)) : ", ";
                    auto used = std::make_shared<bool>(false);
                    return Value::function("joiner", [separator, used](CallArgs&) {
                        if (!*used) {
                            *used = true;
                            return Value(std::string());
                        }
                        return Value(separator);
                    });
                }));
    return globals;
}

} // namespace hearth::chat
