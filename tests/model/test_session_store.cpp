// Several conversations within a memory budget: switching back to one still in memory
// costs exactly what staying would have; the least recently used is evicted first;
// an evicted conversation is restored from its saved state, or prefilled again.
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/session/engine_metrics.h"
#include "engine/session/session_store.h"
#include "tests/model/model_fixture.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

using namespace hearth;
namespace fs = std::filesystem;

namespace {

using Loaded = test::LoadedModel;

Loaded load(const std::string& name) {
    return test::load_model(name, 32);
}

engine::GenerationOptions greedy() {
    engine::GenerationOptions options;
    options.sampling.temperature = 0;
    options.max_tokens = 3;
    return options;
}

std::vector<engine::ChatTurn> first_turn(const std::string& topic) {
    return {{chat::Role::User, "Tell me about " + topic}};
}
std::vector<engine::ChatTurn> second_turn(const std::string& topic) {
    return {{chat::Role::User, "Tell me about " + topic},
            {chat::Role::Assistant, "It is nice."},
            {chat::Role::User, "More?"}};
}

engine::SessionStoreOptions store_options(size_t budget, std::string state_dir = {}) {
    engine::SessionStoreOptions o;
    o.n_ctx = 256;
    o.memory_budget_bytes = budget;
    o.state_dir = std::move(state_dir);
    return o;
}

// One greedy turn of conversation `id`.
engine::TurnResult run_turn(engine::SessionStore& store, const std::string& id,
                            const std::vector<engine::ChatTurn>& conversation) {
    return store.run_turn({.conversation_id = id, .conversation = conversation, .options = greedy()},
                          nullptr);
}

// What the second turn of a conversation costs when nothing else ever happened.
engine::TurnStats undisturbed_second_turn(engine::Inference& inference, const std::string& topic) {
    engine::EngineMetrics metrics;
    engine::SessionStore store(inference, store_options(size_t{1} << 30), metrics);
    run_turn(store, "x", first_turn(topic));
    return run_turn(store, "x", second_turn(topic)).stats;
}

} // namespace

class TestSessionStore : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { loaded_ = load("stories260K"); }

    void switching_back_costs_nothing() {
        engine::SessionStore store(*loaded_.inference, store_options(size_t{1} << 30), metrics_);
        run_turn(store, "a", first_turn("cats"));
        run_turn(store, "b", first_turn("dogs"));
        run_turn(store, "c", first_turn("birds"));
        QCOMPARE(store.ids(), (std::vector<std::string>{"c", "b", "a"}));
        QCOMPARE(metrics_.snapshot().kv_sessions, int64_t{3});

        const engine::TurnResult turn = run_turn(store, "a", second_turn("cats"));
        const engine::TurnStats& back = turn.stats;
        QVERIFY(turn.resume.from_memory);
        const engine::TurnStats alone = undisturbed_second_turn(*loaded_.inference, "cats");
        QVERIFY(back.reused_tokens > 0);
        QCOMPARE(back.reused_tokens, alone.reused_tokens);
        QCOMPARE(back.computed_tokens, alone.computed_tokens);
        QCOMPARE(store.ids().front(), std::string("a"));
    }

    // A first reply's cache is counted while the reply is written, not only once it ends.
    void the_caches_size_is_published_while_a_reply_is_written() {
        engine::EngineMetrics metrics;
        engine::SessionStore store(*loaded_.inference, store_options(size_t{1} << 30), metrics);
        QCOMPARE(metrics.snapshot().kv_bytes, int64_t{0});
        std::vector<int64_t> seen;
        store.run_turn({.conversation_id = "new", .conversation = first_turn("cats"), .options = greedy()},
                       [&](std::string_view) { seen.push_back(metrics.snapshot().kv_bytes); });
        QVERIFY(!seen.empty());
        QVERIFY(seen.front() > 0);
        QCOMPARE(seen.back(), static_cast<int64_t>(store.bytes()));
    }

    void least_recently_used_is_evicted() {
        engine::SessionStore store(*loaded_.inference, store_options(size_t{1} << 30), metrics_);
        run_turn(store, "a", first_turn("cats"));
        const size_t one = store.bytes();
        QVERIFY(one > 0);
        run_turn(store, "b", first_turn("dogs"));
        store.session("a"); // a is now more recent than b
        // Room for two conversations of this size, not three.
        store.set_memory_budget(one * 5 / 2);
        run_turn(store, "c", first_turn("mice"));
        QCOMPARE(store.ids(), (std::vector<std::string>{"c", "a"}));
        QVERIFY(!store.in_memory("b"));
        QVERIFY(store.bytes() <= one * 5 / 2);

        // Shrinking the budget evicts down to the one in use.
        store.set_memory_budget(1);
        QCOMPARE(store.ids(), (std::vector<std::string>{"c"}));
        // Without a state directory an evicted conversation is prefilled again.
        const engine::TurnResult turn = run_turn(store, "b", second_turn("dogs"));
        const engine::TurnStats& again = turn.stats;
        QVERIFY(!turn.resume.restored);
        QCOMPARE(again.reused_tokens, 0);
        QCOMPARE(again.computed_tokens, again.prompt_tokens);
    }

    void evicted_conversation_resumes_from_its_state() {
        const std::string dir = test::make_temp_dir("session-store");
        engine::SessionStore store(*loaded_.inference, store_options(size_t{1} << 30, dir), metrics_);
        run_turn(store, "a/1", first_turn("cats"));
        run_turn(store, "b", first_turn("dogs"));
        store.set_memory_budget(1); // evicts a/1, saving it
        QVERIFY(!store.in_memory("a/1"));
        const std::string path = store.state_path("a/1");
        QVERIFY(fs::exists(path));
        QCOMPARE(fs::path(path).parent_path(), fs::path(dir)); // the id's slash does not make a directory

        const engine::TurnResult turn = run_turn(store, "a/1", second_turn("cats"));
        const engine::TurnStats& resumed = turn.stats;
        QVERIFY2(turn.resume.restored, turn.resume.reason.c_str());
        QVERIFY(turn.resume.tokens > 0);
        const engine::TurnStats alone = undisturbed_second_turn(*loaded_.inference, "cats");
        QCOMPARE(resumed.reused_tokens, alone.reused_tokens);
        QCOMPARE(resumed.computed_tokens, alone.computed_tokens);

        store.forget("a/1");
        QVERIFY(!fs::exists(path));
        QVERIFY(!store.in_memory("a/1"));
    }

    void states_survive_the_store() {
        const std::string dir = test::make_temp_dir("session-store-close");
        {
            engine::SessionStore store(*loaded_.inference, store_options(size_t{1} << 30, dir), metrics_);
            run_turn(store, "kept", first_turn("cats"));
        } // closing saves
        engine::SessionStore reopened(*loaded_.inference, store_options(size_t{1} << 30, dir), metrics_);
        const engine::TurnResult turn = run_turn(reopened, "kept", second_turn("cats"));
        const engine::TurnStats& stats = turn.stats;
        QVERIFY(turn.resume.restored);
        QCOMPARE(stats.reused_tokens, undisturbed_second_turn(*loaded_.inference, "cats").reused_tokens);
    }

    void damaged_state_is_discarded() {
        const std::string dir = test::make_temp_dir("session-store-bad");
        engine::SessionStore store(*loaded_.inference, store_options(size_t{1} << 30, dir), metrics_);
        run_turn(store, "a", first_turn("cats"));
        store.evict("a");
        const std::string path = store.state_path("a");
        std::string bytes = test::read_file(path);
        bytes[bytes.size() / 2] ^= 1;
        test::write_file(path, bytes);

        const int64_t rejected = metrics_.snapshot().states_rejected;
        const engine::TurnResult turn = run_turn(store, "a", second_turn("cats"));
        const engine::TurnStats& stats = turn.stats;
        QVERIFY(!turn.resume.restored);
        QVERIFY(turn.resume.reason.find("damaged") != std::string::npos);
        QCOMPARE(metrics_.snapshot().states_rejected, rejected + 1);
        QCOMPARE(stats.reused_tokens, 0); // prefilled again
        QVERIFY(!fs::exists(path));       // and the bad file is gone
    }

    // An edited first message makes a second branch; going back to the first one and going on
    // costs what going on without the detour would have: its state comes back from its branch
    // file, not from a prefill, and the reply is the same.
    void a_branch_left_comes_back_without_prefill() {
        const std::string dir = test::make_temp_dir("session-store-branches");
        engine::SessionStoreOptions options = store_options(size_t{1} << 30, dir);
        options.min_branch_tokens = 1;
        engine::SessionStore store(*loaded_.inference, options, metrics_);
        run_turn(store, "chat", first_turn("cats"));
        QVERIFY(store.branch_state_paths("chat").empty()); // nothing left yet

        const engine::TurnResult edited = run_turn(store, "chat", first_turn("dogs"));
        QVERIFY(!edited.resume.branch); // a branch of its own: nothing saved to come back to
        QCOMPARE(store.branch_state_paths("chat").size(), size_t{1}); // the cats branch was kept

        std::string text;
        const engine::TurnResult back = store.run_turn(
            {.conversation_id = "chat", .conversation = second_turn("cats"), .options = greedy()},
            [&](std::string_view piece) { text += piece; });
        QVERIFY2(back.resume.branch && back.resume.restored, back.resume.reason.c_str());
        QVERIFY(back.resume.tokens > 0);

        engine::EngineMetrics alone_metrics;
        engine::SessionStore alone(*loaded_.inference, store_options(size_t{1} << 30), alone_metrics);
        run_turn(alone, "x", first_turn("cats"));
        std::string alone_text;
        const engine::TurnStats undisturbed =
            alone
                .run_turn({.conversation_id = "x", .conversation = second_turn("cats"), .options = greedy()},
                          [&](std::string_view piece) { alone_text += piece; })
                .stats;
        QCOMPARE(back.stats.reused_tokens, undisturbed.reused_tokens);
        QCOMPARE(back.stats.computed_tokens, undisturbed.computed_tokens);
        QCOMPARE(text, alone_text);
        // The cats branch is in memory again; the dogs branch it left is the one kept.
        QCOMPARE(store.branch_state_paths("chat").size(), size_t{1});

        // A regenerated reply leaves the first reply as a branch too.
        const std::vector<engine::ChatTurn> again = first_turn("cats");
        run_turn(store, "chat", again);
        QCOMPARE(store.branch_state_paths("chat").size(), size_t{2});

        store.forget("chat");
        QVERIFY(store.branch_state_paths("chat").empty());
    }

    // At most max_branch_states per conversation, the oldest removed; requests that keep no
    // state (the API's) keep no branches either.
    void branch_states_are_bounded() {
        const std::string dir = test::make_temp_dir("session-store-branch-bound");
        engine::SessionStoreOptions options = store_options(size_t{1} << 30, dir);
        options.min_branch_tokens = 1;
        options.max_branch_states = 2;
        engine::SessionStore store(*loaded_.inference, options, metrics_);
        for (const char* topic : {"cats", "dogs", "mice", "owls", "bees"})
            run_turn(store, "chat", first_turn(topic));
        QCOMPARE(store.branch_state_paths("chat").size(), size_t{2});

        for (const char* topic : {"cats", "dogs"})
            store.run_turn({.conversation_id = "api",
                            .conversation = first_turn(topic),
                            .options = greedy(),
                            .keep_branches = false},
                           nullptr);
        QVERIFY(store.branch_state_paths("api").empty());
    }

    // Two engines in one process (the app's and a test's, say) keep their figures apart.
    void each_engine_has_its_own_metrics() {
        engine::EngineMetrics first_metrics, second_metrics;
        engine::SessionStore first(*loaded_.inference, store_options(size_t{1} << 30), first_metrics);
        engine::SessionStore second(*loaded_.inference, store_options(size_t{1} << 30), second_metrics);
        const engine::TurnStats stats = run_turn(first, "a", first_turn("cats")).stats;
        run_turn(second, "b", first_turn("dogs"));
        run_turn(second, "c", second_turn("dogs"));
        const engine::EngineMetricsSnapshot figures = first_metrics.snapshot();
        QCOMPARE(figures.kv_sessions, int64_t{1});
        QCOMPARE(figures.tokens_computed, int64_t{stats.computed_tokens});
        QCOMPARE(figures.tokens_generated, int64_t{stats.generated_tokens});
        QCOMPARE(second_metrics.snapshot().kv_sessions, int64_t{2});
    }

    // A state file of a process killed before its rename is removed when the next store opens
    // the folder; one of a process still running, and finished states, are left alone.
    void abandoned_temporaries_are_removed() {
        const std::string dir = test::make_temp_dir("session-store-temporaries");
        pid_t child = ::fork();
        if (child == 0) ::_exit(0);
        QVERIFY(child > 0);
        ::waitpid(child, nullptr, 0); // a process id that no longer runs
        const std::string abandoned = dir + "/a.hkv.tmp-" + std::to_string(child);
        const std::string running = dir + "/b.hkv.tmp-" + std::to_string(::getppid());
        const std::string finished = dir + "/c.hkv";
        for (const std::string& path : {abandoned, running, finished})
            test::write_file(path, "x");
        engine::SessionStore store(*loaded_.inference, store_options(size_t{1} << 30, dir), metrics_);
        QVERIFY(!fs::exists(abandoned));
        QVERIFY(fs::exists(running));
        QVERIFY(fs::exists(finished));
    }

private:
    Loaded loaded_;
    engine::EngineMetrics metrics_; // of the stores each test runs on loaded_
};

QTEST_MAIN(TestSessionStore)
#include "test_session_store.moc"
