#include "engine/session/chat_session.h"
#include "engine/error.h"
#include "engine/session/engine_metrics.h"
#include <chrono>
#include <vector>

namespace hearth::engine {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}
} // namespace

double TurnStats::prefill_tokens_per_second() const {
    return prefill_seconds > 0 ? computed_tokens / prefill_seconds : 0.0;
}
double TurnStats::decode_tokens_per_second() const {
    return decode_seconds > 0 ? generated_tokens / decode_seconds : 0.0;
}

ChatSession::ChatSession(Inference& inference, int32_t n_ctx)
    : inference_(inference), cache_(inference.new_cache(n_ctx)) {
    const Model& model = inference.model();
    const std::string& source = model.chat_template();
    try {
        model_template_ = std::make_unique<chat::ChatTemplate>(
            source.empty() ? chat::default_chatml_template() : std::string_view(source), model.path());
    } catch (const std::exception& e) {
        // A broken template in the file should not make the model unusable: fall back to ChatML.
        model_template_ = std::make_unique<chat::ChatTemplate>(chat::default_chatml_template(), "ChatML");
    }
}

const chat::ChatTemplate& ChatSession::template_for(const GenerationOptions& options) const {
    if (options.template_override.empty()) return *model_template_;
    if (!override_template_ || override_source_ != options.template_override) {
        override_template_ = std::make_unique<chat::ChatTemplate>(options.template_override, "custom chat template");
        override_source_ = options.template_override;
    }
    return *override_template_;
}

std::string ChatSession::render(std::span<const ChatTurn> conversation, const GenerationOptions& options) const {
    const auto& tok = inference_.model().tokenizer();
    chat::RenderOptions render_options;
    render_options.add_generation_prompt = true;
    if (tok.bos_id() >= 0) render_options.bos_token = tok.token_text(tok.bos_id());
    if (tok.eos_id() >= 0) render_options.eos_token = tok.token_text(tok.eos_id());
    return template_for(options).render_messages(conversation, render_options);
}

std::vector<int32_t> ChatSession::tokenize_prompt(const std::string& text) const {
    const auto& tok = inference_.model().tokenizer();
    std::vector<int32_t> tokens = tok.encode(text, tok.add_bos_by_default(), true);
    // Templates that write the BOS text themselves would otherwise get two.
    if (tokens.size() >= 2 && tokens[0] == tok.bos_id() && tokens[1] == tok.bos_id()) tokens.erase(tokens.begin());
    return tokens;
}

TurnStats ChatSession::reply(std::span<const ChatTurn> conversation, const GenerationOptions& options,
                             const PieceCallback& on_piece, const std::atomic<bool>* stop) {
    const auto start = Clock::now();
    EngineMetrics& metrics = engine_metrics();
    TurnStats stats;
    const auto& tok = inference_.model().tokenizer();
    const int32_t n_ctx = cache_->capacity();
    // Room the reply needs: the whole max length when the context allows, else a quarter of it.
    const int32_t reply_room = std::min(std::max(options.max_tokens, 1), n_ctx / 4);

    // Render the conversation; while it does not fit, drop the oldest turns after the system prompt.
    std::vector<ChatTurn> turns(conversation.begin(), conversation.end());
    std::vector<int32_t> tokens = tokenize_prompt(render(turns, options));
    const size_t first_droppable = !turns.empty() && turns.front().role == "system" ? 1 : 0;
    while (static_cast<int32_t>(tokens.size()) + reply_room > n_ctx && turns.size() > first_droppable + 1) {
        turns.erase(turns.begin() + static_cast<std::ptrdiff_t>(first_droppable));
        tokens = tokenize_prompt(render(turns, options));
        stats.context_shifted = true;
    }
    if (static_cast<int32_t>(tokens.size()) + 1 > n_ctx)
        throw Error("the message is too long: " + std::to_string(tokens.size()) +
                    " tokens do not fit in the context length of " + std::to_string(n_ctx));

    // Reuse the cached prefix; at least the last prompt token is evaluated to get logits.
    int32_t reused = std::min(cache_->common_prefix(tokens), static_cast<int32_t>(tokens.size()) - 1);
    cache_->truncate(reused);
    stats.prompt_tokens = static_cast<int32_t>(tokens.size());
    stats.reused_tokens = reused;
    stats.computed_tokens = stats.prompt_tokens - reused;
    metrics.generating = true;
    metrics.tokens_reused = reused;
    metrics.tokens_computed = stats.computed_tokens;
    metrics.tokens_generated = 0;
    metrics.kv_capacity = n_ctx;

    std::span<const float> logits =
        inference_.eval(*cache_, std::span<const int32_t>(tokens).subspan(static_cast<size_t>(reused)));
    stats.prefill_seconds = seconds_since(start);
    metrics.prefill_tokens_per_second = stats.prefill_tokens_per_second();
    metrics.kv_tokens = cache_->size();

    Sampler sampler(options.sampling, inference_.n_vocab());
    tokenizer::IncrementalDecoder decoder(tok);
    const auto decode_start = Clock::now();
    stats.stop_reason = "length";
    for (int32_t i = 0; i < options.max_tokens; ++i) {
        if (stop && stop->load(std::memory_order_relaxed)) {
            stats.stop_reason = "stopped";
            break;
        }
        const int32_t next = sampler.sample(logits, tokens);
        if (i == 0) {
            stats.time_to_first_token = seconds_since(start);
            metrics.time_to_first_token_ms = stats.time_to_first_token * 1000.0;
        }
        if (tok.is_end_of_generation(next)) {
            stats.stop_reason = "eos";
            break;
        }
        tokens.push_back(next);
        ++stats.generated_tokens;
        if (const std::string piece = decoder.push(next); !piece.empty() && on_piece) on_piece(piece);
        if (cache_->size() >= n_ctx) {
            stats.stop_reason = "context";
            break;
        }
        logits = inference_.eval(*cache_, std::span<const int32_t>(&tokens.back(), 1));
        stats.decode_seconds = seconds_since(decode_start);
        metrics.tokens_generated = stats.generated_tokens;
        metrics.decode_tokens_per_second = stats.decode_tokens_per_second();
        metrics.kv_tokens = cache_->size();
    }
    if (const std::string rest = decoder.flush(); !rest.empty() && on_piece) on_piece(rest);
    stats.decode_seconds = seconds_since(decode_start);
    metrics.decode_tokens_per_second = stats.decode_tokens_per_second();
    metrics.kv_bytes = static_cast<int64_t>(cache_->bytes());
    metrics.generating = false;
    return stats;
}

} // namespace hearth::engine
