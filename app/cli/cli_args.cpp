#include "app/cli/cli_args.h"

namespace hearth::cli {

Args::Args(const std::vector<std::string>& args, std::set<std::string> value_options,
           std::set<std::string> flags) {
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (value_options.count(arg)) {
            if (i + 1 >= args.size()) throw ArgError("option " + arg + " needs a value");
            values_.emplace_back(arg, args[++i]);
        } else if (flags.count(arg)) {
            flags_seen_.insert(arg);
        } else if (arg.size() > 1 && arg[0] == '-' && !(arg[1] >= '0' && arg[1] <= '9')) {
            throw ArgError("unknown option " + arg);
        } else {
            positional_.push_back(arg);
        }
    }
}

bool Args::has(const std::string& name) const {
    return flags_seen_.count(name) > 0 || value(name).has_value();
}

std::optional<std::string> Args::value(const std::string& name) const {
    std::optional<std::string> found;
    for (const auto& [key, val] : values_)
        if (key == name) found = val; // the last occurrence wins
    return found;
}

std::optional<std::string> Args::value(const std::string& name, const std::string& alias) const {
    if (auto v = value(name)) return v;
    if (!alias.empty()) return value(alias);
    return std::nullopt;
}

std::vector<std::string> Args::values(const std::string& name) const {
    std::vector<std::string> found;
    for (const auto& [key, val] : values_)
        if (key == name) found.push_back(val);
    return found;
}

std::string Args::required(const std::string& name, const std::string& alias) const {
    if (auto v = value(name, alias)) return *v;
    throw ArgError("missing required option " + name);
}

int Args::get_int(const std::string& name, int fallback) const {
    auto v = value(name);
    if (!v) return fallback;
    try {
        size_t used = 0;
        int result = std::stoi(*v, &used);
        if (used != v->size()) throw std::invalid_argument(*v);
        return result;
    } catch (const std::exception&) {
        throw ArgError("option " + name + " expects an integer, got '" + *v + "'");
    }
}

double Args::get_double(const std::string& name, double fallback) const {
    auto v = value(name);
    if (!v) return fallback;
    try {
        size_t used = 0;
        double result = std::stod(*v, &used);
        if (used != v->size()) throw std::invalid_argument(*v);
        return result;
    } catch (const std::exception&) {
        throw ArgError("option " + name + " expects a number, got '" + *v + "'");
    }
}

} // namespace hearth::cli
