#include "engine/chat/template_capabilities.h"

namespace hearth::chat {

namespace {
// Text no template writes by itself: if it shows in the output, the system message rendered.
constexpr const char* kProbeSystemText = "hearth-probe: you are a system prompt";

bool renders(const ChatTemplate& chat_template, const std::vector<ChatMessage>& messages,
             std::string* output = nullptr) {
    RenderOptions options;
    options.add_generation_prompt = true;
    try {
        std::string text = chat_template.render_messages(messages, options);
        if (output) *output = std::move(text);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}
} // namespace

TemplateCapabilities probe_capabilities(const ChatTemplate& chat_template) {
    TemplateCapabilities capabilities;
    const ChatMessage user{Role::User, "Hello", nlohmann::ordered_json::object()};
    // A template that refuses even a lone user message tells nothing about system messages.
    if (!renders(chat_template, {user})) return capabilities;
    std::string output;
    const bool rendered = renders(
        chat_template, {ChatMessage{Role::System, kProbeSystemText, nlohmann::ordered_json::object()}, user},
        &output);
    capabilities.system_role = rendered && output.find(kProbeSystemText) != std::string::npos;
    return capabilities;
}

std::vector<ChatMessage> fold_system_message(std::span<const ChatMessage> messages) {
    std::vector<ChatMessage> folded(messages.begin(), messages.end());
    if (folded.empty() || folded.front().role != Role::System) return folded;
    if (folded.size() > 1) {
        const std::string& system = folded.front().content;
        ChatMessage& next = folded[1];
        if (!system.empty()) next.content = next.content.empty() ? system : system + "\n\n" + next.content;
    }
    folded.erase(folded.begin());
    return folded;
}

} // namespace hearth::chat
