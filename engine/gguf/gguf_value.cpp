#include "engine/gguf/gguf_value.h"
#include "engine/gguf/gguf_limits.h"
#include <limits>

namespace hearth::gguf {

namespace {
Value make(ValueType type, decltype(Value::data) data) {
    Value v;
    v.type = type;
    v.data = std::move(data);
    return v;
}

template <typename T> bool fits(uint64_t v) {
    return v <= std::numeric_limits<T>::max();
}
template <typename T> bool fits(int64_t v) {
    return v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
}

std::string problem_at_depth(const Value& value, int depth) {
    const std::string type_name(value_type_name(value.type));
    const auto* u = std::get_if<uint64_t>(&value.data);
    const auto* s = std::get_if<int64_t>(&value.data);
    const std::string wrong = "a " + type_name + " value holds the wrong kind of data";
    const std::string range = "value out of range for " + type_name;
    switch (value.type) {
    case ValueType::UInt8:
        return !u ? wrong : fits<uint8_t>(*u) ? "" : range;
    case ValueType::UInt16:
        return !u ? wrong : fits<uint16_t>(*u) ? "" : range;
    case ValueType::UInt32:
        return !u ? wrong : fits<uint32_t>(*u) ? "" : range;
    case ValueType::UInt64:
        return !u ? wrong : "";
    case ValueType::Int8:
        return !s ? wrong : fits<int8_t>(*s) ? "" : range;
    case ValueType::Int16:
        return !s ? wrong : fits<int16_t>(*s) ? "" : range;
    case ValueType::Int32:
        return !s ? wrong : fits<int32_t>(*s) ? "" : range;
    case ValueType::Int64:
        return !s ? wrong : "";
    case ValueType::Float32:
    case ValueType::Float64:
        return std::holds_alternative<double>(value.data) ? "" : wrong;
    case ValueType::Bool:
        return std::holds_alternative<bool>(value.data) ? "" : wrong;
    case ValueType::String:
        return std::holds_alternative<std::string>(value.data) ? "" : wrong;
    case ValueType::Array: {
        const auto* array = std::get_if<Array>(&value.data);
        if (!array) return wrong;
        if (depth >= kMaxArrayDepth)
            return "arrays nested more than " + std::to_string(kMaxArrayDepth) + " deep";
        if (static_cast<uint32_t>(array->element_type) > static_cast<uint32_t>(ValueType::Float64))
            return "unknown array element type " + std::to_string(static_cast<uint32_t>(array->element_type));
        for (size_t i = 0; i < array->items.size(); ++i) {
            const Value& item = array->items[i];
            if (item.type != array->element_type)
                return "array item " + std::to_string(i) + " has type " +
                       std::string(value_type_name(item.type)) + ", not the element type " +
                       std::string(value_type_name(array->element_type));
            std::string p = problem_at_depth(item, depth + 1);
            if (!p.empty()) return "array item " + std::to_string(i) + ": " + p;
        }
        return "";
    }
    }
    return "unknown value type " + std::to_string(static_cast<uint32_t>(value.type));
}
} // namespace

Value uint8_value(uint8_t v) {
    return make(ValueType::UInt8, uint64_t{v});
}
Value int8_value(int8_t v) {
    return make(ValueType::Int8, int64_t{v});
}
Value uint16_value(uint16_t v) {
    return make(ValueType::UInt16, uint64_t{v});
}
Value int16_value(int16_t v) {
    return make(ValueType::Int16, int64_t{v});
}
Value uint32_value(uint32_t v) {
    return make(ValueType::UInt32, uint64_t{v});
}
Value int32_value(int32_t v) {
    return make(ValueType::Int32, int64_t{v});
}
Value uint64_value(uint64_t v) {
    return make(ValueType::UInt64, v);
}
Value int64_value(int64_t v) {
    return make(ValueType::Int64, v);
}
Value float32_value(float v) {
    return make(ValueType::Float32, double{v});
}
Value float64_value(double v) {
    return make(ValueType::Float64, v);
}
Value bool_value(bool v) {
    return make(ValueType::Bool, v);
}
Value string_value(std::string v) {
    return make(ValueType::String, std::move(v));
}

Value array_value(ValueType element_type, std::vector<Value> items) {
    return make(ValueType::Array, Array{element_type, std::move(items)});
}

Value string_array(const std::vector<std::string>& items) {
    std::vector<Value> values;
    values.reserve(items.size());
    for (const auto& s : items)
        values.push_back(string_value(s));
    return array_value(ValueType::String, std::move(values));
}

Value int32_array(const std::vector<int32_t>& items) {
    std::vector<Value> values;
    values.reserve(items.size());
    for (int32_t v : items)
        values.push_back(int32_value(v));
    return array_value(ValueType::Int32, std::move(values));
}

Value float32_array(const std::vector<float>& items) {
    std::vector<Value> values;
    values.reserve(items.size());
    for (float v : items)
        values.push_back(float32_value(v));
    return array_value(ValueType::Float32, std::move(values));
}

std::string value_problem(const Value& value) {
    return problem_at_depth(value, 0);
}

} // namespace hearth::gguf
