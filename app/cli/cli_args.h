#pragma once
// A small option parser for the subcommands: "-m FILE", "--temp 0.8", "--ids".
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace hearth::cli {

class ArgError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Args {
public:
    // value_options take a value ("-m", "--model"); flags do not.
    Args(const std::vector<std::string>& args, std::set<std::string> value_options,
         std::set<std::string> flags);

    bool has(const std::string& name) const;
    std::optional<std::string> value(const std::string& name) const;
    std::optional<std::string> value(const std::string& name, const std::string& alias) const;
    // Every occurrence of a repeatable option, in order.
    std::vector<std::string> values(const std::string& name) const;
    std::string required(const std::string& name, const std::string& alias = {}) const;
    int get_int(const std::string& name, int fallback) const;
    double get_double(const std::string& name, double fallback) const;
    const std::vector<std::string>& positional() const { return positional_; }

private:
    std::vector<std::pair<std::string, std::string>> values_;
    std::set<std::string> flags_seen_;
    std::vector<std::string> positional_;
};

} // namespace hearth::cli
