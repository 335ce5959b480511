// hearth-cli tokenize -m MODEL: stdin's text in, token ids out. Works on
// vocabulary-only GGUF files too, since it reads nothing but the tokenizer.
#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/tokenizer.h"
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

namespace hearth::cli {
namespace {

int run_tokenize(const std::vector<std::string>& argv) {
    Args args(argv, {"-m", "--model"}, {"--no-bos", "--parse-special"});
    if (!args.positional().empty()) throw ArgError("unexpected argument '" + args.positional()[0] + "'");
    const std::string path = args.required("-m", "--model");
    const auto file = gguf::GgufFile::open(path);
    const auto tokenizer = tokenizer::Tokenizer::from_gguf(*file);
    for (const std::string& warning : tokenizer->warnings())
        std::fprintf(stderr, "hearth-cli tokenize: %s: %s\n", path.c_str(), warning.c_str());

    std::cin >> std::noskipws;
    const std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    const bool add_bos = tokenizer->add_bos_by_default() && !args.has("--no-bos");
    const std::vector<int32_t> ids = tokenizer->encode(text, add_bos, args.has("--parse-special"));

    std::string line;
    for (size_t i = 0; i < ids.size(); ++i) {
        if (i > 0) line += ' ';
        line += std::to_string(ids[i]);
    }
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stdout);
    return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
}

} // namespace

HEARTH_CLI_COMMAND("tokenize", run_tokenize,
                   "tokenize -m MODEL [--no-bos] [--parse-special]   token ids of stdin's text (BOS as the "
                   "model adds it by default)");

} // namespace hearth::cli
