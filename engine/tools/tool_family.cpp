#include "engine/tools/tool_family.h"

namespace hearth::engine {

ToolFamily tool_family_for_template(std::string_view source) {
    const auto has = [&](std::string_view marker) { return source.find(marker) != std::string_view::npos; };
    if (has("<tool_call>")) return ToolFamily::Hermes;
    if (has("[TOOL_CALLS]")) return ToolFamily::Mistral;
    if (has("<|python_tag|>") || has("<|start_header_id|>")) return ToolFamily::Llama3;
    if (has("<start_of_turn>") || has("<|assistant|>")) return ToolFamily::FencedJson;
    return ToolFamily::Hermes; // ChatML and unknown templates: the most widely trained form
}

std::string_view tool_family_name(ToolFamily family) {
    switch (family) {
    case ToolFamily::Hermes:
        return "hermes";
    case ToolFamily::Llama3:
        return "llama3";
    case ToolFamily::Mistral:
        return "mistral";
    case ToolFamily::FencedJson:
        return "fenced-json";
    }
    return "hermes";
}

} // namespace hearth::engine
