#include "engine/tools/forced_tool_grammar.h"
#include "engine/grammar/json_schema_grammar.h"

namespace hearth::engine {

namespace {
using json = nlohmann::ordered_json;

// A GBNF string literal of plain text.
std::string literal(std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '\n')
            out += "\\n";
        else if (c == '"' || c == '\\' || c == '[' || c == ']')
            (out += '\\') += c;
        else
            out += c;
    }
    return out + "\"";
}

struct WireFormat {
    std::string before;
    std::string after;
    std::string arguments_key;
};

WireFormat wire_format(ToolFamily family) {
    switch (family) {
    case ToolFamily::Hermes:
        return {"<tool_call>\n", "\n</tool_call>", "arguments"};
    case ToolFamily::Llama3:
        return {"", "", "parameters"};
    case ToolFamily::Mistral:
        return {"[TOOL_CALLS][", "]", "arguments"};
    case ToolFamily::FencedJson:
        return {"```json\n", "\n```", "arguments"};
    }
    return {"", "", "arguments"};
}
} // namespace

std::string forced_tool_call_gbnf(ToolFamily family, const json& tools) {
    const WireFormat format = wire_format(family);
    json branches = json::array();
    for (size_t i = 0; i < tools.size(); ++i) {
        const json& function = tools[i].at("function");
        json parameters =
            function.contains("parameters") ? function.at("parameters") : json{{"type", "object"}};
        // Each tool's schema is checked alone, so that an error names the tool's own field.
        json_schema_to_gbnf(parameters, "tools[" + std::to_string(i) + "].function.parameters");
        branches.push_back(json{{"type", "object"},
                                {"properties", json{{"name", json{{"const", function.at("name")}}},
                                                    {format.arguments_key, parameters}}},
                                {"required", json::array({"name", format.arguments_key})},
                                {"additionalProperties", false}});
    }
    const json schema = branches.size() == 1 ? branches[0] : json{{"anyOf", branches}};
    std::string call = json_schema_to_gbnf(schema, "tools");
    // The converter's start rule becomes the call's; the new start wraps it in the wire format.
    static constexpr std::string_view kRoot = "root ::= ";
    call.replace(0, kRoot.size(), "tool-call ::= ");
    std::string root = "root ::= ";
    if (!format.before.empty()) root += literal(format.before) + " ";
    root += "tool-call";
    if (!format.after.empty()) root += " " + literal(format.after);
    return root + "\n" + call;
}

} // namespace hearth::engine
