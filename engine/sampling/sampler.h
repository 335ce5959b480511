#pragma once
// Picks the next token from logits. One candidate buffer, allocated once and reused.
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace hearth::engine {

struct SamplingParams {
    float temperature = 0.8f;    // <= 0: greedy (argmax)
    int32_t top_k = 40;          // <= 0: off
    float top_p = 0.95f;         // >= 1: off
    float min_p = 0.05f;         // <= 0: off
    float repeat_penalty = 1.0f; // 1: off
    int32_t repeat_last_n = 64;  // window of recent tokens the penalty looks at
    uint64_t seed = 0xC0FFEE;
};

// What may come next, beside the logits (a grammar): the sampler draws as usual, and only when
// the token drawn is not allowed does it mask the vocabulary and draw again among the allowed
// ones, which gives the same distribution as masking first.
class TokenConstraint {
public:
    virtual bool allows(int32_t token) = 0;
    // One byte per vocabulary token, 1 where allowed; valid until the constraint changes.
    virtual std::span<const uint8_t> allowed_tokens() = 0;

protected:
    ~TokenConstraint() = default;
};

class Sampler {
public:
    // A token and its probability in a distribution (its logit after the repeat penalty).
    struct Candidate {
        int32_t id;
        float logit;
        float p;
    };

    Sampler(SamplingParams params, int32_t n_vocab);
    const SamplingParams& params() const { return params_; }
    // `recent` are the tokens so far (prompt and generated); the penalty applies to the last
    // repeat_last_n. A draw from distribution(); with a constraint, only a token it allows (-1
    // when it allows none).
    int32_t sample(std::span<const float> logits, std::span<const int32_t> recent,
                   TokenConstraint* constraint = nullptr);
    // The distribution sample() draws from, every setting applied (repeat penalty, top-k, top-p,
    // min-p, temperature): the candidates that can be drawn, most probable first, their p summing
    // to 1. Greedy: the argmax alone, p = 1. `allowed` (one byte per token, or null: all) masks
    // tokens out; empty when it allows none. Valid until the next call; allocates nothing.
    std::span<const Candidate> distribution(std::span<const float> logits, std::span<const int32_t> recent,
                                            const uint8_t* allowed = nullptr);
    // One token drawn from `candidates` (p summing to 1, most probable first), by this sampler's
    // random numbers.
    int32_t draw(std::span<const Candidate> candidates);
    // A number in [0, 1) from the same random numbers (speculative decoding's acceptance test).
    double uniform();
    bool greedy() const { return params_.temperature <= 0.0f; }
    void reseed(uint64_t seed);

private:
    SamplingParams params_;
    std::vector<Candidate> candidates_;
    std::vector<uint8_t> seen_;
    std::mt19937_64 rng_;
};

int32_t argmax(std::span<const float> logits);

// Whether every logit is a finite number. A damaged model's forward pass can give NaN or
// infinities for some tokens or positions only (past the load's check); no token may be drawn
// from them. One pass over the vocabulary, no allocation.
bool all_finite(std::span<const float> logits);

} // namespace hearth::engine
