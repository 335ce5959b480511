#pragma once
// One conversation with a model: renders it with the chat template, reuses the
// longest common prefix of tokens already in its KV cache, prefills only the
// new suffix, then samples and streams the reply. When the context fills, the
// oldest turns after the system prompt are shifted out (context_shift.h). Its
// KV state can be saved to a file and restored later (kv_state_file.h).
#include "engine/chat/chat_template.h"
#include "engine/forward/inference.h"
#include "engine/forward/kv_cache.h"
#include "engine/grammar/token_trie.h"
#include "engine/sampling/sampler.h"
#include "engine/session/engine_metrics.h"
#include "engine/session/generation_options.h"
#include "engine/session/kv_state_file.h"
#include "engine/session/speculative_decoder.h"
#include "engine/session/turn_result.h"
#include "engine/session/turn_starts.h"
#include "engine/vision/image_encoder.h"
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::engine {

// One message of a conversation: its role (system, user or assistant), its text, and the images it
// shows (read before its text).
using ChatTurn = chat::ChatMessage;

// Receives each piece of reply text as it is decoded (complete UTF-8 only).
using PieceCallback = std::function<void(std::string_view piece)>;
// Receives each token of the reply as it is sampled, before its text.
using TokenCallback = std::function<void(int32_t token)>;

class ChatSession {
public:
    // `metrics`: the sink of the engine this session runs in (it must outlive the session), which
    // from now on shows the expert counts of `inference`; null: the session keeps its figures to
    // itself. `identity` may be shared by the sessions of one model; computed on first need if null.
    ChatSession(Inference& inference, int32_t n_ctx, EngineMetrics* metrics = nullptr,
                std::shared_ptr<const ModelIdentity> identity = nullptr);
    ~ChatSession();
    ChatSession(const ChatSession&) = delete;
    ChatSession& operator=(const ChatSession&) = delete;

    // Generates the assistant's reply to `conversation` (which ends with a user turn). With
    // options.speculation on, drafted tokens are verified in one forward pass each time
    // (speculative_decoder.h; under a grammar, drafts end where it refuses them, and tokens are
    // verified against its masked distribution): the reply is plain decoding's, token for token when
    // greedy up to rounding near-ties; a draft model that cannot be used leaves the reason in
    // TurnStats::speculation_error and the reply decodes plainly.
    // `stop` is checked between tokens; `on_token`, if given, sees each token sampled. Throws
    // hearth::Error on a template error, and when the model computes NaN or infinite logits
    // (damaged weights): the pieces streamed before it are the reply so far, and the cache keeps
    // only the positions evaluated before those logits.
    TurnStats reply(std::span<const ChatTurn> conversation, const GenerationOptions& options,
                    const PieceCallback& on_piece, const std::atomic<bool>* stop = nullptr,
                    const TokenCallback& on_token = {});

    // The first half of reply(): renders, reuses the cached prefix (shifting the context
    // if it must) and prefills the rest. `logits` (after the last prompt token) stay valid
    // until the next evaluation; `tokens` is the logical prompt.
    struct Prefill {
        TurnStats stats;
        std::span<const float> logits;
        std::vector<int32_t> tokens;
    };
    Prefill prefill(std::span<const ChatTurn> conversation, const GenerationOptions& options);

    // The text the template produces for `conversation` plus the generation prompt.
    std::string render(std::span<const ChatTurn> conversation, const GenerationOptions& options) const;
    // That text as tokens, as the session would feed them to the model.
    std::vector<int32_t> prompt_tokens(std::span<const ChatTurn> conversation,
                                       const GenerationOptions& options) const;

    // Instant resume. save_state writes the cache (atomically) with the identity of the
    // model and of the template its tokens were rendered with; throws hearth::Error when
    // the file cannot be written. restore_state replaces the cache with a saved one if it
    // matches this model and the template `options` select; otherwise the cache is left
    // as it was and the result says why (the next reply then prefills as usual).
    void save_state(const std::string& path, KvStateFormat format = KvStateFormat::F16) const;
    KvRestoreResult restore_state(const std::string& path, const GenerationOptions& options = {});

    // Reads the images of the conversation's messages from now on; null: none (a turn that shows
    // an image then throws hearth::Error, "this model reads no images: ..."). Each image takes the
    // projector's positions in the prompt, between its family's image-start and image-end texts,
    // before its message's text; the cache records them by the picture's id, so the next turn
    // reuses them like tokens. Speculation is off in a conversation that shows images.
    void set_image_encoder(std::shared_ptr<vision::ImageEncoder> encoder) {
        image_encoder_ = std::move(encoder);
    }

    KvCache& cache() { return *cache_; }
    const KvCache& cache() const { return *cache_; }
    const ModelIdentity& model_identity() const;
    uint64_t template_hash(const GenerationOptions& options) const;

private:
    // The images of a conversation, in order, and the conversation as the template sees it: each
    // message's images as image markers before its text (the conversation itself when it shows none).
    struct ImagesInPrompt {
        std::vector<ChatTurn> marked;
        std::vector<const chat::ChatImage*> images;
        std::span<const ChatTurn> turns;
    };
    static ImagesInPrompt images_in_prompt(std::span<const ChatTurn> conversation);
    using ImageList = std::span<const chat::ChatImage* const>;

    const chat::ChatTemplate& template_for(const GenerationOptions& options) const;
    // `text` (rendered) as the model's input: the i-th image marker in it stands for images[i],
    // its positions recorded as the picture's id (KvCache::image_position_id).
    std::vector<int32_t> tokenize_prompt(const std::string& text, const GenerationOptions& options,
                                         ImageList images = {}) const;
    std::vector<int32_t> prompt_tokens_of(const ImagesInPrompt& in_prompt,
                                          const GenerationOptions& options) const;
    // The positions of `view` from `from` on into the cache, images encoded (or found in the
    // encoder's cache) as they come; the logits after the last one.
    std::span<const float> eval_prompt(std::span<const int32_t> view, int32_t from, ImageList images,
                                       TurnStats& stats);
    int32_t resolve_n_keep(std::span<const ChatTurn> conversation, const GenerationOptions& options,
                           std::span<const int32_t> tokens, ImageList images) const;
    // Where each turn of `conversation` starts among `prompt` (the conversation as rendered and
    // tokenized), looked up on first need. Refers to all three: valid while they are.
    TurnStarts turn_starts(std::span<const ChatTurn> conversation, const GenerationOptions& options,
                           std::span<const int32_t> prompt, ImageList images) const;
    // prefill() of `tokens`, the conversation rendered and tokenized, whose turns start at `starts`.
    Prefill prefill_prompt(std::span<const ChatTurn> conversation, const GenerationOptions& options,
                           std::span<const int32_t> tokens, const TurnStarts& starts, ImageList images);

    // The draft model options.speculation names, loaded (and checked) on first use and kept
    // while the options name the same one. Throws hearth::Error when it cannot draft.
    DraftModel& draft_model_for(const SpeculationOptions& options);

    Inference& inference_;
    std::unique_ptr<EngineMetrics> own_metrics_; // when no sink was passed in
    EngineMetrics& metrics_;
    std::unique_ptr<KvCache> cache_;
    std::string model_template_source_;
    std::unique_ptr<chat::ChatTemplate> model_template_;
    mutable std::string override_source_;
    mutable std::unique_ptr<chat::ChatTemplate> override_template_;
    mutable std::shared_ptr<const ModelIdentity> identity_;
    std::shared_ptr<const TokenTrie> vocabulary_trie_; // for grammars; built on first need
    uint64_t cache_template_hash_ = 0;                 // of the template the cached tokens were rendered with
    std::shared_ptr<vision::ImageEncoder> image_encoder_;
    std::unique_ptr<DraftModel> draft_;
    std::string draft_path_;                   // what draft_ was loaded from, or
    std::shared_ptr<const Model> draft_given_; // the loaded model it was given
    std::vector<float> verify_logits_;         // every row of a verify pass, reserved once
    std::vector<int32_t> verify_batch_;        // the token not yet evaluated and the drafted ones
    std::vector<int32_t> draft_view_;          // the cache's tokens and that token, for a draft model
};

} // namespace hearth::engine
