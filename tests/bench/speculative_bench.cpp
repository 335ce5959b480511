// hearth-spec-bench: what speculative decoding costs and gains.
//   verify: the time of a forward pass over k tokens against one token, k = 1..K, after a context
//           of D tokens (the pass is cut back after each timing, as a rejected draft is). The
//           ratio is what a verify pass of k - 1 drafted tokens costs in decode steps.
//           --profile adds, per k, the mean time of a pass in each kernel (dispatch metrics).
//   lookup: a greedy reply of N tokens with and without prompt lookup (or --draft: a draft
//           model): tokens/s of each, the tokens drafted and accepted. The prompt is a text file, given to
//           the model as it is (no chat template).
//   oracle: the target's side of speculation at a chosen acceptance, whatever the drafter: a free
//           drafter proposes the plain reply's own tokens, each replaced by a wrong one with
//           probability 1 - A (fixed per position and repetition: each repetition draws its own
//           pattern, since one pattern of 128 tokens favours one draft-length policy or another by
//           up to 10%), for each A of --acceptance. Tokens/s against plain decoding, the
//           acceptance the verify passes saw (all repetitions), and tokens per pass: what prompt
//           lookup or a draft model that costs nothing would give at that acceptance.
#include "engine/error.h"
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/session/chat_session.h"
#include "kernels/dispatch_metrics.h"
#include "kernels/isa_select.h"
#include "kernels/kernel_table.h"
#include "kernels/tensor_type.h"
#include <algorithm>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace hearth;
using Clock = std::chrono::steady_clock;

struct Options {
    std::string mode;
    std::string model;
    std::string prompt_file;
    std::string isa;
    std::string draft; // lookup: a draft model instead of prompt lookup
    int threads = 2;
    int depth = 256;
    int max_k = 16;
    int repetitions = 5;
    int tokens = 128;
    int ngram = 3;
    int max_draft = 8;
    bool profile = false; // verify: each kernel's share of a pass, per k
    std::vector<double> acceptance = {0.5, 0.7, 0.8, 0.9, 1.0}; // oracle
};

[[noreturn]] void usage(const char* message) {
    if (message) std::fprintf(stderr, "hearth-spec-bench: %s\n", message);
    std::fprintf(
        stderr,
        "usage: hearth-spec-bench verify -m MODEL [-t THREADS] [-d DEPTH] [-k MAX_K] [-r REPETITIONS] "
        "[--isa TIER] [--profile]\n"
        "       hearth-spec-bench lookup -m MODEL -f PROMPT.txt [-t THREADS] [-n TOKENS] [--lookup N] "
        "[--draft-max K] [--draft DRAFT_MODEL] [-r REPETITIONS] [--isa TIER]\n"
        "       hearth-spec-bench oracle -m MODEL [-f PROMPT.txt] [-t THREADS] [-n TOKENS] [--acceptance "
        "A,A,...] [--draft-max K] [-r REPETITIONS] [--isa TIER]\n");
    std::exit(message ? 2 : 0);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The median of each repetition's speculative rate over the plain one just before it: on a shared
// host whose speed drifts over tens of seconds, it moves less than the ratio of the medians.
double median_of_pairs(const std::vector<double>& spec_rate, const std::vector<double>& plain_rate) {
    std::vector<double> ratio;
    for (size_t r = 0; r < spec_rate.size(); ++r)
        ratio.push_back(spec_rate[r] / plain_rate[r]);
    return median(ratio);
}

double seconds_of(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Nanoseconds per (operation, type, kernel), summed over the passes of one k.
using KernelTimes = std::map<std::tuple<int, uint32_t, uint32_t>, uint64_t>;

// Moves what the dispatch metrics counted since the last call into times.
void take_kernel_times(KernelTimes& times) {
    namespace m = kernels::dispatch_metrics;
    for (const m::Snapshot::Entry& e : m::snapshot().entries)
        times[{static_cast<int>(e.op), static_cast<uint32_t>(e.type), static_cast<uint32_t>(e.kernel)}] +=
            e.cell.total_ns;
    m::reset();
}

void print_kernel_times(int k, const KernelTimes& times, int passes) {
    namespace m = kernels::dispatch_metrics;
    std::printf("\nk=%d, ms per pass:\n", k);
    for (const auto& [key, ns] : times) {
        const auto [op, type, kernel] = key;
        const auto traits = kernels::type_traits(type);
        std::printf("  %-20s %-6s %-36s %8.2f\n", std::string(m::op_name(static_cast<m::Op>(op))).c_str(),
                    traits ? std::string(traits->name).c_str() : "?",
                    std::string(kernels::kernel_name(static_cast<kernels::KernelId>(kernel)).name).c_str(),
                    static_cast<double>(ns) / 1e6 / passes);
    }
}

int verify_curve(const Options& o) {
    auto model = engine::Model::load(o.model);
    engine::Inference inference(model, engine::InferenceOptions{o.threads, 64});
    auto cache = inference.new_cache(o.depth + o.max_k + 1);
    std::mt19937 rng(7);
    std::uniform_int_distribution<int32_t> token(1, inference.n_vocab() - 1);
    std::vector<int32_t> context(static_cast<size_t>(o.depth));
    for (auto& t : context)
        t = token(rng);
    inference.eval(*cache, context);
    std::vector<int32_t> batch(static_cast<size_t>(o.max_k));
    for (auto& t : batch)
        t = token(rng);
    std::vector<float> rows;
    rows.reserve(static_cast<size_t>(o.max_k) * static_cast<size_t>(inference.n_vocab()));
    // The repetitions go round every k in turn, so that a drift of a shared machine reaches all.
    std::vector<std::vector<double>> times(static_cast<size_t>(o.max_k) + 1);
    std::vector<KernelTimes> kernel_times(static_cast<size_t>(o.max_k) + 1);
    for (int r = 0; r < o.repetitions + 1; ++r)
        for (int k = 1; k <= o.max_k; ++k) {
            if (o.profile) take_kernel_times(kernel_times[0]); // what came before: not this pass
            const auto start = Clock::now();
            if (k == 1)
                inference.eval(*cache, std::span<const int32_t>(batch).first(1));
            else
                inference.eval(*cache, std::span<const int32_t>(batch).first(static_cast<size_t>(k)), &rows);
            const double t = seconds_of(start);
            cache->truncate(o.depth);
            if (r > 0) { // the first round warms up
                times[static_cast<size_t>(k)].push_back(t);
                if (o.profile) take_kernel_times(kernel_times[static_cast<size_t>(k)]);
            }
        }
    const double one = median(times[1]);
    std::printf(
        "model: %s\nthreads: %d, depth %d, isa %s, median of %d\n\n| k | ms | k-token pass / 1-token pass "
        "|\n|---:|---:|---:|\n",
        o.model.c_str(), o.threads, o.depth, kernels::isa_name(kernels::active_kernels().isa).data(),
        o.repetitions);
    for (int k = 1; k <= o.max_k; ++k) {
        const double t = median(times[static_cast<size_t>(k)]);
        std::printf("| %d | %.2f | %.2f |\n", k, t * 1e3, t / one);
    }
    if (o.profile)
        for (int k = 1; k <= o.max_k; ++k)
            print_kernel_times(k, kernel_times[static_cast<size_t>(k)], o.repetitions);
    return 0;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

int lookup_gain(const Options& o) {
    auto model = engine::Model::load(o.model);
    engine::Inference inference(model, engine::InferenceOptions{o.threads, 64});
    const std::vector<engine::ChatTurn> turns{{chat::Role::User, read_text(o.prompt_file)}};
    engine::GenerationOptions plain;
    plain.sampling.temperature = 0;
    plain.max_tokens = o.tokens;
    plain.template_override = "{% for message in messages %}{{ message.content }}{% endfor %}";
    engine::GenerationOptions spec = plain;
    spec.speculation.drafter = o.draft.empty() ? engine::SpeculationOptions::Drafter::PromptLookup
                                               : engine::SpeculationOptions::Drafter::DraftModel;
    spec.speculation.draft_model_path = o.draft;
    spec.speculation.lookup_ngram = o.ngram;
    spec.speculation.max_draft = o.max_draft;
    // Past the context it was trained on a model's output means nothing (stories260K: 128
    // tokens), so the session holds that many and the prompt must leave room for the reply.
    const int32_t trained = model->hparams().n_ctx_train;
    const int32_t n_ctx = trained > 0 ? std::min(trained, 2048) : 2048;
    {
        engine::ChatSession probe(inference, n_ctx);
        const size_t n_prompt = probe.prompt_tokens(turns, plain).size();
        if (static_cast<int32_t>(n_prompt) + o.tokens > n_ctx)
            throw Error(o.prompt_file + ": " + std::to_string(n_prompt) + " prompt tokens and " +
                        std::to_string(o.tokens) + " to write do not fit the model's context of " +
                        std::to_string(n_ctx));
    }
    std::vector<double> plain_rate, spec_rate;
    engine::TurnStats spec_stats;
    std::string plain_text, spec_text;
    std::vector<int32_t> plain_tokens, spec_tokens;
    for (int r = 0; r < o.repetitions; ++r) {
        for (const bool speculative : {false, true}) {
            engine::ChatSession session(inference, n_ctx);
            std::string text;
            const engine::TurnStats stats = session.reply(turns, speculative ? spec : plain,
                                                          [&](std::string_view piece) { text += piece; });
            (speculative ? spec_rate : plain_rate).push_back(stats.decode_tokens_per_second());
            (speculative ? spec_tokens : plain_tokens) = session.cache().tokens();
            if (speculative) {
                spec_stats = stats;
                spec_text = text;
            } else {
                plain_text = text;
            }
        }
    }
    std::printf(
        "model: %s, prompt %s, %d tokens greedy, lookup n=%d, draft max %d, threads %d, median of %d\n",
        o.model.c_str(), o.prompt_file.c_str(), o.tokens, o.ngram, o.max_draft, o.threads, o.repetitions);
    if (!spec_stats.speculation_error.empty())
        std::printf("draft model refused: %s\n", spec_stats.speculation_error.c_str());
    std::printf("same text as plain decoding: %s\n", plain_text == spec_text ? "yes" : "no");
    if (plain_text != spec_text) {
        // Where the two part, and how close the top two logits of plain decoding's context are
        // there: a near-tie that the verify pass's batch rounding may flip.
        size_t at = 0;
        while (at < plain_tokens.size() && at < spec_tokens.size() && plain_tokens[at] == spec_tokens[at])
            ++at;
        auto cache = inference.new_cache(static_cast<int32_t>(at) + 1);
        const auto logits = inference.eval(*cache, std::span<const int32_t>(plain_tokens).first(at));
        std::vector<float> top(logits.begin(), logits.end());
        std::partial_sort(top.begin(), top.begin() + 2, top.end(), std::greater<>());
        std::printf("they part at token %zu of the context, where the top two logits are %.4f apart\n", at,
                    top[0] - top[1]);
    }
    std::printf("plain: %.1f tokens/s; speculative: %.1f tokens/s (x%.2f, by pairs x%.2f); %d drafted, %d "
                "accepted (%.0f%%) in %d verify passes, %d tokens\n",
                median(plain_rate), median(spec_rate), median(spec_rate) / median(plain_rate),
                median_of_pairs(spec_rate, plain_rate), spec_stats.drafted_tokens, spec_stats.accepted_tokens,
                spec_stats.drafted_tokens ? 100.0 * spec_stats.accepted_tokens / spec_stats.drafted_tokens
                                          : 0.0,
                spec_stats.verify_passes, spec_stats.generated_tokens);
    return 0;
}

// A number in [0, 1) fixed by the position: whether the oracle's token there is right.
double position_draw(uint64_t position) {
    uint64_t z = position * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E5ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) / 9007199254740992.0;
}

constexpr const char* kOraclePrompt =
    "Once upon a time there was a little girl who lived in a village near the "
    "forest. Every day she walked to the river and";

int oracle_gain(const Options& o) {
    auto model = engine::Model::load(o.model);
    engine::Inference inference(model, engine::InferenceOptions{o.threads, 64});
    const std::vector<engine::ChatTurn> turns{
        {chat::Role::User, o.prompt_file.empty() ? std::string(kOraclePrompt) : read_text(o.prompt_file)}};
    engine::GenerationOptions plain;
    plain.sampling.temperature = 0;
    plain.max_tokens = o.tokens;
    plain.template_override = "{% for message in messages %}{{ message.content }}{% endfor %}";
    // The plain reply, whose tokens the oracle proposes (greedy speculation gives the same).
    std::vector<int32_t> reference;
    {
        engine::ChatSession session(inference, 2048);
        session.reply(turns, plain, {});
        reference = session.cache().tokens();
    }
    const int32_t n_vocab = inference.n_vocab();
    std::printf("model: %s, %d tokens greedy, draft max %d (adaptive), threads %d, isa %s, median of %d\n\n",
                o.model.c_str(), o.tokens, o.max_draft, o.threads,
                kernels::isa_name(kernels::active_kernels().isa).data(), o.repetitions);
    std::printf(
        "| oracle right | plain t/s | speculative t/s | speed-up | by pairs | acceptance | tokens per "
        "pass | same text |\n"
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for (double right : o.acceptance) {
        engine::GenerationOptions spec = plain;
        spec.speculation.drafter = engine::SpeculationOptions::Drafter::Custom;
        spec.speculation.max_draft = o.max_draft;
        uint64_t pattern = 0; // the repetition's
        spec.speculation.custom = [&](std::span<const int32_t> history, std::span<int32_t> out) {
            int32_t n = 0;
            for (size_t i = history.size(); i < reference.size() && n < static_cast<int32_t>(out.size());
                 ++i) {
                const bool wrong = position_draw(pattern * reference.size() + i) >= right;
                out[static_cast<size_t>(n++)] = wrong ? (reference[i] + 1) % n_vocab : reference[i];
            }
            return n;
        };
        std::vector<double> plain_rate, spec_rate;
        int64_t drafted = 0, accepted = 0, passes = 0;
        bool same = true;
        for (int r = 0; r < o.repetitions; ++r)
            for (const bool speculative : {false, true}) {
                pattern = static_cast<uint64_t>(r);
                engine::ChatSession session(inference, 2048);
                const engine::TurnStats s = session.reply(turns, speculative ? spec : plain, {});
                (speculative ? spec_rate : plain_rate).push_back(s.decode_tokens_per_second());
                if (speculative) {
                    drafted += s.drafted_tokens;
                    accepted += s.accepted_tokens;
                    passes += s.verify_passes;
                    same = same && session.cache().tokens() == reference;
                }
            }
        const double acceptance =
            drafted ? static_cast<double>(accepted) / static_cast<double>(drafted) : 0.0;
        const double per_pass =
            passes ? static_cast<double>(accepted + passes) / static_cast<double>(passes) : 1.0;
        std::printf("| %.0f%% | %.1f | %.1f | %.2f | %.2f | %.0f%% | %.2f | %s |\n", 100 * right,
                    median(plain_rate), median(spec_rate), median(spec_rate) / median(plain_rate),
                    median_of_pairs(spec_rate, plain_rate), 100 * acceptance, per_pass, same ? "yes" : "no");
        std::fflush(stdout);
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) usage("which measurement: verify, lookup or oracle");
    Options o;
    o.mode = argv[1];
    for (int i = 2; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "-h" || flag == "--help") usage(nullptr);
        if (flag == "--profile") {
            o.profile = true;
            continue;
        }
        if (i + 1 >= argc) usage((flag + " needs a value").c_str());
        const std::string value = argv[++i];
        const auto number = [&] { return std::atoi(value.c_str()); };
        if (flag == "-m")
            o.model = value;
        else if (flag == "-f")
            o.prompt_file = value;
        else if (flag == "-t")
            o.threads = number();
        else if (flag == "-d")
            o.depth = number();
        else if (flag == "-k")
            o.max_k = std::clamp(number(), 1, 64);
        else if (flag == "-r")
            o.repetitions = std::max(1, number());
        else if (flag == "-n")
            o.tokens = number();
        else if (flag == "--lookup")
            o.ngram = number();
        else if (flag == "--draft-max")
            o.max_draft = number();
        else if (flag == "--draft")
            o.draft = value;
        else if (flag == "--isa")
            o.isa = value;
        else if (flag == "--acceptance") {
            o.acceptance.clear();
            std::stringstream list(value);
            for (std::string a; std::getline(list, a, ',');)
                o.acceptance.push_back(std::clamp(std::atof(a.c_str()), 0.0, 1.0));
        } else
            usage(("unknown option " + flag).c_str());
    }
    if (o.model.empty()) usage("-m MODEL is needed");
    try {
        if (!o.isa.empty()) {
            const auto isa = kernels::isa_from_name(o.isa);
            if (!isa) usage("--isa expects scalar, avx2, avxvnni, avx512 or amx");
            kernels::force_isa(*isa);
        }
        if (o.mode == "verify") return verify_curve(o);
        if (o.mode == "oracle") return oracle_gain(o);
        if (o.mode == "lookup") {
            if (o.prompt_file.empty()) usage("lookup needs -f PROMPT.txt");
            return lookup_gain(o);
        }
        usage(("unknown measurement " + o.mode).c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hearth-spec-bench: %s\n", e.what());
        return 1;
    }
}
