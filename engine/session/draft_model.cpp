#include "engine/session/draft_model.h"
#include "engine/error.h"
#include "engine/sampling/sampler.h"
#include <algorithm>

namespace hearth::engine {

void check_draft_model(const Model& draft, const Model& target) {
    const auto& draft_vocab = draft.tokenizer();
    const auto& target_vocab = target.tokenizer();
    const std::string pair = "the draft model " + draft.path() + " and the model " + target.path();
    if (draft_vocab.n_vocab() != target_vocab.n_vocab() ||
        draft.hparams().n_vocab != target.hparams().n_vocab)
        throw Error(pair + " have different vocabularies (" + std::to_string(draft_vocab.n_vocab()) +
                    " and " + std::to_string(target_vocab.n_vocab()) +
                    " tokens): a draft must share its target's");
    for (int32_t id = 0; id < target_vocab.n_vocab(); ++id)
        if (draft_vocab.token_text(id) != target_vocab.token_text(id))
            throw Error(pair + " have different vocabularies (token " + std::to_string(id) +
                        " differs): a draft must share its target's");
    if (draft.info().parameters > target.info().parameters)
        throw Error("the draft model " + draft.path() + " is larger than the model " + target.path() + " (" +
                    std::to_string(draft.info().parameters) + " parameters against " +
                    std::to_string(target.info().parameters) + "): a draft must be the smaller one");
}

namespace {
InferenceOptions draft_options(const Inference& target) {
    // One thread of its own at first: the target's pool replaces it at once.
    return InferenceOptions{1, target.n_batch(), target.cache_types()};
}
} // namespace

DraftModel::DraftModel(std::shared_ptr<const Model> draft, Inference& target, int32_t n_ctx)
    : inference_((check_draft_model(*draft, target.model()), std::move(draft)), draft_options(target)),
      cache_(inference_.new_cache(n_ctx)),
      cost_ratio_(std::min(static_cast<double>(inference_.model().info().file_bytes) /
                               static_cast<double>(std::max<int64_t>(1, target.model().info().file_bytes)),
                           static_cast<double>(inference_.model().info().parameters) /
                               static_cast<double>(std::max<int64_t>(1, target.model().info().parameters)))) {
    inference_.share_threads_of(target);
    view_.reserve(static_cast<size_t>(cache_->capacity()) + 1);
}

std::unique_ptr<DraftModel> DraftModel::load(const std::string& path, Inference& target, int32_t n_ctx) {
    std::shared_ptr<const Model> draft;
    try {
        draft = Model::load(path);
    } catch (const Error& e) {
        throw Error(std::string("the draft model cannot be loaded: ") + e.what());
    }
    return std::make_unique<DraftModel>(std::move(draft), target, n_ctx);
}

std::span<const int32_t> DraftModel::view_of(std::span<const int32_t> history) {
    const auto n_history = static_cast<int32_t>(history.size());
    if (follows_whole_history() || gap_end_ <= gap_start_ || gap_end_ >= n_history) {
        gap_start_ = gap_end_ = 0;
        return history; // no copy on the path of a draft that pays
    }
    view_.assign(history.begin(), history.begin() + gap_start_);
    view_.insert(view_.end(), history.begin() + gap_end_, history.end());
    return view_;
}

int32_t DraftModel::propose(std::span<const int32_t> history, std::span<int32_t> out) {
    if (out.empty() || history.empty()) return 0;
    const auto n_history = static_cast<int32_t>(history.size());
    std::span<const int32_t> view = view_of(history);
    // The draft's cache keeps what it shares with the view; at least the last token is evaluated.
    const auto common = [&] {
        return std::min(cache_->common_prefix(view), static_cast<int32_t>(view.size()) - 1);
    };
    int32_t kept = common();
    if (!follows_whole_history() && static_cast<int32_t>(view.size()) - kept > kRecentTokens + kStartTokens) {
        // More to read than a retry does: the gap runs from what the cache holds of the history
        // (before any earlier gap) to the last tokens.
        const int32_t held = gap_end_ > gap_start_ ? std::min(kept, gap_start_) : kept;
        gap_start_ = std::max(held, std::min(kStartTokens, n_history));
        gap_end_ = std::max(gap_start_, n_history - kRecentTokens);
        view = view_of(history);
        kept = common();
    }
    const auto n_view = static_cast<int32_t>(view.size());
    if (n_view + static_cast<int32_t>(out.size()) > std::min(cache_->capacity(), inference_.position_limit()))
        return 0;
    cache_->truncate(kept);
    std::span<const float> logits = inference_.eval(*cache_, view.subspan(static_cast<size_t>(kept)));
    for (size_t i = 0; i < out.size(); ++i) {
        out[i] = argmax(logits);
        if (i + 1 < out.size()) logits = inference_.eval(*cache_, out.subspan(i, 1));
    }
    return static_cast<int32_t>(out.size());
}

} // namespace hearth::engine
