#include "engine/chat/template_value.h"
#include "engine/chat/template_error.h"

namespace hearth::chat {

const Value* Dict::find(const Value& key) const {
    for (const auto& [k, v] : entries_)
        if (values_equal(k, key)) return &v;
    return nullptr;
}

Value* Dict::find(const Value& key) {
    for (auto& [k, v] : entries_)
        if (values_equal(k, key)) return &v;
    return nullptr;
}

const Value* Dict::find_name(std::string_view key) const {
    for (const auto& [k, v] : entries_)
        if (k.is_string() && k.as_string() == key) return &v;
    return nullptr;
}

void Dict::set(Value key, Value value) {
    if (Value* existing = find(key)) {
        *existing = std::move(value);
        return;
    }
    entries_.emplace_back(std::move(key), std::move(value));
}

bool Dict::erase(const Value& key) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (values_equal(it->first, key)) {
            entries_.erase(it);
            return true;
        }
    }
    return false;
}

Value Value::function(std::string name, std::function<Value(CallArgs&)> call) {
    return Value(std::make_shared<Function>(Function{std::move(name), std::move(call)}));
}

int64_t Value::as_int() const {
    if (is_bool()) return as_bool() ? 1 : 0;
    return std::get<int64_t>(data_);
}

double Value::as_double() const {
    if (is_float()) return std::get<double>(data_);
    return static_cast<double>(as_int());
}

bool Value::truthy() const {
    switch (kind()) {
    case ValueKind::Undefined:
    case ValueKind::None:
        return false;
    case ValueKind::Bool:
        return as_bool();
    case ValueKind::Int:
        return as_int() != 0;
    case ValueKind::Float:
        return as_double() != 0.0;
    case ValueKind::String:
        return !as_string().empty();
    case ValueKind::List:
        return !as_list().empty();
    case ValueKind::Dict:
        return as_dict().size() != 0;
    case ValueKind::Function:
    case ValueKind::Namespace:
        return true;
    }
    return false;
}

std::string_view Value::type_name() const {
    switch (kind()) {
    case ValueKind::Undefined:
        return "Undefined";
    case ValueKind::None:
        return "NoneType";
    case ValueKind::Bool:
        return "bool";
    case ValueKind::Int:
        return "int";
    case ValueKind::Float:
        return "float";
    case ValueKind::String:
        return "str";
    case ValueKind::List:
        return "list";
    case ValueKind::Dict:
        return "dict";
    case ValueKind::Function:
        return "function";
    case ValueKind::Namespace:
        return "Namespace";
    }
    return "object";
}

bool values_equal(const Value& a, const Value& b) {
    if (a.is_number() && b.is_number()) {
        if (a.is_float() || b.is_float()) return a.as_double() == b.as_double();
        return a.as_int() == b.as_int();
    }
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
    case ValueKind::Undefined:
    case ValueKind::None:
        return true;
    case ValueKind::String:
        return a.as_string() == b.as_string();
    case ValueKind::List: {
        const List& x = a.as_list();
        const List& y = b.as_list();
        if (x.size() != y.size()) return false;
        for (size_t i = 0; i < x.size(); ++i)
            if (!values_equal(x[i], y[i])) return false;
        return true;
    }
    case ValueKind::Dict: {
        const Dict& x = a.as_dict();
        const Dict& y = b.as_dict();
        if (x.size() != y.size()) return false;
        for (const auto& [key, value] : x.entries()) {
            const Value* other = y.find(key);
            if (!other || !values_equal(value, *other)) return false;
        }
        return true;
    }
    case ValueKind::Function:
        return &a.as_function() == &b.as_function();
    case ValueKind::Namespace:
        return &a.as_namespace() == &b.as_namespace();
    default:
        return false;
    }
}

bool value_less(const Value& a, const Value& b) {
    if (a.is_number() && b.is_number()) {
        if (a.is_float() || b.is_float()) return a.as_double() < b.as_double();
        return a.as_int() < b.as_int();
    }
    if (a.is_string() && b.is_string()) return a.as_string() < b.as_string(); // UTF-8 keeps code point order
    if (a.is_list() && b.is_list()) {
        const List& x = a.as_list();
        const List& y = b.as_list();
        for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
            if (!values_equal(x[i], y[i])) return value_less(x[i], y[i]);
        }
        return x.size() < y.size();
    }
    throw TemplateFailure("'<' not supported between instances of '" + std::string(a.type_name()) +
                          "' and '" + std::string(b.type_name()) + "'");
}

} // namespace hearth::chat
