#pragma once
// What a chat template takes, found out by rendering it (as llama.cpp's chat
// code does), and the conversation adapted to it. Gemma's templates, for one,
// raise an exception on a system message: a chat app folds the system prompt
// into the first user message instead of failing every reply.
#include "engine/chat/chat_template.h"
#include <span>
#include <vector>

namespace hearth::chat {

struct TemplateCapabilities {
    // A leading system message renders, with its text (false: the template raises on
    // it or leaves its text out).
    bool system_role = true;
};

TemplateCapabilities probe_capabilities(const ChatTemplate& chat_template);

// For a template without a system role: a leading system message goes in front of
// the next message's text, after a blank line (as Gemma 3's own template joins
// them), or is dropped when nothing follows it. Other conversations are returned
// as they are.
std::vector<ChatMessage> fold_system_message(std::span<const ChatMessage> messages);

} // namespace hearth::chat
