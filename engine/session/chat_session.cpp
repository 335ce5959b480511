#include "engine/session/chat_session.h"
#include "engine/error.h"
#include "engine/grammar/grammar_constraint.h"
#include "engine/session/context_shift.h"
#include "engine/vision/image_prompt.h"
#include <algorithm>
#include <chrono>
#include <vector>

namespace hearth::engine {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}
int32_t length(std::span<const int32_t> tokens) {
    return static_cast<int32_t>(tokens.size());
}
// Of two token lists; an image position of no identity (KvCache::kImagePosition) is no match.
int32_t common_prefix(std::span<const int32_t> a, std::span<const int32_t> b) {
    const size_t n = std::min(a.size(), b.size());
    size_t i = 0;
    while (i < n && a[i] == b[i] && a[i] != KvCache::kImagePosition)
        ++i;
    return static_cast<int32_t>(i);
}
// The error of a reply whose logits are NaN or infinite after `generated` tokens.
std::string non_finite_logits_message(int32_t generated) {
    if (generated == 0)
        return "the model computed NaN or infinite values for the prompt: its weights are damaged";
    return "the model computed NaN or infinite values after " + std::to_string(generated) +
           (generated == 1 ? " token" : " tokens") +
           " of the reply: its weights are damaged (the reply ends there)";
}
} // namespace

ChatSession::ChatSession(Inference& inference, int32_t n_ctx, EngineMetrics* metrics,
                         std::shared_ptr<const ModelIdentity> identity)
    : inference_(inference), own_metrics_(metrics ? nullptr : std::make_unique<EngineMetrics>()),
      metrics_(metrics ? *metrics : *own_metrics_), cache_(inference.new_cache(n_ctx)),
      identity_(std::move(identity)) {
    const Model& model = inference.model();
    const std::string& source = model.chat_template();
    model_template_source_ = source.empty() ? std::string(chat::default_chatml_template()) : source;
    try {
        model_template_ = std::make_unique<chat::ChatTemplate>(model_template_source_, model.path());
    } catch (const std::exception& e) {
        // A broken template in the file should not make the model unusable: fall back to ChatML.
        model_template_source_ = chat::default_chatml_template();
        model_template_ = std::make_unique<chat::ChatTemplate>(model_template_source_, "ChatML");
    }
    if (metrics) metrics->show_expert_hits(inference.expert_hits());
}

ChatSession::~ChatSession() {
    if (!own_metrics_) metrics_.stop_showing_expert_hits(inference_.expert_hits().get());
}

const chat::ChatTemplate& ChatSession::template_for(const GenerationOptions& options) const {
    if (options.template_override.empty()) return *model_template_;
    if (!override_template_ || override_source_ != options.template_override) {
        override_template_ =
            std::make_unique<chat::ChatTemplate>(options.template_override, "custom chat template");
        override_source_ = options.template_override;
    }
    return *override_template_;
}

uint64_t ChatSession::template_hash(const GenerationOptions& options) const {
    return hash_text(options.template_override.empty() ? model_template_source_ : options.template_override);
}

const ModelIdentity& ChatSession::model_identity() const {
    if (!identity_)
        identity_ = std::make_shared<const ModelIdentity>(engine::model_identity(inference_.model()));
    return *identity_;
}

namespace {
chat::RenderOptions render_options_for(const tokenizer::Tokenizer& tok, bool add_generation_prompt,
                                       const GenerationOptions& options) {
    chat::RenderOptions render_options;
    render_options.add_generation_prompt = add_generation_prompt;
    if (!options.tools_json.empty())
        render_options.extra_context["tools"] = nlohmann::ordered_json::parse(options.tools_json);
    if (tok.bos_id() >= 0) render_options.bos_token = tok.token_text(tok.bos_id());
    if (tok.eos_id() >= 0) render_options.eos_token = tok.token_text(tok.eos_id());
    return render_options;
}
} // namespace

ChatSession::ImagesInPrompt ChatSession::images_in_prompt(std::span<const ChatTurn> conversation) {
    ImagesInPrompt out;
    out.turns = conversation;
    const bool any = std::any_of(conversation.begin(), conversation.end(),
                                 [](const ChatTurn& turn) { return !turn.images.empty(); });
    if (!any) return out;
    out.marked.assign(conversation.begin(), conversation.end());
    for (ChatTurn& turn : out.marked) {
        std::string markers;
        for (const chat::ChatImage& image : turn.images) {
            markers += vision::kImageMarker;
            out.images.push_back(&image);
        }
        turn.content.insert(0, markers);
    }
    out.turns = out.marked;
    return out;
}

std::string ChatSession::render(std::span<const ChatTurn> conversation,
                                const GenerationOptions& options) const {
    // render_conversation: a system prompt the template has no role for goes into the first user turn.
    return template_for(options).render_conversation(
        images_in_prompt(conversation).turns,
        render_options_for(inference_.model().tokenizer(), true, options));
}

std::vector<int32_t> ChatSession::tokenize_prompt(const std::string& text, const GenerationOptions& options,
                                                  ImageList images) const {
    const auto& tok = inference_.model().tokenizer();
    const bool add_bos = options.add_bos && tok.add_bos_by_default();
    // Templates that write the BOS text themselves would otherwise get two.
    const auto without_double_bos = [&](std::vector<int32_t> tokens) {
        if (tokens.size() >= 2 && tokens[0] == tok.bos_id() && tokens[1] == tok.bos_id())
            tokens.erase(tokens.begin());
        return tokens;
    };
    if (images.empty()) return without_double_bos(tok.encode(text, add_bos, true));

    if (!image_encoder_)
        throw Error("this model reads no images: " + inference_.model().path() +
                    " was loaded without an image projector (mmproj)");
    const vision::VisionProjector& projector = image_encoder_->projector();
    const auto append_text = [&](std::string_view piece, std::vector<int32_t>& out) {
        if (piece.empty()) return;
        const std::vector<int32_t> ids = tok.encode(piece, false, true);
        out.insert(out.end(), ids.begin(), ids.end());
    };
    // Each piece between images is tokenized on its own, as the image prompts of the command line
    // are (vision/image_prompt.h).
    const std::string_view all(text);
    size_t marker = all.find(vision::kImageMarker);
    std::vector<int32_t> tokens = without_double_bos(tok.encode(all.substr(0, marker), add_bos, true));
    for (size_t i = 0; marker != std::string_view::npos; ++i) {
        if (i >= images.size())
            throw Error("the conversation's text holds the image marker " +
                        std::string(vision::kImageMarker) + " itself, which cannot be sent with images");
        append_text(projector.image_start_text(), tokens);
        tokens.insert(tokens.end(), static_cast<size_t>(projector.n_image_tokens()),
                      KvCache::image_position_id(images[i]->id));
        append_text(projector.image_end_text(), tokens);
        const size_t next = all.find(vision::kImageMarker, marker + vision::kImageMarker.size());
        const size_t after = marker + vision::kImageMarker.size();
        append_text(all.substr(after, next == std::string_view::npos ? std::string_view::npos : next - after),
                    tokens);
        marker = next;
    }
    return tokens;
}

std::vector<int32_t> ChatSession::prompt_tokens(std::span<const ChatTurn> conversation,
                                                const GenerationOptions& options) const {
    return prompt_tokens_of(images_in_prompt(conversation), options);
}

std::vector<int32_t> ChatSession::prompt_tokens_of(const ImagesInPrompt& in_prompt,
                                                   const GenerationOptions& options) const {
    const std::string text = template_for(options).render_conversation(
        in_prompt.turns, render_options_for(inference_.model().tokenizer(), true, options));
    size_t markers = 0;
    for (size_t at = text.find(vision::kImageMarker); at != std::string::npos;
         at = text.find(vision::kImageMarker, at + vision::kImageMarker.size()))
        ++markers;
    if (markers < in_prompt.images.size())
        throw Error("the chat template left out " + std::to_string(in_prompt.images.size() - markers) +
                    " of the conversation's " + std::to_string(in_prompt.images.size()) + " images");
    return tokenize_prompt(text, options, in_prompt.images); // more markers than images: it throws
}

int32_t ChatSession::resolve_n_keep(std::span<const ChatTurn> conversation, const GenerationOptions& options,
                                    std::span<const int32_t> tokens, ImageList images) const {
    const auto& tok = inference_.model().tokenizer();
    int32_t n_keep = options.n_keep;
    if (n_keep < 0) {
        n_keep = tok.bos_id() >= 0 && !tokens.empty() && tokens[0] == tok.bos_id() ? 1 : 0;
        if (!conversation.empty() && conversation.front().role == chat::Role::System) {
            // The system prompt's tokens: the part its rendering alone shares with the whole. A
            // template without a system role has it in the first user turn: keep that turn whole.
            const chat::ChatTemplate& chat_template = template_for(options);
            const size_t kept =
                chat_template.takes_system_role() ? 1 : std::min<size_t>(2, conversation.size());
            try {
                const std::string text = chat_template.render_conversation(
                    conversation.first(kept), render_options_for(tok, false, options));
                const std::vector<int32_t> system = tokenize_prompt(text, options, images);
                n_keep = std::max(n_keep, common_prefix(system, tokens));
            } catch (const std::exception&) {
                // Some templates refuse a conversation without a user turn: keep the BOS only.
            }
        }
    }
    // Half the context at most, so that a shift always frees room.
    return std::clamp(n_keep, 0, cache_->capacity() / 2);
}

TurnStarts ChatSession::turn_starts(std::span<const ChatTurn> conversation, const GenerationOptions& options,
                                    std::span<const int32_t> prompt, ImageList images) const {
    return TurnStarts(
        conversation.size(), static_cast<int32_t>(prompt.size()), [=, this, &options](size_t turn) {
            // The turns before it, rendered alone, share exactly the tokens that precede it.
            try {
                const std::string text = template_for(options).render_conversation(
                    conversation.first(turn),
                    render_options_for(inference_.model().tokenizer(), false, options));
                return common_prefix(tokenize_prompt(text, options, images), prompt);
            } catch (const std::exception&) {
                return 0; // the template refuses this part of the conversation: no boundary known here
            }
        });
}

ChatSession::Prefill ChatSession::prefill(std::span<const ChatTurn> conversation,
                                          const GenerationOptions& options) {
    const ImagesInPrompt in_prompt = images_in_prompt(conversation);
    const std::vector<int32_t> prompt = prompt_tokens_of(in_prompt, options);
    return prefill_prompt(in_prompt.turns, options, prompt,
                          turn_starts(in_prompt.turns, options, prompt, in_prompt.images), in_prompt.images);
}

ChatSession::Prefill ChatSession::prefill_prompt(std::span<const ChatTurn> conversation,
                                                 const GenerationOptions& options,
                                                 std::span<const int32_t> tokens, const TurnStarts& starts,
                                                 ImageList images) {
    const auto start = Clock::now();
    metrics_.begin_reply();
    Prefill out;
    TurnStats& stats = out.stats;
    const int32_t n_ctx = cache_->capacity();
    // Room the reply needs: the whole max length when the context allows, else a quarter of it.
    const int32_t reply_room = std::min(std::max(options.max_tokens, 1), n_ctx / 4);

    if (tokens.empty()) throw Error("the conversation renders to no tokens");
    const int32_t n_tokens = length(tokens);

    // The cache stands for its logical tokens with the window [at, at + dropped) cut out.
    int32_t common = common_prefix(cache_->logical_tokens(), tokens);
    int32_t at = cache_->shift_at();
    int32_t dropped = length(cache_->dropped());
    if (dropped > 0 && common < at + dropped) {
        // The conversation changed at or before the shifted-out tokens: the cut no longer applies.
        common = std::min(common, at);
        cache_->truncate(common);
        cache_->clear_dropped();
        dropped = 0;
    }
    int32_t reusable = common - dropped; // positions of the cache that hold the prompt's tokens
    int32_t in_view = n_tokens - dropped;

    if (in_view + reply_room > n_ctx) {
        // Shift: keep the system prompt, cut the oldest turns after it (context_shift.h).
        if (dropped == 0) at = resolve_n_keep(conversation, options, tokens, images);
        const std::optional<int32_t> to_drop =
            tokens_to_drop_for_prompt(starts, at, at + dropped, in_view, in_view + reply_room - n_ctx);
        if (!to_drop)
            throw Error("the message is too long: " + std::to_string(n_tokens - (at + dropped)) +
                        " tokens after the system prompt do not fit in the context length of " +
                        std::to_string(n_ctx));
        const int32_t extra = *to_drop;
        cache_->truncate(reusable);
        if (reusable > at + extra && inference_.can_rotate_keys()) {
            inference_.shift_context(*cache_, at, extra); // cheap: no token is recomputed
            reusable -= extra;
        } else {
            reusable = std::min(reusable, at);
            cache_->truncate(reusable);
            std::vector<int32_t> window = cache_->dropped();
            const auto first = tokens.begin() + at + dropped;
            window.insert(window.end(), first, first + extra);
            cache_->set_dropped(at, std::move(window));
        }
        dropped += extra;
        in_view -= extra;
        ++stats.context_shifts;
    }

    // The prompt as the model sees it: the logical tokens with the window cut out.
    std::vector<int32_t> view;
    if (dropped > 0) {
        view.reserve(static_cast<size_t>(in_view));
        view.insert(view.end(), tokens.begin(), tokens.begin() + at);
        view.insert(view.end(), tokens.begin() + at + dropped, tokens.end());
    } else {
        view.assign(tokens.begin(), tokens.end());
    }

    // Reuse the cached prefix. At least the last two prompt tokens are evaluated: the last one
    // gives the logits, and computed in a batch (never alone, see Inference::eval) it rounds
    // exactly as in a full recompute of the prompt.
    int32_t reused = std::clamp(std::min(reusable, in_view - 2), 0, in_view - 1);
    // Never from the middle of an image: its positions are evaluated together, attending both ways.
    while (reused > 0 && KvCache::is_image_position(view[static_cast<size_t>(reused)]) &&
           view[static_cast<size_t>(reused) - 1] == view[static_cast<size_t>(reused)])
        --reused;
    cache_->truncate(reused);
    stats.prompt_tokens = in_view;
    stats.reused_tokens = reused;
    stats.computed_tokens = in_view - reused;
    stats.shifted_out_tokens = dropped;
    stats.n_keep = dropped > 0 ? at : 0;
    metrics_.publish_reply(stats, cache_->size(), n_ctx);

    out.logits = eval_prompt(view, reused, images, stats);
    cache_template_hash_ = template_hash(options);
    stats.prefill_seconds = seconds_since(start);
    metrics_.publish_reply(stats, cache_->size(), n_ctx);
    out.tokens.assign(tokens.begin(), tokens.end());
    return out;
}

std::span<const float> ChatSession::eval_prompt(std::span<const int32_t> view, int32_t from, ImageList images,
                                                TurnStats& stats) {
    const size_t n = view.size();
    size_t i = static_cast<size_t>(from);
    std::span<const float> logits;
    while (i < n) {
        size_t end = i;
        if (!KvCache::is_image_position(view[i])) {
            while (end < n && !KvCache::is_image_position(view[end]))
                ++end;
            logits = inference_.eval(*cache_, view.subspan(i, end - i));
            i = end;
            continue;
        }
        // One image's positions (or what a context shift left of them: its last ones).
        const int32_t id = view[i];
        const auto shown = std::find_if(images.begin(), images.end(), [&](const chat::ChatImage* image) {
            return KvCache::image_position_id(image->id) == id;
        });
        if (shown == images.end() || !image_encoder_)
            throw Error("an image position of no image of this conversation"); // cannot happen
        const auto per_image = static_cast<size_t>(image_encoder_->projector().n_image_tokens());
        const auto n_embd = static_cast<size_t>(image_encoder_->projector().n_embd());
        size_t before = 0; // its positions before i
        while (before < i && view[i - before - 1] == id)
            ++before;
        const size_t offset = before % per_image;
        while (end < n && view[end] == id && end - i < per_image - offset)
            ++end;
        const vision::ImageEncoder::Encoded encoded = image_encoder_->encode(**shown);
        ++stats.images;
        stats.image_positions += static_cast<int32_t>(end - i);
        if (!encoded.from_cache) ++stats.images_encoded;
        stats.image_encode_seconds += encoded.seconds;
        metrics_.publish_reply(stats, cache_->size(), cache_->capacity());
        logits = inference_.eval_image(
            *cache_, std::span<const float>(*encoded.vectors).subspan(offset * n_embd, (end - i) * n_embd),
            static_cast<int32_t>(end - i), id);
        i = end;
    }
    return logits;
}

TurnStats ChatSession::reply(std::span<const ChatTurn> given_conversation, const GenerationOptions& options,
                             const PieceCallback& on_piece, const std::atomic<bool>* stop,
                             const TokenCallback& on_token) {
    const auto start = Clock::now();
    // Whether it returns or throws (a template error, a prompt too long), the reply is over.
    struct EndOfReply {
        std::atomic<bool>& generating;
        ~EndOfReply() { generating = false; }
    } end_of_reply{metrics_.generating};
    const auto& tok = inference_.model().tokenizer();
    const int32_t n_ctx = cache_->capacity();

    // The conversation rendered and tokenized once; its turn starts serve every shift of this
    // reply and the first turn left in view.
    const ImagesInPrompt in_prompt = images_in_prompt(given_conversation);
    const std::span<const ChatTurn> conversation = in_prompt.turns; // with image markers
    const std::vector<int32_t> prompt = prompt_tokens_of(in_prompt, options);
    const TurnStarts starts = turn_starts(conversation, options, prompt, in_prompt.images);
    Prefill prefilled = prefill_prompt(conversation, options, prompt, starts, in_prompt.images);
    TurnStats stats = prefilled.stats;
    std::span<const float> logits = prefilled.logits;
    std::vector<int32_t>& tokens = prefilled.tokens; // the logical history, for the sampler's penalties

    Sampler sampler(options.sampling, inference_.n_vocab());
    std::optional<GrammarConstraint> grammar;
    if (options.grammar) {
        if (!vocabulary_trie_) {
            // Each token's bytes as the reply's text holds them; control tokens have none.
            std::vector<std::string> pieces(static_cast<size_t>(inference_.n_vocab()));
            std::vector<int32_t> end_tokens;
            for (int32_t id = 0; id < inference_.n_vocab() && id < tok.n_vocab(); ++id) {
                pieces[static_cast<size_t>(id)] = tok.token_to_piece(id);
                if (tok.is_end_of_generation(id)) end_tokens.push_back(id);
            }
            vocabulary_trie_ = std::make_shared<const TokenTrie>(std::move(pieces), std::move(end_tokens));
        }
        grammar.emplace(options.grammar, vocabulary_trie_);
    }
    tokenizer::IncrementalDecoder decoder(tok);
    const size_t n_vocab = static_cast<size_t>(inference_.n_vocab());

    // Speculation: a draft model that cannot be used leaves the reason and plain decoding.
    // Not with images: their positions are no tokens a drafter could propose or a draft model read.
    SpeculationOptions speculation_options = options.speculation;
    if (!in_prompt.images.empty()) speculation_options.drafter = SpeculationOptions::Drafter::Off;
    DraftModel* draft = nullptr;
    if (speculation_options.drafter == SpeculationOptions::Drafter::DraftModel) {
        try {
            draft = &draft_model_for(speculation_options);
        } catch (const std::exception& e) {
            stats.speculation_error = e.what();
        }
    }
    SpeculativeDecoder speculation(speculation_options, draft);
    stats.speculative = speculation.active();
    if (speculation.active()) {
        // Every buffer of the loop below at its largest now: no token allocates.
        const size_t most =
            static_cast<size_t>(std::clamp(options.speculation.max_draft, 1, kMostVerifyRows - 1)) + 1;
        verify_logits_.reserve(most * n_vocab);
        verify_batch_.reserve(most);
        if (draft) draft_view_.reserve(static_cast<size_t>(n_ctx) + 1);
    }
    tokens.reserve(tokens.size() + static_cast<size_t>(std::max(options.max_tokens, 0)) + 1);

    const auto decode_start = Clock::now();
    stats.stop_reason = StopReason::Length;
    // Ends the reply when `logits`, computed by cache position `position`, are not finite. Damaged
    // weights can overflow for some tokens or positions only: no token is drawn from NaN. The
    // pieces streamed so far stay the reply's, the cache forgets the positions from `position` on,
    // and the caller gets the error.
    const auto check_finite = [&](std::span<const float> logits, int32_t position) {
        if (all_finite(logits)) return;
        if (const std::string rest = decoder.flush(); !rest.empty() && on_piece) on_piece(rest);
        cache_->truncate(position);
        metrics_.publish_reply(stats, cache_->size(), n_ctx);
        throw Error(non_finite_logits_message(stats.generated_tokens));
    };
    // The next token from a row of logits, under the grammar if there is one; -1 when the reply
    // ends here instead (the grammar complete with nothing to follow, or no token it allows), the
    // stop reason set.
    const auto sample_next = [&](std::span<const float> row) -> int32_t {
        if (grammar && grammar->finished()) {
            stats.stop_reason = StopReason::EndOfGeneration;
            return -1;
        }
        const int32_t next = sampler.sample(row, tokens, grammar ? &*grammar : nullptr);
        if (next < 0) {
            stats.stop_reason = StopReason::Length;
            return -1;
        }
        if (grammar) grammar->accept(next);
        return next;
    };
    // Adds a token to the reply; false when the reply ends with it (the end of generation, which
    // is not added, or the length limit) or ended before it (-1, from sample_next).
    const auto emit = [&](int32_t token) {
        if (token < 0) return false;
        if (tok.is_end_of_generation(token)) {
            stats.stop_reason = StopReason::EndOfGeneration;
            return false;
        }
        tokens.push_back(token);
        ++stats.generated_tokens;
        if (on_token) on_token(token);
        if (const std::string piece = decoder.push(token); !piece.empty() && on_piece) on_piece(piece);
        return stats.generated_tokens < options.max_tokens;
    };

    if (stop && stop->load(std::memory_order_relaxed)) {
        stats.stop_reason = StopReason::Stopped;
    } else if (options.max_tokens > 0) {
        check_finite(logits, stats.reused_tokens);
        const int32_t first = sample_next(logits);
        stats.time_to_first_token = seconds_since(start);
        bool going = emit(first); // the last token needs no logits
        while (going) {
            if (stop && stop->load(std::memory_order_relaxed)) {
                stats.stop_reason = StopReason::Stopped;
                break;
            }
            if (cache_->size() >= n_ctx) {
                // Full: shift the oldest turns after the kept prefix out of view (context_shift.h).
                // Learned positions cannot be turned: the reply ends at the context, and the next
                // turn's prefill recomputes what stays in view. So it does where the caller asks.
                const int32_t keep = cache_->shifted()
                                         ? cache_->shift_at()
                                         : resolve_n_keep(conversation, options, prompt, in_prompt.images);
                const int32_t from =
                    keep + length(cache_->dropped()); // logical position of cache slot `keep`
                const int32_t n_discard = !options.end_at_full_context && inference_.can_rotate_keys()
                                              ? tokens_to_drop_when_full(starts, keep, from, cache_->size())
                                              : 0;
                if (n_discard <= 0) {
                    stats.stop_reason = StopReason::ContextFull;
                    break;
                }
                inference_.shift_context(*cache_, keep, n_discard);
                ++stats.context_shifts;
                stats.n_keep = keep;
                stats.shifted_out_tokens = length(cache_->dropped());
            }
            const int32_t pending = tokens.back(); // in the reply, not yet in the cache
            const int32_t before_eval = cache_->size();
            const auto pass_start = Clock::now(); // drafting and verifying, timed as one
            std::span<const int32_t> drafted;
            if (speculation.active()) {
                // Drafted tokens fit beside the pending one, and past the last needed none is.
                const int32_t room = std::min(n_ctx, inference_.position_limit()) - before_eval - 1;
                const int32_t wanted = options.max_tokens - stats.generated_tokens - 1;
                if (draft) {
                    draft_view_.assign(cache_->tokens().begin(), cache_->tokens().end());
                    draft_view_.push_back(pending);
                }
                drafted = speculation.draft(tokens, draft_view_, std::min(room, wanted));
                // Under a grammar the draft ends where the grammar refuses it: a refused token
                // could never be accepted, nor any after it.
                if (grammar) drafted = drafted.first(grammar->allowed_prefix(drafted));
            }
            if (drafted.empty()) {
                // Plain decoding: the pending token alone.
                logits = inference_.eval(*cache_, std::span<const int32_t>(&pending, 1));
                if (speculation.active()) speculation.record_plain(seconds_since(pass_start));
                check_finite(logits, before_eval);
                going = emit(sample_next(logits));
            } else {
                // The verify pass: the pending token and the drafted ones in one forward pass, the
                // logits of every row kept. Row j gives the distribution of the token after drafted
                // token j - 1 (row 0: after the pending one); each drafted token is accepted or
                // replaced by the rule, and the first replaced ends the pass.
                verify_batch_.assign(1, pending);
                verify_batch_.insert(verify_batch_.end(), drafted.begin(), drafted.end());
                inference_.eval(*cache_, verify_batch_, &verify_logits_);
                const auto row = [&](size_t j) {
                    return std::span<const float>(verify_logits_).subspan(j * n_vocab, n_vocab);
                };
                const auto k = static_cast<int32_t>(drafted.size());
                int32_t accepted = 0;
                int32_t kept = 1; // cache rows of this pass that stay: those of tokens in the reply
                for (int32_t j = 0; going; ++j) {
                    check_finite(row(static_cast<size_t>(j)), before_eval + j);
                    if (j == k) { // every drafted token accepted: the last row gives one more
                        going = emit(sample_next(row(static_cast<size_t>(j))));
                        break;
                    }
                    const int32_t drafted_token = drafted[static_cast<size_t>(j)];
                    DraftVerdict verdict{};
                    if (grammar) {
                        // A draw under the grammar, accepted when it is the drafted token: for a
                        // drafter that proposes one token (q a point mass) this is the rule of
                        // verify_drafted_token in another form, p(drafted) to accept and the rest
                        // of p otherwise, with p the grammar's masked distribution; the drawn
                        // token moves the grammar on.
                        const int32_t drawn = sample_next(row(static_cast<size_t>(j)));
                        verdict = {drawn == drafted_token, drawn};
                    } else {
                        verdict =
                            verify_drafted_token(sampler, row(static_cast<size_t>(j)), tokens, drafted_token);
                    }
                    going = emit(verdict.token);
                    if (!verdict.accepted) break;
                    ++accepted;
                    if (going) ++kept; // as in plain decoding, the reply's last token is not evaluated
                }
                speculation.record(k, accepted, seconds_since(pass_start));
                stats.verify_passes = speculation.stats().verify_passes;
                stats.drafted_tokens = speculation.stats().drafted;
                stats.accepted_tokens = speculation.stats().accepted;
                // Roll back past the longest accepted prefix: the rejected rows are forgotten and
                // the next pass overwrites them.
                cache_->truncate(before_eval + kept);
            }
            stats.decode_seconds = seconds_since(decode_start);
            metrics_.publish_reply(stats, cache_->size(), n_ctx); // the one place a token's figures go out
        }
    }
    stats.verify_passes = speculation.stats().verify_passes;
    stats.drafted_tokens = speculation.stats().drafted;
    stats.accepted_tokens = speculation.stats().accepted;
    if (const std::string rest = decoder.flush(); !rest.empty() && on_piece) on_piece(rest);
    stats.decode_seconds = seconds_since(decode_start);
    metrics_.publish_reply(stats, cache_->size(), n_ctx);
    stats.first_visible_turn =
        first_visible_turn(starts, conversation, stats.n_keep, stats.shifted_out_tokens);
    return stats;
}

DraftModel& ChatSession::draft_model_for(const SpeculationOptions& options) {
    const bool same = options.draft_model ? draft_given_ == options.draft_model
                                          : !draft_given_ && draft_path_ == options.draft_model_path;
    if (!draft_ || !same) {
        draft_.reset();
        draft_given_ = options.draft_model;
        draft_path_ = options.draft_model ? options.draft_model->path() : options.draft_model_path;
        if (draft_path_.empty() && !draft_given_) throw Error("no draft model was given");
        draft_ = options.draft_model
                     ? std::make_unique<DraftModel>(options.draft_model, inference_, cache_->capacity())
                     : DraftModel::load(options.draft_model_path, inference_, cache_->capacity());
    }
    draft_->share_threads_of(inference_); // the target's threads may have changed since
    return *draft_;
}

void ChatSession::save_state(const std::string& path, KvStateFormat format) const {
    save_kv_state(path, *cache_, KvStateIdentity{model_identity(), cache_template_hash_}, format);
}

KvRestoreResult ChatSession::restore_state(const std::string& path, const GenerationOptions& options) {
    const uint64_t expected_template = template_hash(options);
    KvRestoreResult result = restore_kv_state(
        path, *cache_, KvStateIdentity{model_identity(), expected_template}, inference_.n_vocab());
    if (result.restored) cache_template_hash_ = expected_template;
    return result;
}

} // namespace hearth::engine
