// hearth-cli template: renders a conversation with a chat template and prints
// exactly the text the model would be given.
#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "app/cli/text_file.h"
#include "engine/chat/chat_template.h"
#include "engine/error.h"
#include "engine/gguf/gguf_file.h"
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace hearth::cli {

namespace {

nlohmann::ordered_json read_messages(const std::string& path) {
    nlohmann::ordered_json messages;
    try {
        messages = nlohmann::ordered_json::parse(read_text_file(path));
    } catch (const nlohmann::json::exception& e) {
        throw hearth::Error(path + ": not valid JSON: " + e.what());
    }
    if (!messages.is_array()) throw hearth::Error(path + ": expected a JSON array of messages");
    for (const auto& message : messages) {
        if (!message.is_object() || !message.contains("role") || !message["role"].is_string())
            throw hearth::Error(path + ": every message needs a \"role\" string");
    }
    return messages;
}

// The text of token `id_key` (e.g. tokenizer.ggml.bos_token_id) in the model's vocabulary, or "".
std::string special_token_text(const gguf::GgufFile& file, const char* id_key) {
    std::optional<int64_t> id = file.get_int(id_key);
    const gguf::Array* tokens = file.get_array("tokenizer.ggml.tokens");
    if (!id || !tokens || *id < 0 || static_cast<size_t>(*id) >= tokens->items.size()) return "";
    const auto* text = std::get_if<std::string>(&tokens->items[static_cast<size_t>(*id)].data);
    return text ? *text : "";
}

int run_template(const std::vector<std::string>& arguments) {
    Args args(arguments, {"-m", "--model", "--template", "--messages", "--bos", "--eos"},
              {"--add-generation-prompt"});
    if (!args.positional().empty()) throw ArgError("unexpected argument " + args.positional().front());
    std::optional<std::string> model = args.value("-m", "--model");
    std::optional<std::string> template_file = args.value("--template");
    if (model.has_value() == template_file.has_value())
        throw ArgError("give exactly one of -m MODEL or --template FILE");
    nlohmann::ordered_json messages = read_messages(args.required("--messages"));

    chat::RenderOptions options;
    options.add_generation_prompt = args.has("--add-generation-prompt");
    std::string source;
    std::string name;
    if (model) {
        auto file = gguf::GgufFile::open(*model);
        source = file->get_string("tokenizer.chat_template")
                     .value_or(std::string(chat::default_chatml_template()));
        name = *model + " (tokenizer.chat_template)";
        options.bos_token = special_token_text(*file, "tokenizer.ggml.bos_token_id");
        options.eos_token = special_token_text(*file, "tokenizer.ggml.eos_token_id");
    } else {
        source = read_text_file(*template_file);
        name = *template_file;
    }
    if (auto bos = args.value("--bos")) options.bos_token = *bos;
    if (auto eos = args.value("--eos")) options.eos_token = *eos;

    // A TemplateError is a hearth::Error: main() prints it and exits with kExitBadInput.
    chat::ChatTemplate chat_template(source, name);
    std::string text = chat_template.render(messages, options);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return kExitOk;
}

} // namespace

HEARTH_CLI_COMMAND("template", run_template,
                   "template (-m MODEL | --template FILE) --messages JSON_FILE [--add-generation-prompt] "
                   "[--bos TEXT] [--eos TEXT]");

} // namespace hearth::cli
