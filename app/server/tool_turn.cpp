#include "app/server/tool_turn.h"
#include "engine/chat/chat_template.h"
#include "engine/grammar/gbnf_parser.h"
#include "engine/runtime/engine_runtime.h"
#include "engine/tools/forced_tool_grammar.h"
#include "engine/tools/tool_prompt.h"
#include <mutex>
#include <unordered_map>

namespace hearth::server {

namespace {
using ordered_json = nlohmann::ordered_json;

// How a template takes tools: its family's wire format, and whether it renders `tools` itself
// (else they go into the prompt as text). Probed once per template.
struct ToolTemplate {
    engine::ToolFamily family = engine::ToolFamily::Hermes;
    bool rendersTools = false;
};

ToolTemplate toolTemplateOf(const engine::EngineRuntime& runtime, const engine::GenerationOptions& options) {
    static std::mutex mutex;
    static std::unordered_map<std::string, ToolTemplate> known; // by template source
    const std::string& own =
        options.template_override.empty() ? runtime.model().chat_template() : options.template_override;
    const std::string source = own.empty() ? std::string(chat::default_chatml_template()) : own;
    const std::lock_guard lock(mutex);
    if (const auto found = known.find(source); found != known.end()) return found->second;
    ToolTemplate result;
    result.family = engine::tool_family_for_template(source);
    try {
        result.rendersTools = engine::template_renders_tools(chat::ChatTemplate(source, "chat template"));
    } catch (const std::exception&) {
        result.rendersTools = false; // a template that does not parse: the session falls back to ChatML
    }
    return known.emplace(source, result).first->second;
}

// The tools a forced call chooses from: all of them, or the one named.
ordered_json forcedTools(ToolChoice choice, const QString& forcedTool, const ordered_json& tools) {
    if (choice == ToolChoice::Required) return tools;
    ordered_json chosen = ordered_json::array();
    for (const ordered_json& tool : tools)
        if (tool.at("function").at("name") == forcedTool.toStdString()) chosen.push_back(tool);
    return chosen;
}
} // namespace

ToolTurn prepareToolTurn(const engine::EngineRuntime& runtime, engine::RuntimeRequest& turn,
                         const QByteArray& toolsJson, ToolChoice choice, const QString& forcedTool,
                         size_t maxCalls) {
    ToolTurn result;
    const bool offered = !toolsJson.isEmpty() && choice != ToolChoice::None;
    bool toolMessages = false;
    for (const engine::ChatTurn& t : turn.conversation)
        toolMessages = toolMessages || !t.extra.empty();
    if (turn.options.template_override == engine::kRawPromptTemplate || (!offered && !toolMessages))
        return result;
    const ToolTemplate toolTemplate = toolTemplateOf(runtime, turn.options);
    result.family = toolTemplate.family;
    const ordered_json tools = offered ? ordered_json::parse(toolsJson.toStdString()) : ordered_json::array();
    if (toolTemplate.rendersTools) {
        if (offered) turn.options.tools_json = toolsJson.toStdString();
    } else {
        turn.conversation =
            engine::conversation_with_tools_as_text(turn.conversation, toolTemplate.family, tools);
    }
    if (offered) {
        result.stream.emplace(toolTemplate.family, maxCalls);
        if (choice == ToolChoice::Required || choice == ToolChoice::Function)
            turn.options.grammar = std::make_shared<const engine::Grammar>(engine::parse_gbnf(
                engine::forced_tool_call_gbnf(toolTemplate.family, forcedTools(choice, forcedTool, tools)),
                "tool_choice"));
    }
    return result;
}

} // namespace hearth::server
