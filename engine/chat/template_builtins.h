#pragma once
// Jinja's built-in filters, tests and global functions, and the methods of
// str, list and dict that chat templates call, with Python's behaviour. One file
// each: template_filters.cpp, template_tests.cpp, template_methods.cpp and
// template_globals.cpp; attribute and item lookup in template_builtins.cpp.
#include "engine/chat/template_value.h"
#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace hearth::chat {

bool is_known_filter(std::string_view name);
bool is_known_test(std::string_view name);

// Throw TemplateFailure on bad arguments or an unknown name.
Value apply_filter(std::string_view name, const Value& input, const CallArgs& args);
bool apply_test(std::string_view name, const Value& input, const CallArgs& args);

// Methods such as "abc".startswith("a") or d.items(); nullopt when `self` has no such method.
bool has_method(const Value& self, std::string_view name);
std::optional<Value> call_method(const Value& self, std::string_view name, const CallArgs& args);

struct GlobalOptions {
    std::function<std::tm()> clock; // for strftime_now; empty: the local time now
};
// range, namespace, dict, raise_exception, strftime_now, joiner, cycler.
Dict make_globals(const GlobalOptions& options);

// obj.name: dict methods first, then keys (Python's getattr, then getitem); undefined when absent.
Value get_attribute(const Value& target, const std::string& name);
// obj[key]: list and str indexes count from the end when negative; undefined when absent.
Value get_item(const Value& target, const Value& key);

// Items of a for loop over `v`: list items, dict keys, string characters; undefined is empty.
List iteration_items(const Value& v);

// The largest list range() may build.
inline constexpr int64_t kMaxRangeLength = 1'000'000;

} // namespace hearth::chat
