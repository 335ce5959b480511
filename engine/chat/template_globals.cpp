// The global functions templates call: range, namespace, dict, raise_exception, strftime_now, joiner.
#include "engine/chat/template_builtin_support.h"
#include "engine/chat/template_builtins.h"
#include "engine/chat/template_value_text.h"
#include <chrono>
#include <cmath>
#include <ctime>
#include <memory>

namespace hearth::chat {

using builtins::Arguments;
using builtins::fail;

namespace {

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
