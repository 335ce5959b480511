#pragma once
// One conversation with a model: renders it with the chat template, reuses the
// longest common prefix of tokens already in its KV cache, prefills only the
// new suffix, then samples and streams the reply.
#include "engine/chat/chat_template.h"
#include "engine/sampling/sampler.h"
#include "engine/session/inference.h"
#include "engine/session/kv_cache.h"
#include <atomic>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace hearth::engine {

// One message of a conversation: role "system", "user" or "assistant", and its text.
using ChatTurn = chat::ChatMessage;

struct GenerationOptions {
    SamplingParams sampling;
    int32_t max_tokens = 512;
    std::string template_override; // Jinja source; empty: the model's template (ChatML if none)
};

struct TurnStats {
    int32_t prompt_tokens = 0;    // tokens of the rendered conversation
    int32_t reused_tokens = 0;    // of those, already in the cache
    int32_t computed_tokens = 0;  // of those, prefilled now
    int32_t generated_tokens = 0;
    double prefill_seconds = 0;
    double time_to_first_token = 0; // seconds from the call to the first sampled token
    double decode_seconds = 0;
    bool context_shifted = false;   // older turns left the model's view
    std::string stop_reason;        // "eos", "length", "stopped", "context"
    double prefill_tokens_per_second() const;
    double decode_tokens_per_second() const;
};

// Receives each piece of reply text as it is decoded (complete UTF-8 only).
using PieceCallback = std::function<void(std::string_view piece)>;

class ChatSession {
public:
    ChatSession(Inference& inference, int32_t n_ctx);

    // Generates the assistant's reply to `conversation` (which ends with a user turn).
    // `stop` is checked between tokens. Throws hearth::Error on a template error.
    TurnStats reply(std::span<const ChatTurn> conversation, const GenerationOptions& options,
                    const PieceCallback& on_piece, const std::atomic<bool>* stop = nullptr);

    // The text the template produces for `conversation` plus the generation prompt.
    std::string render(std::span<const ChatTurn> conversation, const GenerationOptions& options) const;

    KvCache& cache() { return *cache_; }
    const KvCache& cache() const { return *cache_; }

private:
    const chat::ChatTemplate& template_for(const GenerationOptions& options) const;
    std::vector<int32_t> tokenize_prompt(const std::string& text) const;

    Inference& inference_;
    std::unique_ptr<KvCache> cache_;
    std::unique_ptr<chat::ChatTemplate> model_template_;
    mutable std::string override_source_;
    mutable std::unique_ptr<chat::ChatTemplate> override_template_;
};

} // namespace hearth::engine
