// hearth-cli chat-bench: what prefix reuse and instant resume are worth. Simulates a
// conversation (a history of about --history tokens, then --turns short user turns)
// and times each turn's first token with the cached prefix reused and without, then
// the resume of the saved conversation against prefilling it again.
#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "app/cli/generation_flags.h"
#include "app/cli/model_options.h"
#include "engine/error.h"
#include "engine/runtime/engine_runtime.h"
#include "engine/session/chat_session.h"
#include "engine/session/kv_state_file.h"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace hearth::cli {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Deterministic filler text: the same conversation on every run and machine.
class TextMaker {
public:
    std::string sentence_block(int words) {
        static const char* const kWords[] = {
            "the",     "garden", "river",  "light",   "morning", "story",  "small",   "green",  "house",
            "window",  "quiet",  "friend", "walked",  "found",   "bright", "stone",   "road",   "winter",
            "summer",  "bread",  "warm",   "kitchen", "letter",  "old",    "village", "music",  "evening",
            "painted", "boat",   "hill",   "cloud",   "slowly",  "happy",  "market",  "forest", "candle"};
        std::string text;
        for (int i = 0; i < words; ++i) {
            state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
            const char* word = kWords[(state_ >> 33) % std::size(kWords)];
            if (i > 0) text += (i % 12 == 0) ? ". " : " ";
            text += word;
        }
        return text + ".";
    }

private:
    uint64_t state_ = 42;
};

struct TurnRow {
    int turn = 0;
    engine::TurnStats reuse;
    engine::TurnStats full;
};

int run_chat_bench(const std::vector<std::string>& argv) {
    std::set<std::string> value_options = generation_value_options();
    value_options.merge(std::set<std::string>{"--turns", "--history", "--reply-tokens", "-c", "--ctx-size"});
    Args args(argv, model_value_options(std::move(value_options)), {"--json", "--q8"});
    const std::string path = args.required("-m", "--model");
    const int turns = args.get_int("--turns", 3);
    const int history = args.get_int("--history", 2000);
    const int reply_tokens = args.get_int("--reply-tokens", 4);
    const bool json_out = args.has("--json");
    if (turns < 1 || history < 1 || reply_tokens < 1)
        throw ArgError("--turns, --history and --reply-tokens must be positive");

    // Room: the history, each new turn (a short question and the reply), and a margin.
    engine::EngineRuntime runtime;
    runtime.configure(runtime_config(args, history + turns * (64 + reply_tokens) + 256));
    runtime.load(path);
    engine::Inference& inference = runtime.inference();
    const engine::Model& model = runtime.model();
    const int32_t n_ctx = runtime.context_length();
    report_device("chat-bench", inference);

    engine::GenerationOptions gen;
    gen.sampling.temperature = 0.0f; // greedy: the same replies every run
    gen.max_tokens = reply_tokens;
    apply_generation_flags(args, gen); // speculative decoding, a grammar: what the replies run with

    // The history: a system prompt, then user/assistant pairs until it is long enough.
    TextMaker text;
    std::vector<engine::ChatTurn> conversation{
        {chat::Role::System, "You are a helpful assistant who tells short stories."}};
    engine::ChatSession reuse_session(inference, n_ctx);
    while (true) {
        std::vector<engine::ChatTurn> probe = conversation;
        probe.push_back({chat::Role::User, "Tell me a story. " + text.sentence_block(40)});
        const auto n = static_cast<int>(reuse_session.prompt_tokens(probe, gen).size());
        conversation = std::move(probe);
        if (n >= history) break;
        conversation.push_back({chat::Role::Assistant, text.sentence_block(70)});
    }

    engine::ChatSession full_session(inference, n_ctx);
    std::vector<TurnRow> rows;
    for (int turn = 0; turn <= turns; ++turn) {
        if (turn > 0) conversation.push_back({chat::Role::User, "And then? " + text.sentence_block(8)});
        TurnRow row;
        row.turn = turn;
        std::string reply;
        row.reuse = reuse_session.reply(conversation, gen, [&](std::string_view piece) { reply += piece; });
        // Without reuse: the same prompt from an empty cache, up to the first token.
        full_session.cache().clear();
        engine::GenerationOptions first_only = gen;
        first_only.max_tokens = 1;
        row.full = full_session.reply(conversation, first_only, nullptr);
        rows.push_back(row);
        conversation.push_back({chat::Role::Assistant, reply});
        std::fprintf(stderr, "turn %d: %d tokens, %d reused, first token in %.2f s (%.2f s without reuse)\n",
                     turn, row.reuse.prompt_tokens, row.reuse.reused_tokens, row.reuse.time_to_first_token,
                     row.full.time_to_first_token);
    }

    // Resume: save the conversation's state, restore it into a new session, compare with
    // prefilling the same tokens again. The model's identity (a hash of its header) is
    // computed once per loaded model, outside the timed restore.
    const auto identity_start = Clock::now();
    auto identity = std::make_shared<const engine::ModelIdentity>(engine::model_identity(model));
    const double identity_seconds = seconds_since(identity_start);
    const std::string state_path = (std::filesystem::temp_directory_path() /
                                    ("hearth-chat-bench-" + std::to_string(::getpid()) + ".hkv"))
                                       .string();
    const engine::KvStateFormat format =
        args.has("--q8") ? engine::KvStateFormat::Q8_0 : engine::KvStateFormat::F16;
    // The conversation's own session is saved, and restored into a session of its own.
    const auto save_start = Clock::now();
    engine::ChatSession& source = reuse_session;
    source.save_state(state_path, format);
    const double save_seconds = seconds_since(save_start);
    const auto state_bytes = static_cast<int64_t>(std::filesystem::file_size(state_path));

    engine::ChatSession resumed(inference, n_ctx, /*metrics=*/nullptr, identity);
    const auto restore_start = Clock::now();
    const engine::KvRestoreResult restored = resumed.restore_state(state_path, gen);
    const double restore_seconds = seconds_since(restore_start);
    std::filesystem::remove(state_path);
    if (!restored.restored) throw Error("chat-bench: the saved state did not restore: " + restored.reason);

    full_session.cache().clear();
    const std::vector<int32_t> state_tokens = source.cache().tokens();
    const auto prefill_start = Clock::now();
    inference.eval(full_session.cache(), state_tokens);
    const double reprefill_seconds = seconds_since(prefill_start);

    // The restored session continues the conversation like the original one would.
    conversation.push_back({chat::Role::User, "One more, please."});
    engine::GenerationOptions check = gen;
    check.max_tokens = 1;
    const engine::TurnStats after_resume = resumed.reply(conversation, check, nullptr);

    const TurnRow& last = rows.back();
    const double reuse_speedup = last.full.time_to_first_token / last.reuse.time_to_first_token;
    const double resume_speedup = reprefill_seconds / restore_seconds;

    std::printf("model %s, %d threads, context %d, history %d tokens, %d new turns, %d reply tokens\n",
                path.c_str(), inference.n_threads(), n_ctx, rows.front().reuse.prompt_tokens, turns,
                reply_tokens);
    std::printf("%-5s %8s %8s %9s %14s %14s %8s\n", "turn", "prompt", "reused", "computed", "ttft reuse ms",
                "ttft full ms", "speedup");
    for (const TurnRow& r : rows)
        std::printf("%-5d %8d %8d %9d %14.1f %14.1f %7.1fx\n", r.turn, r.reuse.prompt_tokens,
                    r.reuse.reused_tokens, r.reuse.computed_tokens, r.reuse.time_to_first_token * 1000,
                    r.full.time_to_first_token * 1000,
                    r.full.time_to_first_token / r.reuse.time_to_first_token);
    std::printf(
        "resume: %d tokens, state %.1f MiB (%s), save %.1f ms, restore %.1f ms, re-prefill %.1f ms: %.1fx\n",
        restored.tokens, state_bytes / 1048576.0, format == engine::KvStateFormat::Q8_0 ? "q8_0" : "f16",
        save_seconds * 1000, restore_seconds * 1000, reprefill_seconds * 1000, resume_speedup);
    std::printf(
        "after resume: next turn reused %d of %d prompt tokens, computed %d; model identity hash %.1f ms "
        "(once per model load)\n",
        after_resume.reused_tokens, after_resume.prompt_tokens, after_resume.computed_tokens,
        identity_seconds * 1000);
    std::printf("reuse speedup (last turn): %.1fx, resume speedup: %.1fx\n", reuse_speedup, resume_speedup);

    if (json_out) {
        nlohmann::json j;
        j["model"] = path;
        j["threads"] = inference.n_threads();
        j["n_ctx"] = n_ctx;
        j["history_tokens"] = rows.front().reuse.prompt_tokens;
        j["reply_tokens"] = reply_tokens;
        j["turns"] = nlohmann::json::array();
        for (const TurnRow& r : rows)
            j["turns"].push_back({{"turn", r.turn},
                                  {"prompt_tokens", r.reuse.prompt_tokens},
                                  {"reused_tokens", r.reuse.reused_tokens},
                                  {"computed_tokens", r.reuse.computed_tokens},
                                  {"ttft_reuse_ms", r.reuse.time_to_first_token * 1000},
                                  {"ttft_full_ms", r.full.time_to_first_token * 1000}});
        j["resume_tokens"] = restored.tokens;
        j["state_bytes"] = state_bytes;
        j["state_format"] = format == engine::KvStateFormat::Q8_0 ? "q8_0" : "f16";
        j["save_ms"] = save_seconds * 1000;
        j["restore_ms"] = restore_seconds * 1000;
        j["reprefill_ms"] = reprefill_seconds * 1000;
        j["after_resume_reused_tokens"] = after_resume.reused_tokens;
        j["after_resume_computed_tokens"] = after_resume.computed_tokens;
        j["reuse_speedup"] = reuse_speedup;
        j["resume_speedup"] = resume_speedup;
        std::printf("%s\n", j.dump().c_str());
    }
    return kExitOk;
}

} // namespace
HEARTH_CLI_COMMAND(
    "chat-bench", run_chat_bench,
    "chat-bench -m MODEL [--turns N] [--history TOKENS] [--reply-tokens R] [-c CTX] [--q8] [--json] "
    "[-t THREADS] [-b BATCH] [--isa scalar|avx2|avxvnni|avx512|amx] [--cache-type-k|-v f16|q8_0|q4_0]"
    " [--device cpu|vulkan|vulkan:N] [-ngl N] [--lookup N | --draft MODEL] [--draft-max K]");
} // namespace hearth::cli
