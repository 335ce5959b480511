#pragma once
// Subcommands of hearth-cli register themselves here; main() dispatches by name.
#include <map>
#include <string>
#include <vector>

namespace hearth::cli {

// Exit statuses shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // a runtime failure
inline constexpr int kExitBadInput = 2; // a bad file, template or argument

using CommandFn = int (*)(const std::vector<std::string>& args); // args after the subcommand name

struct CommandInfo {
    CommandFn run;
    const char* usage;
};

std::map<std::string, CommandInfo>& command_registry();

struct CommandRegistration {
    CommandRegistration(const char* name, CommandFn run, const char* usage) {
        command_registry()[name] = CommandInfo{run, usage};
    }
};

#define HEARTH_CLI_COMMAND(name, fn, usage)                                                                  \
    static const ::hearth::cli::CommandRegistration hearth_cli_registration_##fn {                           \
        name, fn, usage                                                                                      \
    }

} // namespace hearth::cli
