// bench_grammar MODEL.gguf [TOKENS] [THREADS]: what a JSON Schema grammar costs per generated
// token, against the decode step it rides on. Generates TOKENS tokens (64 by default) under a
// schema at temperature 1 and prints, per token: the decode step, the sampler without a grammar,
// the sampler with it (a first draw, and the mask only when the draw is refused) plus moving the
// grammar's state, the overhead of the grammar, and the walk of the whole vocabulary without the
// mask cache (the worst a token can cost). A benchmark, not a test: it prints numbers.
#include "engine/forward/inference.h"
#include "engine/grammar/gbnf_parser.h"
#include "engine/grammar/grammar_constraint.h"
#include "engine/grammar/json_schema_grammar.h"
#include "engine/model/model.h"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A person record: a free string, numbers, an enum and an array of short strings.
constexpr const char* kSchema = R"({"type": "object", "properties": {
    "name": {"type": "string", "maxLength": 40}, "age": {"type": "integer"},
    "role": {"enum": ["admin", "editor", "viewer"]},
    "tags": {"type": "array", "items": {"type": "string", "maxLength": 12}, "maxItems": 4},
    "score": {"type": "number"}}, "required": ["name", "age", "role", "tags"], "additionalProperties": false})";

} // namespace

int main(int argc, char** argv) {
    using namespace hearth::engine;
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_grammar MODEL.gguf [TOKENS] [THREADS]\n");
        return 2;
    }
    try {
        const int tokens_wanted = argc > 2 ? std::stoi(argv[2]) : 64;
        const int threads = argc > 3 ? std::stoi(argv[3]) : 2;
        const auto model = Model::load(argv[1]);
        Inference inference(model, InferenceOptions{threads, 64});
        const auto& tok = model->tokenizer();

        auto start = Clock::now();
        std::vector<std::string> pieces(static_cast<size_t>(inference.n_vocab()));
        std::vector<int32_t> end_tokens;
        for (int32_t id = 0; id < inference.n_vocab() && id < tok.n_vocab(); ++id) {
            pieces[static_cast<size_t>(id)] = tok.token_to_piece(id);
            if (tok.is_end_of_generation(id)) end_tokens.push_back(id);
        }
        const auto trie = std::make_shared<const TokenTrie>(std::move(pieces), std::move(end_tokens));
        const double trie_ms = ms_since(start);
        start = Clock::now();
        const auto grammar =
            std::make_shared<const Grammar>(parse_gbnf(json_schema_to_gbnf(std::string(kSchema))));
        const double grammar_ms = ms_since(start);
        std::printf("vocabulary %d tokens, trie of %zu nodes built in %.1f ms; schema compiled in %.2f ms\n",
                    inference.n_vocab(), trie->nodes().size(), trie_ms, grammar_ms);

        SamplingParams params;
        params.temperature = 1.0f;
        Sampler plain(params, inference.n_vocab());
        Sampler constrained(params, inference.n_vocab());
        GrammarConstraint constraint(grammar, trie);
        std::vector<uint8_t> scratch_mask(static_cast<size_t>(inference.n_vocab()));

        auto cache = inference.new_cache(512);
        std::vector<int32_t> history = tok.encode("A JSON record of a person:", true, false);
        std::span<const float> logits = inference.eval(*cache, history);
        double decode_ms = 0, plain_ms = 0, grammar_total_ms = 0, walk_ms = 0;
        std::vector<double> walks;
        int steps = 0;
        std::string text;
        for (; steps < tokens_wanted && !constraint.finished(); ++steps) {
            start = Clock::now();
            constraint.compute_mask(scratch_mask);
            const double walk = ms_since(start);
            walk_ms += walk;
            walks.push_back(walk);

            start = Clock::now();
            (void)plain.sample(logits, history);
            plain_ms += ms_since(start);

            start = Clock::now();
            const int32_t next = constrained.sample(logits, history, &constraint);
            if (next >= 0) constraint.accept(next);
            grammar_total_ms += ms_since(start);
            if (next < 0 || trie->is_end(next)) break;
            history.push_back(next);
            text += trie->piece(next);

            start = Clock::now();
            logits = inference.eval(*cache, std::span<const int32_t>(&history.back(), 1));
            decode_ms += ms_since(start);
        }
        const double n = std::max(steps, 1);
        const double overhead = (grammar_total_ms - plain_ms) / n;
        std::printf("%d tokens: %s\n", steps, text.c_str());
        std::printf("per token: decode step %.2f ms, sampler %.3f ms, sampler with grammar %.3f ms\n",
                    decode_ms / n, plain_ms / n, grammar_total_ms / n);
        std::printf("grammar overhead per token: %.3f ms = %.1f%% of a decode step\n", overhead,
                    100.0 * overhead / (decode_ms / n));
        std::sort(walks.begin(), walks.end());
        const auto quantile = [&walks](double q) {
            return walks.empty() ? 0.0
                                 : walks[static_cast<size_t>(q * static_cast<double>(walks.size() - 1))];
        };
        std::printf(
            "vocabulary walk without the cache: mean %.3f ms (%.1f%% of a step), median %.3f, 90%% %.3f, "
            "max %.3f ms\n",
            walk_ms / n, 100.0 * walk_ms / n / (decode_ms / n), quantile(0.5), quantile(0.9), quantile(1.0));
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_grammar: %s\n", e.what());
        return 2;
    }
}
