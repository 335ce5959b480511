// The engine runtime: what it decides from a config, in the one place it is decided. The
// context is capped at the trained one, "0 threads" is one per hardware thread, a quantized KV
// cache the model's head size cannot take is F16, a device that cannot be used leaves the model
// on the CPU and is not tried again until chosen again, and a request's cancel token stops it.
#include "engine/error.h"
#include "engine/forward/thread_count.h"
#include "engine/runtime/engine_runtime.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <filesystem>
#include <thread>

using namespace hearth;
using engine::EngineRuntime;
using engine::RuntimeConfig;
using kernels::TensorType;

namespace {

std::string model_path(const std::string& name) {
    return test::testdata("models/" + name + ".gguf");
}

engine::RuntimeRequest greedy_turn(const std::string& conversation_id, int32_t max_tokens) {
    engine::RuntimeRequest request;
    request.conversation_id = conversation_id;
    request.conversation = {{chat::Role::User, "Once upon a time"}};
    request.options.sampling.temperature = 0;
    request.options.max_tokens = max_tokens;
    return request;
}

// A device no machine has: set_device refuses it (no such device, or no Vulkan backend).
engine::ComputeDevice missing_gpu() {
    return {engine::ComputeDevice::Kind::Vulkan, 9};
}

} // namespace

class TestEngineRuntime : public QObject {
    Q_OBJECT

private slots:
    void contextIsCappedAtTheTrainedContext() {
        QCOMPARE(EngineRuntime::effective_context(128, 4096), 128);
        QCOMPARE(EngineRuntime::effective_context(128, 64), 64);
        QCOMPARE(EngineRuntime::effective_context(0, 500), 500); // unknown: as asked

        EngineRuntime runtime;
        RuntimeConfig config;
        config.context_length = 4096;
        runtime.configure(config);
        QCOMPARE(runtime.context_length(), 0);   // nothing loaded
        runtime.load(model_path("stories260K")); // trained on 128 positions
        QCOMPARE(runtime.context_length(), 128);
        QCOMPARE(runtime.sessions().session("a").cache().capacity(), 128);

        // A new context resets the sessions: their caches were sized for the old one.
        config.context_length = 96;
        runtime.configure(config);
        QCOMPARE(runtime.context_length(), 96);
        QVERIFY(!runtime.sessions().in_memory("a"));
        QCOMPARE(runtime.sessions().session("a").cache().capacity(), 96);
    }

    // The metrics' cache figures belong to the model and context loaded now: a new model or
    // context shows its own empty cache, not the last reply's of the one before.
    void theCacheFiguresFollowTheModelAndContext() {
        EngineRuntime runtime;
        runtime.load(model_path("tiny-qwen3"));
        runtime.run(greedy_turn("a", 4), nullptr);
        const engine::EngineMetricsSnapshot first = runtime.metrics()->snapshot();
        QVERIFY(first.kv_tokens > 0);
        QCOMPARE(first.kv_capacity, int64_t{runtime.context_length()});

        runtime.load(model_path("stories260K"));
        QCOMPARE(runtime.metrics()->snapshot().kv_tokens, int64_t{0});
        QCOMPARE(runtime.metrics()->snapshot().kv_capacity, int64_t{128});

        RuntimeConfig config;
        config.context_length = 96;
        runtime.configure(config);
        QCOMPARE(runtime.metrics()->snapshot().kv_capacity, int64_t{96});
        runtime.unload();
        QCOMPARE(runtime.metrics()->snapshot().kv_capacity, int64_t{0});
    }

    void zeroThreadsIsOnePerHardwareThread() {
        const auto hardware = static_cast<int32_t>(std::max(1u, std::thread::hardware_concurrency()));
        QCOMPARE(engine::resolve_threads(0), hardware);
        QCOMPARE(engine::resolve_threads(3), 3);

        EngineRuntime runtime;
        runtime.load(model_path("stories260K"));
        QCOMPARE(runtime.inference().n_threads(), hardware);
        runtime.run(greedy_turn("a", 2), nullptr);
        QVERIFY(runtime.sessions().in_memory("a"));

        // Threads alone resize the pool: the conversations keep their caches.
        RuntimeConfig config;
        config.threads = 2;
        runtime.configure(config);
        QCOMPARE(runtime.inference().n_threads(), 2);
        QVERIFY(runtime.sessions().in_memory("a"));
    }

    // stories260K's heads have 8 values (no block of 32 fits): F16; tiny-qwen3's take blocks.
    void quantizedCacheFallsBackToF16WhereTheHeadTakesNoBlocks() {
        const engine::KvCacheTypes quantized{TensorType::Q8_0, TensorType::Q4_0};
        QCOMPARE(EngineRuntime::supported_cache_types(8, quantized), engine::KvCacheTypes{});
        QCOMPARE(EngineRuntime::supported_cache_types(64, quantized), quantized);

        RuntimeConfig config;
        config.cache_types = quantized;
        EngineRuntime small;
        small.configure(config);
        small.load(model_path("stories260K"));
        QCOMPARE(small.inference().cache_types(), engine::KvCacheTypes{});
        QVERIFY(small.run(greedy_turn("a", 2), nullptr).stats.generated_tokens > 0);

        EngineRuntime qwen;
        qwen.configure(config);
        qwen.load(model_path("tiny-qwen3"));
        QCOMPARE(qwen.inference().cache_types(), quantized);
        // Back to F16 in the config: a new forward pass with F16 caches.
        qwen.configure(RuntimeConfig{});
        QCOMPARE(qwen.inference().cache_types(), engine::KvCacheTypes{});
    }

    void anUnusableDeviceLeavesTheModelOnTheCpu() {
        RuntimeConfig config;
        config.device = missing_gpu();
        EngineRuntime runtime;
        runtime.configure(config);
        const std::optional<engine::DeviceFailure> failure = runtime.load(model_path("stories260K"));
        QVERIFY(failure);
        QCOMPARE(failure->device, std::string("vulkan:9"));
        QVERIFY(!failure->reason.empty());
        QVERIFY(runtime.loaded());
        QCOMPARE(runtime.inference().n_gpu_layers(), 0);
        QVERIFY(runtime.run(greedy_turn("a", 2), nullptr).stats.generated_tokens > 0);

        // Another setting: the failed choice is not tried again.
        config.threads = 1;
        QVERIFY(!runtime.configure(config));
        // Chosen again after another: tried again.
        config.device = {};
        QVERIFY(!runtime.configure(config));
        config.device = missing_gpu();
        QVERIFY(runtime.configure(config));
        QCOMPARE(runtime.inference().n_gpu_layers(), 0);
    }

    // Without the fall back (the command line), what the model or the machine cannot take is an
    // error naming it.
    void withoutTheFallBackWhatCannotBeTakenIsAnError() {
        RuntimeConfig config;
        config.fall_back = false;
        config.cache_types.keys = TensorType::Q8_0;
        EngineRuntime cache;
        cache.configure(config);
        try {
            cache.load(model_path("stories260K"));
            QFAIL("a Q8_0 cache on heads of 8 values loaded");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("multiple of 32") != std::string::npos, e.what());
        }
        QVERIFY(!cache.loaded());

        config.cache_types = {};
        config.device = missing_gpu();
        EngineRuntime device;
        device.configure(config);
        QVERIFY_THROWS_EXCEPTION(Error, device.load(model_path("stories260K")));
    }

    void aCancelledRequestStopsBeforeItsFirstToken() {
        EngineRuntime runtime;
        runtime.load(model_path("stories260K"));
        engine::RuntimeRequest request = greedy_turn("a", 50);
        request.cancel->store(true);
        const engine::TurnResult result = runtime.run(request, nullptr);
        QCOMPARE(result.stats.stop_reason, engine::StopReason::Stopped);
        QCOMPARE(result.stats.generated_tokens, 0);
        // The next request has its own token.
        QVERIFY(runtime.run(greedy_turn("a", 3), nullptr).stats.stop_reason != engine::StopReason::Stopped);
    }

    // The memory budget and the saved-state format are fields of the one config; sessions that
    // keep no state are never saved.
    void budgetAndSavedStatesFollowTheConfig() {
        const std::string dir = test::make_temp_dir("hearth-runtime");
        EngineRuntime runtime(dir);
        runtime.load(model_path("stories260K"));
        RuntimeConfig config;
        config.memory_budget_bytes = 1; // only the conversation in use stays in memory
        runtime.configure(config);
        runtime.run(greedy_turn("kept", 2), nullptr);
        engine::RuntimeRequest api = greedy_turn("api", 2);
        api.keep_state = false;
        runtime.run(api, nullptr); // evicts "kept", which is saved
        QVERIFY(!runtime.sessions().in_memory("kept"));
        QVERIFY(std::filesystem::exists(runtime.sessions().state_path("kept")));
        const std::string api_state = runtime.sessions().state_path("api");
        runtime.run(greedy_turn("kept", 2), nullptr); // evicts "api", saved as it goes
        runtime.unload();
        QVERIFY(!std::filesystem::exists(api_state));
        QVERIFY(std::filesystem::exists(engine::SessionStore::state_path_in(dir, "kept")));

        runtime.forget("kept"); // without a model: the state file goes all the same
        QVERIFY(!std::filesystem::exists(engine::SessionStore::state_path_in(dir, "kept")));
    }
};

QTEST_GUILESS_MAIN(TestEngineRuntime)
#include "test_engine_runtime.moc"
