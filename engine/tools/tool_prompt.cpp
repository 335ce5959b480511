#include "engine/tools/tool_prompt.h"
#include <map>

namespace hearth::engine {

namespace {
using json = nlohmann::ordered_json;
constexpr const char* kProbeToolName = "hearth_probe_tool_7f3a";

json arguments_json(const std::string& text) {
    json value = json::parse(text, nullptr, false);
    return value.is_discarded() ? json(text) : value;
}
} // namespace

bool template_renders_tools(const chat::ChatTemplate& chat_template) {
    chat::RenderOptions options;
    options.add_generation_prompt = true;
    options.extra_context["tools"] = json::array(
        {json{{"type", "function"},
              {"function", json{{"name", kProbeToolName}, {"parameters", json{{"type", "object"}}}}}}});
    const chat::ChatMessage user{chat::Role::User, "Hello", json::object()};
    try {
        return chat_template.render_messages(std::span(&user, 1), options).find(kProbeToolName) !=
               std::string::npos;
    } catch (const std::exception&) {
        return false;
    }
}

std::string tool_calls_as_text(ToolFamily family, std::span<const ToolCall> calls) {
    std::string out;
    switch (family) {
    case ToolFamily::Hermes:
        for (const ToolCall& call : calls)
            out += (out.empty() ? "" : "\n") + std::string("<tool_call>\n") +
                   json{{"name", call.name}, {"arguments", arguments_json(call.arguments)}}.dump() +
                   "\n</tool_call>";
        return out;
    case ToolFamily::Llama3:
        for (const ToolCall& call : calls)
            out += (out.empty() ? "" : "; ") +
                   json{{"name", call.name}, {"parameters", arguments_json(call.arguments)}}.dump();
        return out;
    case ToolFamily::Mistral: {
        json list = json::array();
        for (const ToolCall& call : calls) {
            json one{{"name", call.name}, {"arguments", arguments_json(call.arguments)}};
            if (!call.id.empty()) one["id"] = call.id;
            list.push_back(std::move(one));
        }
        return "[TOOL_CALLS]" + list.dump();
    }
    case ToolFamily::FencedJson:
        for (const ToolCall& call : calls)
            out += (out.empty() ? "" : "\n") + std::string("```json\n") +
                   json{{"name", call.name}, {"arguments", arguments_json(call.arguments)}}.dump() + "\n```";
        return out;
    }
    return out;
}

std::vector<ToolCall> tool_calls_of(const chat::ChatMessage& message) {
    std::vector<ToolCall> calls;
    if (!message.extra.is_object() || !message.extra.contains("tool_calls")) return calls;
    for (const json& item : message.extra.at("tool_calls")) {
        const json& function = item.contains("function") ? item.at("function") : item;
        ToolCall call;
        call.name = function.value("name", "");
        if (const auto arguments = function.find("arguments"); arguments != function.end())
            call.arguments = arguments->is_string() ? arguments->get<std::string>() : arguments->dump();
        call.id = item.value("id", "");
        calls.push_back(std::move(call));
    }
    return calls;
}

std::string tool_instructions(ToolFamily family, const json& tools) {
    // Each tool's function object alone, compact: small models have small contexts.
    std::string out = "You can call these functions:\n";
    for (const json& tool : tools)
        out += (tool.contains("function") ? tool.at("function") : tool).dump() + "\n";
    const ToolCall example{"function_name", R"({"argument": "value"})", {}};
    return out + "To call one, reply with:\n" + tool_calls_as_text(family, std::span(&example, 1));
}

std::vector<chat::ChatMessage> conversation_with_tools_as_text(std::span<const chat::ChatMessage> messages,
                                                               ToolFamily family, const json& tools) {
    std::vector<chat::ChatMessage> out;
    if (tools.is_array() && !tools.empty()) {
        const std::string instructions = tool_instructions(family, tools);
        if (!messages.empty() && messages.front().role == chat::Role::System) {
            out.push_back(messages.front());
            out.back().content += "\n\n" + instructions;
            messages = messages.subspan(1);
        } else {
            out.push_back(chat::ChatMessage{chat::Role::System, instructions, json::object()});
        }
    }
    std::map<std::string, std::string> names; // call id -> function name, from the calls so far
    for (const chat::ChatMessage& message : messages) {
        if (message.role == chat::Role::Tool) {
            // Labelled with the function's name (its call's id when unknown): short, and what a
            // model reads best.
            const std::string id = message.extra.value("tool_call_id", std::string());
            const auto name = names.find(id);
            const std::string result =
                "Result of " + (name != names.end() ? name->second : id) + ":\n" + message.content;
            if (!out.empty() && out.back().role == chat::Role::User &&
                out.back().extra.value("tool_result", false))
                out.back().content += "\n\n" + result; // several results answer one turn
            else
                out.push_back(chat::ChatMessage{chat::Role::User, result, json{{"tool_result", true}}});
            continue;
        }
        chat::ChatMessage copy{message.role, message.content, json::object()};
        const std::vector<ToolCall> calls = tool_calls_of(message);
        for (const ToolCall& call : calls)
            names[call.id] = call.name;
        if (!calls.empty())
            copy.content += (copy.content.empty() ? "" : "\n") + tool_calls_as_text(family, calls);
        out.push_back(std::move(copy));
    }
    // The marker above only joined results; templates see plain messages.
    for (chat::ChatMessage& message : out)
        message.extra = json::object();
    return out;
}

} // namespace hearth::engine
