// hearth-cli: the engine's own command-line face. Subcommands live in command_*.cpp.
#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "engine/error.h"
#include <cstdio>
#include <exception>

namespace hearth::cli {
std::map<std::string, CommandInfo>& command_registry() {
    static std::map<std::string, CommandInfo> registry;
    return registry;
}
} // namespace hearth::cli

static void print_usage() {
    std::fprintf(stderr, "usage: hearth-cli COMMAND [options]\n\ncommands:\n");
    for (const auto& [name, info] : hearth::cli::command_registry())
        std::fprintf(stderr, "  %s\n", info.usage);
}

int main(int argc, char** argv) {
    using namespace hearth::cli;
    if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
        print_usage();
        return argc < 2 ? kExitBadInput : kExitOk;
    }
    auto& registry = command_registry();
    auto it = registry.find(argv[1]);
    if (it == registry.end()) {
        std::fprintf(stderr, "hearth-cli: unknown command '%s'\n", argv[1]);
        print_usage();
        return kExitBadInput;
    }
    std::vector<std::string> args(argv + 2, argv + argc);
    try {
        return it->second.run(args);
    } catch (const ArgError& e) {
        std::fprintf(stderr, "hearth-cli %s: %s\nusage: %s\n", argv[1], e.what(), it->second.usage);
        return kExitBadInput;
    } catch (const hearth::Error& e) {
        std::fprintf(stderr, "hearth-cli %s: %s\n", argv[1], e.what());
        return kExitBadInput;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hearth-cli %s: error: %s\n", argv[1], e.what());
        return kExitFailure;
    }
}
