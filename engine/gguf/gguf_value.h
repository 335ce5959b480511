#pragma once
// Builders for metadata values, used with GgufWriter, and the check that a value is well formed.
#include "engine/gguf/gguf_file.h"
#include <cstdint>
#include <string>
#include <vector>

namespace hearth::gguf {

Value uint8_value(uint8_t v);
Value int8_value(int8_t v);
Value uint16_value(uint16_t v);
Value int16_value(int16_t v);
Value uint32_value(uint32_t v);
Value int32_value(int32_t v);
Value uint64_value(uint64_t v);
Value int64_value(int64_t v);
Value float32_value(float v);
Value float64_value(double v);
Value bool_value(bool v);
Value string_value(std::string v);
// Every item must have element_type.
Value array_value(ValueType element_type, std::vector<Value> items);
Value string_array(const std::vector<std::string>& items);
Value int32_array(const std::vector<int32_t>& items);
Value float32_array(const std::vector<float>& items);

// Empty when the value can be written as it is, else what is wrong with it: the
// stored alternative must match the type, integers must fit their type, array
// items must have the element type, arrays nest at most kMaxArrayDepth deep.
std::string value_problem(const Value& value);

} // namespace hearth::gguf
