// Jinja's built-in tests (x is test(args)).
#include "engine/chat/template_builtin_support.h"
#include "engine/chat/template_builtins.h"
#include "engine/chat/template_strings.h"
#include "engine/chat/template_value_text.h"
#include <cmath>
#include <unordered_map>

namespace hearth::chat {

using builtins::fail;

namespace {

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

} // namespace

bool is_known_test(std::string_view name) {
    return tests().count(canonical_test(name)) > 0;
}

bool apply_test(std::string_view name, const Value& input, const CallArgs& args) {
    auto it = tests().find(canonical_test(name));
    if (it == tests().end()) fail("no test named '" + std::string(name) + "'");
    return it->second(input, args);
}

} // namespace hearth::chat
