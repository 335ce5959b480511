#pragma once
// A model's chat template (Jinja, as in tokenizer.chat_template), parsed once and
// rendered for each conversation the way Hugging Face's apply_chat_template does:
// trim_blocks and lstrip_blocks on, raise_exception and strftime_now available.
#include "engine/chat/chat_image.h"
#include "engine/chat/chat_role.h"
#include "engine/chat/template_error.h"
#include <ctime>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

namespace hearth::chat {

struct ChatMessage {
    Role role = Role::User;
    std::string content;
    nlohmann::ordered_json extra =
        nlohmann::ordered_json::object(); // e.g. tool_calls, merged into the message
    // Images the message shows, in order; the model reads them before its text. The template
    // never sees them: a session with an image projector puts them in the prompt.
    std::vector<ChatImage> images = {};
};

struct RenderOptions {
    bool add_generation_prompt = false;
    std::string bos_token;
    std::string eos_token;
    // More template variables, e.g. {"tools": [...], "enable_thinking": false}.
    // `tools` and `documents` are None unless given here, as in Hugging Face.
    nlohmann::ordered_json extra_context = nlohmann::ordered_json::object();
    // The local time strftime_now() formats; empty: now. Tests fix it.
    std::function<std::tm()> clock;
    size_t max_output_bytes = 16u << 20;
};

struct ParsedTemplate; // the statement tree

class ChatTemplate {
public:
    // Parses `source`; throws TemplateError ("<name>:<line>:<column>: <problem>") on a syntax error.
    explicit ChatTemplate(std::string_view source, std::string name = "chat template");
    ~ChatTemplate();
    ChatTemplate(ChatTemplate&&) noexcept;
    ChatTemplate& operator=(ChatTemplate&&) noexcept;

    const std::string& name() const { return name_; }

    // `messages` is a JSON array of {"role", "content", ...} objects. Keys keep their
    // order with ordered_json; with plain json they come sorted. Thread-safe (const).
    // Throws TemplateError on a runtime error, including the template's raise_exception.
    std::string render(const nlohmann::ordered_json& messages, const RenderOptions& options) const;
    std::string render(const nlohmann::json& messages, const RenderOptions& options) const;
    std::string render_messages(std::span<const ChatMessage> messages, const RenderOptions& options) const;
    // A chat app's rendering: as render_messages, except that a system message the
    // template does not take is folded into the first user message
    // (template_capabilities.h) rather than failing or vanishing.
    std::string render_conversation(std::span<const ChatMessage> messages,
                                    const RenderOptions& options) const;
    // Whether a leading system message renders as such; found once, when parsed.
    bool takes_system_role() const { return takes_system_role_; }
    // Renders with exactly these variables (plus the globals); for tests and tools.
    std::string render_context(const nlohmann::ordered_json& context, const RenderOptions& options) const;

private:
    std::string name_;
    std::unique_ptr<ParsedTemplate> parsed_;
    bool takes_system_role_ = true;
};

// The ChatML template used when a model carries none.
std::string_view default_chatml_template();

} // namespace hearth::chat
