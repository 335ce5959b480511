#include "engine/sampling/sampler.h"
#include <algorithm>
#include <bit>
#include <cmath>

namespace hearth::engine {

int32_t argmax(std::span<const float> logits) {
    // NaN, as in the sampler, below everything: the first largest number wins.
    const auto below = [](float a, float b) { return std::isnan(a) ? !std::isnan(b) : a < b; };
    return static_cast<int32_t>(std::max_element(logits.begin(), logits.end(), below) - logits.begin());
}

bool all_finite(std::span<const float> logits) {
    // NaN and the infinities are the floats whose exponent bits are all ones. Counted without a
    // branch in 8 lanes, which the compiler turns into vector instructions at -O2: 0.07 ns a
    // logit against 0.66 for the plain loop (151936 logits: 11 us, the sampler takes 220).
    constexpr uint32_t kExponent = 0x7f800000u;
    const auto non_finite = [](float v) {
        return static_cast<uint32_t>((std::bit_cast<uint32_t>(v) & kExponent) == kExponent);
    };
    const float* p = logits.data();
    const size_t n = logits.size();
    uint32_t lanes[8] = {};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (size_t j = 0; j < 8; ++j)
            lanes[j] += non_finite(p[i + j]);
    uint32_t count = 0;
    for (const uint32_t lane : lanes)
        count += lane;
    for (; i < n; ++i)
        count += non_finite(p[i]);
    return count == 0;
}

Sampler::Sampler(SamplingParams params, int32_t n_vocab)
    : params_(params), candidates_(static_cast<size_t>(n_vocab)), seen_(static_cast<size_t>(n_vocab), 0),
      rng_(params.seed) {}

void Sampler::reseed(uint64_t seed) {
    params_.seed = seed;
    rng_.seed(seed);
}

int32_t Sampler::sample(std::span<const float> logits, std::span<const int32_t> recent,
                        TokenConstraint* constraint) {
    const std::span<const Candidate> candidates = distribution(logits, recent);
    const int32_t first = greedy() ? candidates[0].id : draw(candidates);
    if (!constraint || constraint->allows(first)) return first;
    const std::span<const uint8_t> allowed = constraint->allowed_tokens();
    if (allowed.size() < std::min(logits.size(), candidates_.size())) return -1;
    const std::span<const Candidate> among_allowed = distribution(logits, recent, allowed.data());
    if (among_allowed.empty()) return -1;
    return greedy() ? among_allowed[0].id : draw(among_allowed);
}

double Sampler::uniform() {
    return std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
}

int32_t Sampler::draw(std::span<const Candidate> candidates) {
    double r = uniform();
    for (const Candidate& c : candidates) {
        r -= c.p;
        if (r <= 0) return c.id;
    }
    return candidates.back().id;
}

// The chain, in llama.cpp's default order: repetition penalty, top-k, top-p,
// min-p, temperature. Greedy when the temperature is not positive.
std::span<const Sampler::Candidate> Sampler::distribution(std::span<const float> logits,
                                                          std::span<const int32_t> recent,
                                                          const uint8_t* allowed) {
    const size_t n_vocab = std::min(logits.size(), candidates_.size());
    // The repeat penalty's tokens, each marked once: the last repeat_last_n of `recent`.
    const bool penalise = params_.repeat_penalty != 1.0f && params_.repeat_last_n != 0;
    std::span<const int32_t> window;
    if (penalise) {
        const size_t size = params_.repeat_last_n < 0
                                ? recent.size()
                                : std::min(recent.size(), size_t(params_.repeat_last_n));
        window = recent.subspan(recent.size() - size);
        for (int32_t id : window)
            if (id >= 0 && static_cast<size_t>(id) < n_vocab) seen_[static_cast<size_t>(id)] = 1;
    }
    // A token's logit as the chain sees it. A NaN logit (a damaged model) weighs nothing: as -inf
    // it keeps the ordering below a strict weak ordering, which the sorts need (a NaN there is
    // undefined behaviour, not a bad draw).
    const auto logit_of = [&](size_t i) {
        float l = std::isnan(logits[i]) ? -INFINITY : logits[i];
        if (penalise && seen_[i]) l = l > 0 ? l / params_.repeat_penalty : l * params_.repeat_penalty;
        return l;
    };
    auto by_logit = [](const Candidate& a, const Candidate& b) {
        return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
    };

    size_t n = 0;
    bool sorted = false; // candidates_[0, n) best first
    const size_t best_wanted = greedy() ? 1 : params_.top_k > 0 ? static_cast<size_t>(params_.top_k) : 0;
    if (!allowed && best_wanted > 0 && best_wanted < n_vocab) {
        // Greedy or top-k: the best ones kept in a heap whose top is the worst of them, in one pass
        // over the logits; a token enters only when it beats that worst (a later id never wins a
        // tie). Nothing else of the vocabulary is copied or sorted.
        const auto first = candidates_.begin(), last = first + static_cast<std::ptrdiff_t>(best_wanted);
        for (size_t i = 0; i < best_wanted; ++i)
            candidates_[i] = {static_cast<int32_t>(i), logit_of(i), 0.0f};
        std::make_heap(first, last, by_logit);
        const auto enter = [&](size_t i, float l) {
            std::pop_heap(first, last, by_logit);
            *(last - 1) = {static_cast<int32_t>(i), l, 0.0f};
            std::push_heap(first, last, by_logit);
        };
        float worst = candidates_[0].logit;
        if (penalise) {
            // A penalty of at least 1 only lowers a logit: one not above the worst stays out.
            const bool only_lowers = params_.repeat_penalty >= 1.0f;
            for (size_t i = best_wanted; i < n_vocab; ++i) {
                if (only_lowers && !(logits[i] > worst)) continue;
                if (const float l = logit_of(i); l > worst) {
                    enter(i, l);
                    worst = candidates_[0].logit;
                }
            }
        } else {
            // The loop without the penalty's checks, on its own: one compare per token (merged with
            // the loop above it measured 1.5 times slower).
            for (size_t i = best_wanted; i < n_vocab; ++i)
                if (logits[i] > worst) { // false for NaN
                    enter(i, logits[i]);
                    worst = candidates_[0].logit;
                }
        }
        std::sort_heap(first, last, by_logit);
        n = best_wanted;
        sorted = true;
    } else if (allowed) {
        // A token the constraint refuses is dropped: the allowed ones are moved to the front.
        for (size_t i = 0; i < n_vocab; ++i)
            if (allowed[i]) candidates_[n++] = {static_cast<int32_t>(i), logit_of(i), 0.0f};
    } else {
        for (size_t i = 0; i < n_vocab; ++i)
            candidates_[i] = {static_cast<int32_t>(i), logit_of(i), 0.0f};
        n = n_vocab;
    }
    for (int32_t id : window)
        if (id >= 0 && static_cast<size_t>(id) < n_vocab) seen_[static_cast<size_t>(id)] = 0;
    if (n == 0) return {};

    if (greedy()) {
        const auto best = std::min_element(candidates_.begin(),
                                           candidates_.begin() + static_cast<std::ptrdiff_t>(n), by_logit);
        std::swap(candidates_[0], *best);
        candidates_[0].p = 1.0f;
        return {candidates_.data(), 1};
    }

    if (!sorted) { // with a constraint, or top-k off
        if (params_.top_k > 0 && static_cast<size_t>(params_.top_k) < n) {
            std::partial_sort(candidates_.begin(), candidates_.begin() + params_.top_k,
                              candidates_.begin() + static_cast<std::ptrdiff_t>(n), by_logit);
            n = static_cast<size_t>(params_.top_k);
        } else {
            std::sort(candidates_.begin(), candidates_.begin() + static_cast<std::ptrdiff_t>(n), by_logit);
        }
    }

    auto softmax = [&](float temperature) {
        const float max_logit = candidates_[0].logit;
        double sum = 0;
        for (size_t i = 0; i < n; ++i) {
            candidates_[i].p = std::exp((candidates_[i].logit - max_logit) / temperature);
            sum += candidates_[i].p;
        }
        for (size_t i = 0; i < n; ++i)
            candidates_[i].p = static_cast<float>(candidates_[i].p / sum);
    };
    softmax(1.0f);

    if (params_.top_p < 1.0f) {
        double cumulative = 0;
        size_t keep = n;
        for (size_t i = 0; i < n; ++i) {
            cumulative += candidates_[i].p;
            if (cumulative >= params_.top_p) {
                keep = i + 1;
                break;
            }
        }
        n = std::max<size_t>(1, keep);
    }
    if (params_.min_p > 0.0f) {
        const float threshold = candidates_[0].p * params_.min_p;
        size_t keep = 1;
        while (keep < n && candidates_[keep].p >= threshold)
            ++keep;
        n = keep;
    }

    softmax(params_.temperature);
    return {candidates_.data(), n};
}

} // namespace hearth::engine
