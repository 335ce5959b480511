#pragma once
// Tools in the prompt. A template that renders `tools` (Qwen, Llama 3, Mistral, ...) gets them
// as they are, and the conversation's tool calls and results as messages of their own. A template
// without tool syntax (Gemma, Phi, plain ChatML) gets them as text: the tools and how to call
// them in a system message, an assistant's calls written in the family's wire format, and each
// tool result as a user message, so that the conversation still alternates.
#include "engine/chat/chat_template.h"
#include "engine/tools/tool_call.h"
#include "engine/tools/tool_family.h"
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

namespace hearth::engine {

// Whether rendering a conversation with `tools` shows them (a probe tool's name shows up).
bool template_renders_tools(const chat::ChatTemplate& chat_template);

// The calls in the family's wire format, as the model would write them.
std::string tool_calls_as_text(ToolFamily family, std::span<const ToolCall> calls);

// A message's calls, from its extra "tool_calls" (OpenAI's form; arguments an object or JSON text).
std::vector<ToolCall> tool_calls_of(const chat::ChatMessage& message);

// The system prompt's part that lists `tools` and says how to call them.
std::string tool_instructions(ToolFamily family, const nlohmann::ordered_json& tools);

// The conversation for a template without tool syntax (see above); `tools` may be empty.
std::vector<chat::ChatMessage> conversation_with_tools_as_text(std::span<const chat::ChatMessage> messages,
                                                               ToolFamily family,
                                                               const nlohmann::ordered_json& tools);

} // namespace hearth::engine
