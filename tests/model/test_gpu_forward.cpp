// The forward pass on a Vulkan device (engine/forward/device_forward.h), on this machine's
// Vulkan device (lavapipe, Mesa's Vulkan on the CPU, where there is no GPU), with the validation
// layer on and no validation error allowed:
// - every reference model file meets the reference rule (tests/support/reference_rule.h, as
//   test_golden holds the CPU to it) with the whole model on the device and with the first half
//   of its layers there, and greedy generation follows llama.cpp's tokens up to the first
//   near-tie;
// - a conversation's KV state saved from one device restores on the other, and a cache moves
//   between forward passes on different devices;
// - prefix reuse and context shift work on the device's cache;
// - what crosses between host and device per decoded token, the per-op timings, and the errors
//   for a device that does not exist or has too little memory.
// Skipped, with the reason, only on a machine without any Vulkan device.
#include "engine/error.h"
#include "engine/forward/compute_device.h"
#include "engine/forward/device_forward.h"
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/sampling/sampler.h"
#include "engine/session/chat_session.h"
#include "engine/session/kv_state_file.h"
#include "engine/session/session_store.h"
#include "tests/support/reference_logits.h"
#include "tests/support/reference_rule.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

using namespace hearth;

namespace {

// n_gpu_layers of a row: the whole model, or the first half of its layers.
constexpr int kWholeModel = -1;
constexpr int kHalf = -2;
// A forward pass on the CPU alone, in rows that move a cache between devices.
constexpr int kCpu = -3;

// Greedy generation on a quantized file: at most this many steps of each line; on every file
// compared up to llama.cpp's first near-tie (its top two logits closer than this), which any
// other rounding may flip.
constexpr size_t kGreedySteps = 30;
constexpr float kNearTie = 0.05f;

std::shared_ptr<const engine::Model> load(const std::string& name) {
    return engine::Model::load(test::testdata("models/" + name + ".gguf"));
}

// Options of a forward pass with `layers` on the device (a row's n_gpu_layers: kWholeModel,
// kHalf, kCpu or a count), the validation layer on.
engine::InferenceOptions options_for(const engine::Model& model, int layers, int32_t n_batch = 64,
                                     engine::KvCacheTypes types = {}) {
    engine::InferenceOptions options{2, n_batch, types};
    if (layers == kCpu) return options;
    options.device = {engine::ComputeDevice::Kind::Vulkan, -1};
    options.n_gpu_layers = layers == kHalf ? model.hparams().n_layer / 2 : layers;
    options.device_validation = true;
    return options;
}

std::string layers_label(int layers) {
    return layers == kWholeModel ? "whole model" : layers == kHalf ? "half the layers" : "cpu";
}

// The device ran what it was asked to, and the validation layer saw nothing wrong.
void verify_device(const engine::Inference& inference, int layers) {
    const int32_t n_layer = inference.model().hparams().n_layer;
    const engine::DeviceForward* device = inference.device_forward();
    if (layers == kCpu) {
        QVERIFY(device == nullptr);
        return;
    }
    QVERIFY2(device != nullptr, "no layer ran on the device");
    QCOMPARE(device->n_layers(), layers == kHalf ? n_layer / 2 : n_layer);
    QVERIFY2(device->validation_errors() == 0,
             qPrintable(QString("%1 Vulkan validation errors, the last: %2")
                            .arg(device->validation_errors())
                            .arg(QString::fromStdString(device->last_validation_message()))));
}

float max_difference(std::span<const float> a, std::span<const float> b) {
    float m = 0;
    for (size_t i = 0; i < a.size(); ++i)
        m = std::max(m, std::fabs(a[i] - b[i]));
    return m;
}

std::vector<int32_t> story_tokens(const engine::Model& model, int n) {
    std::vector<int32_t> tokens = model.tokenizer().encode(
        "Once upon a time there was a little girl named Lily. She loved to play outside in the park with her "
        "friends. One day she found a big red ball under a tree and ran home to show her mother.",
        true, false);
    while (static_cast<int>(tokens.size()) < n)
        tokens.push_back(tokens[tokens.size() % 40 + 1]);
    tokens.resize(static_cast<size_t>(n));
    return tokens;
}

// What two ways of computing the same logits may differ by on a model: llama.cpp's largest error
// against exact math on its reference lines (the rounding one engine build may differ by). A
// cache restored wrong, or rows not carried between devices, miss it by orders of magnitude.
float rounding_bound(const std::string& model) {
    return static_cast<float>(test::llama_cpp_error(model).max_abs);
}

} // namespace

class TestGpuForward : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (!engine::vulkan_built())
            QSKIP("this build has no Vulkan backend (libvulkan-dev or glslc missing)");
        const std::vector<engine::GpuDeviceInfo> devices = engine::gpu_devices();
        if (devices.empty())
            QSKIP("no Vulkan device on this machine (not even lavapipe, mesa-vulkan-drivers)");
        for (const engine::GpuDeviceInfo& d : devices)
            qInfo("vulkan:%d %s (%s, %s %s)", d.index, d.name.c_str(), d.type.c_str(), d.driver_name.c_str(),
                  d.driver_info.c_str());
    }

    // The reference rule on every reference model file, the whole model on the device and with
    // the first half of its layers there (models of one layer have no half), evaluated in one
    // pass; the files the CPU suite also checks token by token, the same way here (decode's
    // mat-vec shaders, single-position attention).
    void logits_meet_the_reference_rule_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("evaluation");
        const std::set<std::string> decode_checked = {
            "stories260K-Q4_K_M", "tiny-gemma2",        "tiny-gemma3-Q8_0", "tiny-phi3",
            "tiny-gpt2",          "tiny-qwen3moe-Q8_0", "tiny-qwen2-Q8_0",  "tiny-qwen3"};
        for (const std::string& model : test::models_with_reference()) {
            const int32_t n_layer =
                engine::Model::read_info(test::testdata("models/" + model + ".gguf")).n_layer;
            for (const int layers : {kWholeModel, kHalf}) {
                if (layers == kHalf && n_layer < 2) continue;
                QTest::addRow("%s/%s", model.c_str(), layers_label(layers).c_str())
                    << QString::fromStdString(model) << layers << 0;
                if (decode_checked.contains(model))
                    QTest::addRow("%s/%s token by token", model.c_str(), layers_label(layers).c_str())
                        << QString::fromStdString(model) << layers << 1;
            }
        }
    }
    void logits_meet_the_reference_rule() {
        QFETCH(QString, model);
        QFETCH(int, layers);
        QFETCH(int, evaluation);
        const std::string name = model.toStdString();
        const auto loaded = load(name);
        const std::vector<test::ReferenceLine> lines = test::read_reference(name);
        const bool by_token = evaluation == 1;
        const test::Measured measured = test::measure_reference(
            loaded, lines, by_token ? test::Evaluation::TokenByToken : test::Evaluation::OnePass,
            options_for(*loaded, layers),
            [&](const engine::Inference& inference) { verify_device(inference, layers); });
        if (QTest::currentTestFailed()) return;
        test::verify_reference_rule(
            name, "vulkan, " + layers_label(layers) + (by_token ? ", token by token" : ""), lines, measured);
    }

    // A trained model left to itself on the device picks llama.cpp's tokens, up to llama.cpp's
    // first near-tie.
    void greedy_generation_follows_llama_cpp_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("layers");
        for (const char* m : {"stories260K", "stories260K-Q8_0", "stories260K-Q4_0", "stories260K-Q4_K_M"})
            for (const int layers : {kWholeModel, kHalf})
                QTest::addRow("%s/%s", m, layers_label(layers).c_str()) << m << layers;
    }
    void greedy_generation_follows_llama_cpp() {
        QFETCH(QString, model);
        QFETCH(int, layers);
        const std::string name = model.toStdString();
        const auto loaded = load(name);
        engine::Inference inference(loaded, options_for(*loaded, layers));
        for (const test::ReferenceLine& line : test::read_reference(name)) {
            // The F32 file: every step (as on the CPU); quantized ones: the first kGreedySteps.
            const size_t n_steps =
                name == "stories260K" ? line.steps.size() : std::min(kGreedySteps, line.steps.size());
            auto cache = inference.new_cache(static_cast<int32_t>(line.prompt_tokens.size() + n_steps));
            std::span<const float> logits = inference.eval(*cache, line.prompt_tokens);
            size_t compared = 0;
            for (; compared < n_steps; ++compared) {
                const test::ReferenceStep& golden = line.steps[compared];
                if (golden.golden_top_gap() < kNearTie) break;
                const int32_t ours = engine::argmax(logits);
                QVERIFY2(ours == golden.token, qPrintable(QString("\"%1\", step %2: ours %3, llama.cpp %4")
                                                              .arg(QString::fromStdString(line.prompt))
                                                              .arg(compared)
                                                              .arg(ours)
                                                              .arg(golden.token)));
                logits = inference.eval(*cache, std::span<const int32_t>(&ours, 1));
            }
            qInfo("%s/%s \"%s\": %zu of %zu steps compared, up to the first near-tie", name.c_str(),
                  layers_label(layers).c_str(), line.prompt.c_str(), compared, n_steps);
        }
        verify_device(inference, layers);
    }

    // A conversation evaluated on one device, saved, restored into a cache of another, gives the
    // next token's logits that device computes from scratch; and the reverse. The saved state is
    // the same file format whatever the device (kv_state_file.h).
    void saved_state_crosses_devices_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("saved_on");
        QTest::addColumn<int>("restored_on");
        QTest::addColumn<bool>("q8_cache");
        for (const char* m : {"stories260K", "tiny-qwen3"})
            for (const auto& [from, to] :
                 {std::pair{kWholeModel, kCpu}, std::pair{kCpu, kWholeModel}, std::pair{kHalf, kCpu},
                  std::pair{kCpu, kHalf}, std::pair{kWholeModel, kHalf}})
                for (const bool q8 : {false, true}) {
                    if (q8 && std::string(m) == "stories260K") continue; // head size 8: no Q8_0 cache
                    QTest::addRow("%s/%s to %s%s", m, layers_label(from).c_str(), layers_label(to).c_str(),
                                  q8 ? "/q8_0 cache" : "")
                        << m << from << to << q8;
                }
    }
    void saved_state_crosses_devices() {
        QFETCH(QString, model);
        QFETCH(int, saved_on);
        QFETCH(int, restored_on);
        QFETCH(bool, q8_cache);
        const std::string name = model.toStdString();
        const auto loaded = load(name);
        const engine::KvCacheTypes types =
            q8_cache ? engine::KvCacheTypes{kernels::TensorType::Q8_0, kernels::TensorType::Q8_0}
                     : engine::KvCacheTypes{};
        const std::vector<int32_t> prompt = story_tokens(*loaded, 40);
        const int32_t next = prompt[7];
        constexpr int32_t kContext = 128;
        const engine::KvStateIdentity identity{engine::model_identity(*loaded), 42};
        const std::string path = test::make_temp_dir("hearth-gpu-state") + "/state.hkv";

        engine::Inference saver(loaded, options_for(*loaded, saved_on, 16, types));
        auto saved = saver.new_cache(kContext);
        saver.eval(*saved, prompt);
        engine::save_kv_state(path, *saved, identity);
        // The saver goes on too: its own next logits, from the cache it kept.
        const std::vector<float> saver_next = [&] {
            const auto logits = saver.eval(*saved, std::span<const int32_t>(&next, 1));
            return std::vector<float>(logits.begin(), logits.end());
        }();
        verify_device(saver, saved_on);

        engine::Inference restorer(loaded, options_for(*loaded, restored_on, 16, types));
        auto restored = restorer.new_cache(kContext);
        const engine::KvRestoreResult result =
            engine::restore_kv_state(path, *restored, identity, restorer.n_vocab());
        QVERIFY2(result.restored, result.reason.c_str());
        QCOMPARE(restored->tokens(), prompt);
        const std::vector<float> restored_next = [&] {
            const auto logits = restorer.eval(*restored, std::span<const int32_t>(&next, 1));
            return std::vector<float>(logits.begin(), logits.end());
        }();
        std::vector<int32_t> whole = prompt;
        whole.push_back(next);
        auto fresh = restorer.new_cache(kContext);
        const auto fresh_logits = restorer.eval(*fresh, whole);
        verify_device(restorer, restored_on);

        const float bound = rounding_bound(name);
        const float from_fresh = max_difference(restored_next, fresh_logits);
        const float from_saver = max_difference(restored_next, saver_next);
        qInfo("%s: restored vs computed there %g, vs the saver's %g (bound %g)", name.c_str(), from_fresh,
              from_saver, bound);
        QVERIFY2(from_fresh <= bound, qPrintable(QString("restored logits differ by %1").arg(from_fresh)));
        QVERIFY2(from_saver <= bound, qPrintable(QString("from the saver's by %1").arg(from_saver)));
    }

    // One cache, evaluated by forward passes on different devices in turn: each brings the rows
    // the other wrote (KvCache::attach_device / detach_device).
    void a_cache_moves_between_devices() {
        const auto loaded = load("stories260K");
        engine::Inference gpu(loaded, options_for(*loaded, kWholeModel, 16));
        engine::Inference half(loaded, options_for(*loaded, kHalf, 16));
        engine::Inference cpu(loaded, options_for(*loaded, kCpu, 16));
        const std::vector<int32_t> tokens = story_tokens(*loaded, 48);
        auto cache = cpu.new_cache(64);
        // 16 tokens on each, then one more on the CPU.
        gpu.eval(*cache, std::span<const int32_t>(tokens.data(), 16));
        half.eval(*cache, std::span<const int32_t>(tokens.data() + 16, 16));
        gpu.eval(*cache, std::span<const int32_t>(tokens.data() + 32, 15));
        const std::vector<float> moved = [&] {
            const auto logits = cpu.eval(*cache, std::span<const int32_t>(tokens.data() + 47, 1));
            return std::vector<float>(logits.begin(), logits.end());
        }();
        QCOMPARE(cache->tokens(), tokens);
        QVERIFY(cache->device_part() == nullptr);
        auto reference = cpu.new_cache(64);
        const auto expected = cpu.eval(*reference, tokens);
        const float diff = max_difference(moved, expected);
        qInfo("after moving between devices: %g from the CPU's own", diff);
        QVERIFY2(diff <= rounding_bound("stories260K"), qPrintable(QString("differ by %1").arg(diff)));
        verify_device(gpu, kWholeModel);
        verify_device(half, kHalf);
    }

    // Prefix reuse across the turns of a conversation on the device: the second turn reuses the
    // first's tokens, and its logits are those of a fresh session.
    void prefix_reuse_across_turns_data() {
        QTest::addColumn<int>("layers");
        QTest::newRow("whole model") << kWholeModel;
        QTest::newRow("half the layers") << kHalf;
    }
    void prefix_reuse_across_turns() {
        QFETCH(int, layers);
        const auto loaded = load("stories260K");
        engine::Inference inference(loaded, options_for(*loaded, layers, 16));
        engine::GenerationOptions options;
        options.sampling.temperature = 0;
        options.max_tokens = 6;
        constexpr int32_t kContext = 512;
        engine::ChatSession session(inference, kContext);
        std::vector<engine::ChatTurn> turns{{chat::Role::System, "You are a kind storyteller."},
                                            {chat::Role::User, "Tell me about a red ball."}};
        std::string reply;
        const engine::TurnStats first =
            session.reply(turns, options, [&](std::string_view piece) { reply += piece; });
        QCOMPARE(first.reused_tokens, 0);
        turns.push_back({chat::Role::Assistant, reply});
        turns.push_back({chat::Role::User, "Who found it?"});
        const auto prefilled = session.prefill(turns, options);
        const std::vector<float> reused(prefilled.logits.begin(), prefilled.logits.end());
        QVERIFY(prefilled.stats.reused_tokens >= first.prompt_tokens - 1);
        QCOMPARE(prefilled.stats.computed_tokens,
                 prefilled.stats.prompt_tokens - prefilled.stats.reused_tokens);

        engine::ChatSession fresh(inference, kContext);
        const auto full = fresh.prefill(turns, options);
        QCOMPARE(full.stats.reused_tokens, 0);
        const float diff = max_difference(reused, full.logits);
        qInfo("reused %d of %d tokens; %g from a fresh session", prefilled.stats.reused_tokens,
              prefilled.stats.prompt_tokens, diff);
        QVERIFY2(diff <= rounding_bound("stories260K"), qPrintable(QString("differ by %1").arg(diff)));
        verify_device(inference, layers);
    }

    // Context shift on the device's cache: the kept keys are turned on the host and sent back up;
    // the logits after it are the CPU's after the same shift.
    void context_shift_on_the_device_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("layers");
        for (const char* m : {"stories260K", "tiny-gemma3"})
            for (const int layers : {kWholeModel, kHalf})
                QTest::addRow("%s/%s", m, layers_label(layers).c_str()) << m << layers;
    }
    void context_shift_on_the_device() {
        QFETCH(QString, model);
        QFETCH(int, layers);
        const std::string name = model.toStdString();
        const auto loaded = load(name);
        const std::vector<int32_t> tokens = story_tokens(*loaded, 60);
        constexpr int32_t kContext = 48, kKeep = 4, kDiscard = 20;
        const auto shifted_logits = [&](engine::Inference& inference) {
            auto cache = inference.new_cache(kContext);
            inference.eval(*cache, std::span<const int32_t>(tokens.data(), 44));
            inference.shift_context(*cache, kKeep, kDiscard);
            const auto logits = inference.eval(*cache, std::span<const int32_t>(tokens.data() + 44, 16));
            return std::vector<float>(logits.begin(), logits.end());
        };
        engine::Inference gpu(loaded, options_for(*loaded, layers, 16));
        engine::Inference cpu(loaded, options_for(*loaded, kCpu, 16));
        const float diff = max_difference(shifted_logits(gpu), shifted_logits(cpu));
        qInfo("%s after a context shift: %g from the CPU's", name.c_str(), diff);
        QVERIFY2(diff <= rounding_bound(name), qPrintable(QString("differ by %1").arg(diff)));
        verify_device(gpu, layers);
    }

    // Per decoded token only its id goes up, and only the logits (the whole model) or the
    // residual stream (a split) come back; the op timings of that pass are there.
    void what_crosses_per_token_data() {
        QTest::addColumn<int>("layers");
        QTest::newRow("whole model") << kWholeModel;
        QTest::newRow("half the layers") << kHalf;
    }
    void what_crosses_per_token() {
        QFETCH(int, layers);
        const auto loaded = load("tiny-llama3");
        const engine::HyperParams& hp = loaded->hparams();
        engine::Inference inference(loaded, options_for(*loaded, layers, 16));
        auto cache = inference.new_cache(64);
        inference.eval(*cache, story_tokens(*loaded, 20));
        const int32_t token = 5;
        inference.eval(*cache, std::span<const int32_t>(&token, 1));
        const engine::DeviceForward* device = inference.device_forward();
        QVERIFY(device);
        const engine::DeviceTraffic traffic = device->last_traffic();
        const uint64_t back =
            sizeof(float) * static_cast<uint64_t>(layers == kWholeModel ? hp.n_vocab : hp.n_embd);
        qInfo("%s: %llu bytes up, %llu down per decoded token", layers_label(layers).c_str(),
              static_cast<unsigned long long>(traffic.to_device),
              static_cast<unsigned long long>(traffic.from_device));
        QCOMPARE(traffic.tokens, int64_t{1});
        QCOMPARE(traffic.to_device, uint64_t{sizeof(int32_t)});
        QCOMPARE(traffic.from_device, back);
        QCOMPARE(device->bytes_per_decoded_token(), traffic.bytes());
        QCOMPARE(device->total_traffic().tokens, int64_t{21});

        const std::vector<engine::DeviceOpTiming> timings = device->timings();
        QVERIFY(!timings.empty());
        uint32_t dispatches = 0;
        for (const engine::DeviceOpTiming& t : timings) {
            QVERIFY(!t.name.empty());
            dispatches += t.dispatches;
            // The ops with shader variants name the candidate that ran.
            if (t.name == "matmul" || t.name == "attention")
                QVERIFY2(kernels::kernel_name(t.kernel).backend.device == kernels::Device::Vulkan,
                         t.name.c_str());
        }
        // At least a matrix product per weight matrix of each of the device's layers.
        QVERIFY2(dispatches >= 7u * static_cast<uint32_t>(device->n_layers()),
                 qPrintable(QString("%1 dispatches").arg(dispatches)));
        verify_device(inference, layers);
    }

    // A store's conversations follow their forward pass between devices (Inference::set_device
    // between turns, the caches brought home first): each next turn reuses its cache, and a device
    // that cannot be had leaves every layer on the CPU, the caches kept.
    void sessions_follow_set_device() {
        const auto loaded = load("stories260K");
        engine::Inference inference(loaded, options_for(*loaded, kCpu, 16));
        engine::EngineMetrics metrics;
        engine::SessionStoreOptions store_options;
        store_options.n_ctx = 128;
        engine::SessionStore store(inference, store_options, metrics);
        engine::GenerationOptions options;
        options.sampling.temperature = 0;
        options.max_tokens = 6;
        options.template_override = "{% for m in messages %}{{ m.content }}\n{% endfor %}";
        std::vector<engine::ChatTurn> turns{{chat::Role::User, "Once upon a time"}};
        int32_t before = 0; // the prompt of the turn before
        const auto turn = [&](const char* ask) {
            std::string reply;
            const engine::TurnResult result =
                store.run_turn({.conversation_id = "c", .conversation = turns, .options = options},
                               [&](std::string_view piece) { reply += piece; });
            turns.push_back({chat::Role::Assistant, reply});
            turns.push_back({chat::Role::User, ask});
            const int32_t reused = result.stats.reused_tokens;
            const bool ok = reused >= before && (before == 0 || result.resume.from_memory);
            if (!ok) qWarning("reused %d of the %d tokens before", reused, before);
            before = result.stats.prompt_tokens;
            return ok;
        };
        QVERIFY(turn("And then?"));
        store.move_caches_to_host();
        inference.set_device(options_for(*loaded, kWholeModel, 16));
        QVERIFY(inference.device_forward() != nullptr);
        QVERIFY(turn("What next?"));
        QVERIFY(store.session("c").cache().device_part() != nullptr);
        verify_device(inference, kWholeModel);
        store.move_caches_to_host();
        QVERIFY(store.session("c").cache().device_part() == nullptr);
        engine::InferenceOptions missing = options_for(*loaded, kWholeModel, 16);
        missing.device.index = 99;
        QVERIFY_THROWS_EXCEPTION(Error, inference.set_device(missing));
        QVERIFY(inference.device_forward() == nullptr);
        QVERIFY(turn("How did it end?"));
    }

    // The errors a caller falls back to the CPU on: hearth::Error with the reason, never a crash.
    void errors_name_the_problem() {
        const auto loaded = load("stories260K");
        const auto message_of = [&](engine::InferenceOptions options) -> std::string {
            try {
                engine::Inference inference(loaded, options);
            } catch (const Error& e) {
                return e.what();
            }
            return "";
        };
        engine::InferenceOptions options = options_for(*loaded, kWholeModel);
        options.device.index = 99;
        const std::string missing = message_of(options);
        QVERIFY2(missing.find("no Vulkan device vulkan:99") != std::string::npos, missing.c_str());

        // A context no device holds: with every layer that fits (none), and with a count.
        options = options_for(*loaded, kWholeModel);
        options.device_context = 1 << 30;
        const std::string automatic = message_of(options);
        QVERIFY2(automatic.find("too little memory") != std::string::npos, automatic.c_str());
        options.n_gpu_layers = 3;
        const std::string counted = message_of(options);
        QVERIFY2(counted.find("at most 0 fit") != std::string::npos, counted.c_str());

        // No layer on the device: the CPU alone, the device still checked.
        options = options_for(*loaded, 0);
        engine::Inference cpu(loaded, options);
        QVERIFY(cpu.device_forward() == nullptr);
        QCOMPARE(cpu.device_summary(), std::string("CPU"));
    }
};

QTEST_GUILESS_MAIN(TestGpuForward)
#include "test_gpu_forward.moc"
