// The methods of str, list and dict that chat templates call ("a".startswith("b"), d.items()).
#include "engine/chat/template_builtin_support.h"
#include "engine/chat/template_builtins.h"
#include "engine/chat/template_strings.h"
#include "engine/chat/template_value_text.h"
#include <algorithm>
#include <cctype>
#include <charconv>

namespace hearth::chat {

using builtins::Arguments;
using builtins::fail;
using builtins::require_string;
using builtins::split_lines;

namespace {

Value to_list_value(const std::vector<std::string>& parts) {
    List list;
    for (const std::string& p : parts)
        list.emplace_back(p);
    return Value(std::move(list));
}

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
                size_t index = 0;
                if (std::from_chars(field.data(), field.data() + field.size(), index).ec != std::errc() ||
                    index >= args.positional.size())
                    fail("format(): index " + field + " out of range");
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

} // namespace

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

} // namespace hearth::chat
