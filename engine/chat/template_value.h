#pragma once
// The values a chat template computes with: Python-like undefined/None, bool,
// int, float, str, list, dict (insertion-ordered), callables and namespaces.
// Lists, dicts and namespaces are shared by reference, as in Python.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace hearth::chat {

class Value;

struct Undefined {
    std::string name; // what was looked up, for error messages; may be empty
};
struct None {};

using List = std::vector<Value>;

// Insertion-ordered dictionary; lookups are linear (template dicts are small).
class Dict {
public:
    const Value* find(const Value& key) const;
    Value* find(const Value& key);
    const Value* find_name(std::string_view key) const;
    void set(Value key, Value value); // replaces in place or appends
    bool erase(const Value& key);
    const std::vector<std::pair<Value, Value>>& entries() const { return entries_; }
    size_t size() const; // defined below Value: clang needs Value complete to instantiate it

private:
    std::vector<std::pair<Value, Value>> entries_;
};

struct CallArgs {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> keyword;
};

// A global function, a bound method or a macro.
struct Function {
    std::string name;
    std::function<Value(CallArgs&)> call;
};

// The object `namespace(...)` returns: the one thing `set x.attr = ...` may assign to.
struct Namespace {
    Dict attributes;
};

enum class ValueKind { Undefined, None, Bool, Int, Float, String, List, Dict, Function, Namespace };

class Value {
public:
    Value() : data_(Undefined{}) {}
    Value(Undefined u) : data_(std::move(u)) {}
    Value(None) : data_(None{}) {}
    Value(bool b) : data_(b) {}
    Value(int i) : data_(int64_t{i}) {}
    Value(int64_t i) : data_(i) {}
    Value(double d) : data_(d) {}
    Value(std::string s) : data_(std::move(s)) {}
    Value(std::string_view s) : data_(std::string(s)) {}
    Value(const char* s) : data_(std::string(s)) {}
    Value(List list) : data_(std::make_shared<List>(std::move(list))) {}
    Value(Dict dict) : data_(std::make_shared<Dict>(std::move(dict))) {}
    Value(std::shared_ptr<List> list) : data_(std::move(list)) {}
    Value(std::shared_ptr<Dict> dict) : data_(std::move(dict)) {}
    Value(std::shared_ptr<Function> fn) : data_(std::move(fn)) {}
    Value(std::shared_ptr<Namespace> ns) : data_(std::move(ns)) {}

    static Value function(std::string name, std::function<Value(CallArgs&)> call);

    ValueKind kind() const { return static_cast<ValueKind>(data_.index()); }
    bool is_undefined() const { return kind() == ValueKind::Undefined; }
    bool is_none() const { return kind() == ValueKind::None; }
    bool is_bool() const { return kind() == ValueKind::Bool; }
    bool is_int() const { return kind() == ValueKind::Int; }
    bool is_float() const { return kind() == ValueKind::Float; }
    bool is_number() const { return is_int() || is_float() || is_bool(); } // bool is an int in Python
    bool is_string() const { return kind() == ValueKind::String; }
    bool is_list() const { return kind() == ValueKind::List; }
    bool is_dict() const { return kind() == ValueKind::Dict; }
    bool is_function() const { return kind() == ValueKind::Function; }
    bool is_namespace() const { return kind() == ValueKind::Namespace; }

    bool as_bool() const { return std::get<bool>(data_); }
    int64_t as_int() const;   // bool and int
    double as_double() const; // any number
    const std::string& as_string() const { return std::get<std::string>(data_); }
    List& as_list() const { return *std::get<std::shared_ptr<List>>(data_); }
    Dict& as_dict() const { return *std::get<std::shared_ptr<Dict>>(data_); }
    Function& as_function() const { return *std::get<std::shared_ptr<Function>>(data_); }
    Namespace& as_namespace() const { return *std::get<std::shared_ptr<Namespace>>(data_); }
    const std::string& undefined_name() const { return std::get<Undefined>(data_).name; }

    bool truthy() const;
    // Python's name of the type, for error messages: "str", "int", "NoneType", ...
    std::string_view type_name() const;

private:
    std::variant<Undefined, None, bool, int64_t, double, std::string, std::shared_ptr<List>,
                 std::shared_ptr<Dict>, std::shared_ptr<Function>, std::shared_ptr<Namespace>>
        data_;
};

inline size_t Dict::size() const {
    return entries_.size();
}

// Python ==: numbers across int/float/bool, lists and dicts deeply, undefined equals undefined.
bool values_equal(const Value& a, const Value& b);
// Python <: numbers, strings (by code point), lists lexicographically; throws TemplateFailure otherwise.
bool value_less(const Value& a, const Value& b);

} // namespace hearth::chat
