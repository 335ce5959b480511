#pragma once
// What the built-in filters, tests, methods and globals share: Python's binding of positional and
// keyword arguments, the error a built-in raises, and a few string helpers. Internal to
// engine/chat (template_filters.cpp, template_tests.cpp, template_methods.cpp, template_globals.cpp).
#include "engine/chat/template_error.h"
#include "engine/chat/template_value.h"
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::chat::builtins {

[[noreturn]] inline void fail(const std::string& problem) {
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

const std::string& require_string(const Value& v, std::string_view what);

// Python's str.splitlines(): every line break it knows, "\r\n" as one; no empty last line.
std::vector<std::string> split_lines(const std::string& s);

} // namespace hearth::chat::builtins
