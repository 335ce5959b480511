// Saving and restoring a conversation's KV state: a round trip gives back the same
// cache (bit for bit in F16, within Q8_0's rounding otherwise) and the same next
// logits; a damaged, truncated or foreign file is refused with a reason, leaves the
// cache alone, and the conversation falls back to prefilling. A Q8_0 or Q4_0 cache saves its
// own rows and restores bit for bit into one of its types, and is refused by another; files
// of version 1 still restore.
#include "engine/error.h"
#include "engine/forward/expert_hits.h"
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/session/chat_session.h"
#include "engine/session/kv_state_file.h"
#include "kernels/fp16.h"
#include "tests/model/model_fixture.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <utility>

using namespace hearth;
namespace fs = std::filesystem;

namespace {

using Loaded = test::LoadedModel;

Loaded load(const std::string& name) {
    return test::load_model(name, 32);
}

std::vector<engine::ChatTurn> conversation() {
    return {{chat::Role::System, "You tell tiny stories."},
            {chat::Role::User, "Tell me about a cat."},
            {chat::Role::Assistant, "The cat sat in the sun."},
            {chat::Role::User, "And the dog?"}};
}

engine::GenerationOptions greedy(int max_tokens) {
    engine::GenerationOptions options;
    options.sampling.temperature = 0;
    options.max_tokens = max_tokens;
    return options;
}

std::vector<float> logits_of(engine::ChatSession& session, const std::vector<engine::ChatTurn>& turns,
                             engine::TurnStats* stats = nullptr) {
    auto prefilled = session.prefill(turns, greedy(4));
    if (stats) *stats = prefilled.stats;
    return {prefilled.logits.begin(), prefilled.logits.end()};
}

} // namespace

class TestKvStateFile : public QObject {
    Q_OBJECT

private slots:
    void round_trip_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("q8");
        for (const char* m : {"stories260K", "tiny-qwen2", "tiny-llama3"}) {
            QTest::newRow((std::string(m) + "/f16").c_str()) << m << false;
            QTest::newRow((std::string(m) + "/q8_0").c_str()) << m << true;
        }
    }
    void round_trip() {
        QFETCH(QString, model);
        QFETCH(bool, q8);
        Loaded l = load(model.toStdString());
        const std::string dir = test::make_temp_dir("kv-state");
        const std::string path = dir + "/conversation.hkv";
        const int32_t n_ctx = 128;

        engine::ChatSession original(*l.inference, n_ctx);
        auto turns = conversation();
        original.reply(turns, greedy(6), nullptr);
        const auto format = q8 ? engine::KvStateFormat::Q8_0 : engine::KvStateFormat::F16;
        original.save_state(path, format);
        QVERIFY(fs::exists(path));
        for (const auto& entry : fs::directory_iterator(dir)) // the temporary file was renamed away
            QCOMPARE(entry.path().filename().string(), std::string("conversation.hkv"));

        engine::ChatSession resumed(*l.inference, n_ctx);
        const engine::KvRestoreResult result = resumed.restore_state(path);
        QVERIFY2(result.restored, result.reason.c_str());
        QCOMPARE(result.tokens, original.cache().size());
        QVERIFY(resumed.cache().tokens() == original.cache().tokens());

        // Keys and values: identical in F16; within Q8_0's step of each 32-block otherwise.
        const engine::KvCache& a = original.cache();
        const engine::KvCache& b = resumed.cache();
        float worst = 0, largest = 0;
        for (int32_t layer = 0; layer < a.n_layer(); ++layer)
            for (int32_t pos = 0; pos < a.size(); ++pos)
                for (int32_t i = 0; i < a.kv_width(); ++i)
                    for (const auto part : {engine::KvCache::Part::Keys, engine::KvCache::Part::Values}) {
                        const float x = kernels::fp16_to_fp32(a.at(part, layer, pos, i));
                        const float y = kernels::fp16_to_fp32(b.at(part, layer, pos, i));
                        worst = std::max(worst, std::fabs(x - y));
                        largest = std::max(largest, std::fabs(x));
                    }
        if (q8)
            QVERIFY2(worst <= largest / 127.0f, "Q8_0 round trip off by more than a quantization step");
        else
            QVERIFY(worst == 0.0f); // exact (QCOMPARE on floats is fuzzy)

        // The next turn reuses the restored prefix exactly as the original session would.
        turns.push_back({chat::Role::Assistant, "The dog ran."});
        turns.push_back({chat::Role::User, "Then?"});
        engine::TurnStats from_original, from_resumed;
        const std::vector<float> expected = logits_of(original, turns, &from_original);
        const std::vector<float> got = logits_of(resumed, turns, &from_resumed);
        QCOMPARE(from_resumed.reused_tokens, from_original.reused_tokens);
        QVERIFY(from_resumed.reused_tokens > 0);
        float diff = 0;
        for (size_t i = 0; i < expected.size(); ++i)
            diff = std::max(diff, std::fabs(expected[i] - got[i]));
        qInfo("max logit difference after restore: %g", diff);
        if (q8)
            QVERIFY(diff < 0.5f);
        else
            QVERIFY(diff == 0.0f);
    }

    void refused_states_fall_back_data() {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("reason");
        QTest::newRow("missing") << "missing"
                                 << "no saved conversation state";
        QTest::newRow("empty") << "empty"
                               << "not a Hearth conversation state";
        QTest::newRow("bad magic") << "magic"
                                   << "not a Hearth conversation state";
        QTest::newRow("other version") << "version"
                                       << "version 99 is not supported";
        QTest::newRow("truncated") << "truncate"
                                   << "damaged or truncated";
        QTest::newRow("flipped byte") << "flip"
                                      << "damaged or truncated";
        QTest::newRow("other model") << "model"
                                     << "saved for another model";
        QTest::newRow("other template") << "template"
                                        << "saved with another chat template";
        QTest::newRow("too long for context") << "context"
                                              << "do not fit in the context length";
    }
    void refused_states_fall_back() {
        QFETCH(QString, damage);
        QFETCH(QString, reason);
        Loaded l = load("stories260K");
        const std::string dir = test::make_temp_dir("kv-state-bad");
        const std::string path = dir + "/c.hkv";
        auto turns = conversation();
        {
            engine::ChatSession session(*l.inference, 128);
            session.reply(turns, greedy(4), nullptr);
            session.save_state(path);
        }
        std::string bytes = test::read_file(path);
        const std::string kind = damage.toStdString();
        if (kind == "missing") fs::remove(path);
        if (kind == "empty") test::write_file(path, "");
        if (kind == "magic") bytes[0] = 'X';
        if (kind == "version") bytes[4] = 99;
        if (kind == "truncate") bytes.resize(bytes.size() / 2);
        if (kind == "flip") bytes[bytes.size() / 2] ^= 0x10;
        if (kind == "magic" || kind == "version" || kind == "truncate" || kind == "flip")
            test::write_file(path, bytes);

        Loaded other = kind == "model" ? load("stories260K-Q8_0") : Loaded{};
        engine::Inference& inference = kind == "model" ? *other.inference : *l.inference;
        engine::ChatSession session(inference, kind == "context" ? 16 : 128);
        engine::GenerationOptions options = greedy(4);
        if (kind == "template")
            options.template_override = "{% for m in messages %}{{ m.content }}\n{% endfor %}";

        const engine::KvRestoreResult result = session.restore_state(path, options);
        QVERIFY(!result.restored);
        qInfo("%s", result.reason.c_str());
        QVERIFY2(result.reason.find(reason.toStdString()) != std::string::npos, result.reason.c_str());
        QVERIFY(result.reason.find(path) != std::string::npos); // names the file
        QCOMPARE(session.cache().size(), 0);                    // left alone

        if (kind == "context") return; // 16 tokens hold no conversation
        // Falls back to prefilling: everything computed, nothing reused, a reply comes.
        const engine::TurnStats stats = session.reply(turns, options, nullptr);
        QCOMPARE(stats.reused_tokens, 0);
        QCOMPARE(stats.computed_tokens, stats.prompt_tokens);
    }

    // The context check is exact: a state of n tokens restores into a context of n and is
    // refused by one of n - 1 (a looser check would write a row past the cache's end).
    void a_state_fits_a_context_of_exactly_its_length() {
        Loaded l = load("stories260K");
        const std::string path = test::make_temp_dir("kv-state-fit") + "/c.hkv";
        int32_t saved = 0;
        {
            engine::ChatSession session(*l.inference, 128);
            session.reply(conversation(), greedy(4), nullptr);
            session.save_state(path);
            saved = session.cache().size();
        }
        QVERIFY(saved > 1);
        engine::ChatSession too_short(*l.inference, saved - 1);
        const engine::KvRestoreResult refused = too_short.restore_state(path, greedy(4));
        QVERIFY(!refused.restored);
        QVERIFY2(refused.reason.find("do not fit in the context length") != std::string::npos,
                 refused.reason.c_str());
        engine::ChatSession exact(*l.inference, saved);
        QVERIFY2(exact.restore_state(path, greedy(4)).restored, "a state of n tokens fits a context of n");
        QCOMPARE(exact.cache().size(), saved);
    }

    // A quantized cache saves its own rows (in either format) and restores bit for bit into a
    // cache of the same types, with the same next logits; into a cache of other types the state
    // is refused and the conversation is prefilled.
    void quantized_cache_round_trip_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("keys");
        QTest::addColumn<int>("values");
        QTest::addColumn<bool>("q8");
        using kernels::TensorType;
        for (const char* m : {"tiny-qwen3", "tiny-llama3"})
            for (const auto& [k, v] : {std::pair{TensorType::Q8_0, TensorType::Q8_0},
                                       std::pair{TensorType::Q4_0, TensorType::F16}})
                for (bool q8 : {false, true})
                    QTest::addRow("%s/k%d-v%d/%s", m, static_cast<int>(k), static_cast<int>(v),
                                  q8 ? "q8_0" : "f16")
                        << m << static_cast<int>(k) << static_cast<int>(v) << q8;
    }
    void quantized_cache_round_trip() {
        QFETCH(QString, model);
        QFETCH(int, keys);
        QFETCH(int, values);
        QFETCH(bool, q8);
        Loaded l = load(model.toStdString());
        const engine::KvCacheTypes types{static_cast<kernels::TensorType>(keys),
                                         static_cast<kernels::TensorType>(values)};
        engine::Inference inference(l.model, engine::InferenceOptions{2, 32, types});
        const std::string path = test::make_temp_dir("kv-state-quantized") + "/c.hkv";
        engine::ChatSession original(inference, 128);
        auto turns = conversation();
        original.reply(turns, greedy(6), nullptr);
        original.save_state(path, q8 ? engine::KvStateFormat::Q8_0 : engine::KvStateFormat::F16);

        engine::ChatSession resumed(inference, 128);
        const engine::KvRestoreResult result = resumed.restore_state(path);
        QVERIFY2(result.restored, result.reason.c_str());
        const engine::KvCache& a = original.cache();
        const engine::KvCache& b = resumed.cache();
        QVERIFY(b.types() == types);
        using Part = engine::KvCache::Part;
        // Quantized parts come back as they were; an F16 part saved as Q8_0 within its step.
        for (const Part part : {Part::Keys, Part::Values}) {
            const bool exact = !q8 || a.type(part) != kernels::TensorType::F16;
            std::vector<float> x(static_cast<size_t>(a.kv_width())), y(x.size());
            float worst = 0, largest = 0;
            for (int32_t layer = 0; layer < a.n_layer(); ++layer)
                for (int32_t pos = 0; pos < a.size(); ++pos) {
                    a.read_row_f32(part, layer, pos, x.data());
                    b.read_row_f32(part, layer, pos, y.data());
                    for (size_t i = 0; i < x.size(); ++i) {
                        worst = std::max(worst, std::fabs(x[i] - y[i]));
                        largest = std::max(largest, std::fabs(x[i]));
                    }
                }
            if (exact)
                QVERIFY(worst == 0.0f);
            else
                QVERIFY(worst <= largest / 127.0f);
        }
        turns.push_back({chat::Role::Assistant, "The dog ran."});
        turns.push_back({chat::Role::User, "Then?"});
        engine::TurnStats from_original, from_resumed;
        const std::vector<float> expected = logits_of(original, turns, &from_original);
        const std::vector<float> got = logits_of(resumed, turns, &from_resumed);
        QCOMPARE(from_resumed.reused_tokens, from_original.reused_tokens);
        // Bit for bit unless an F16 part went through Q8_0 on the way.
        if (!q8 || (types.keys != kernels::TensorType::F16 && types.values != kernels::TensorType::F16))
            QVERIFY(expected == got);

        // Another cache type: refused by name, left alone, prefilled instead.
        engine::ChatSession f16_session(*l.inference, 128);
        const engine::KvRestoreResult refused = f16_session.restore_state(path);
        QVERIFY(!refused.restored);
        QVERIFY2(refused.reason.find("KV cache, this one is f16/f16") != std::string::npos,
                 refused.reason.c_str());
        QCOMPARE(f16_session.cache().size(), 0);
        const engine::TurnStats stats = f16_session.reply(conversation(), greedy(2), nullptr);
        QCOMPARE(stats.reused_tokens, 0);
    }

    // Files of version 1 (before the cache types were saved: F16 caches) still restore.
    void version_1_files_restore() {
        Loaded l = load("stories260K");
        const std::string path = test::make_temp_dir("kv-state-v1") + "/c.hkv";
        engine::ChatSession original(*l.inference, 128);
        original.reply(conversation(), greedy(4), nullptr);
        original.save_state(path);
        // Version 2 -> 1: the two type words after the format go, the checksum is redone.
        std::string bytes = test::read_file(path);
        uint32_t path_length;
        std::memcpy(&path_length, bytes.data() + 8, 4);
        const size_t types_at = 8 + 4 + path_length + 3 * 8 + 4 * 4;
        bytes.erase(types_at, 8);
        bytes[4] = 1;
        bytes.resize(bytes.size() - 8);
        const uint64_t checksum = engine::hash_bytes(bytes.data(), bytes.size());
        bytes.append(reinterpret_cast<const char*>(&checksum), sizeof checksum);
        test::write_file(path, bytes);

        engine::ChatSession resumed(*l.inference, 128);
        const engine::KvRestoreResult result = resumed.restore_state(path);
        QVERIFY2(result.restored, result.reason.c_str());
        QVERIFY(resumed.cache().tokens() == original.cache().tokens());
    }

    void unwritable_path_throws_a_clear_error() {
        Loaded l = load("stories260K");
        engine::ChatSession session(*l.inference, 64);
        session.reply(conversation(), greedy(2), nullptr);
        const std::string path = test::make_temp_dir("kv-state-nodir") + "/missing/dir/c.hkv";
        try {
            session.save_state(path);
            QFAIL("saving into a missing directory did not throw");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find(path) != std::string::npos);
        }
    }

    // Restoring replaces the prefill: it runs no forward pass, and the next turn computes only
    // its new tokens. Forward passes are counted by a mixture-of-experts model's router, which
    // chooses n_expert_used experts in every layer for every token that goes through the model
    // (Inference::expert_hits). (How long either takes is a benchmark's business.)
    void restore_replaces_a_prefill() {
        Loaded l = load("tiny-qwen3moe");
        const engine::HyperParams& hp = l.model->hparams();
        QVERIFY(l.inference->expert_hits());
        const auto tokens_forwarded = [&] {
            const engine::ExpertHits& hits = *l.inference->expert_hits();
            int64_t total = 0;
            for (int32_t layer = 0; layer < hits.n_layer(); ++layer)
                for (int32_t expert = 0; expert < hits.n_expert(); ++expert)
                    total += hits.at(layer, expert);
            if (total % (int64_t{hp.n_layer} * hp.n_expert_used) != 0)
                throw Error("router counts out of step");
            return total / (int64_t{hp.n_layer} * hp.n_expert_used);
        };
        const std::string path = test::make_temp_dir("kv-state-restore") + "/c.hkv";
        engine::ChatSession session(*l.inference, 128);
        std::vector<engine::ChatTurn> turns{
            {chat::Role::User, "A cat."}}; // short: the next turn needs no shift
        const int64_t before_reply = tokens_forwarded();
        const engine::TurnStats first = session.reply(turns, greedy(8), nullptr);
        // The counter counts: the prompt, and every generated token but the last (never fed back).
        QCOMPARE(tokens_forwarded() - before_reply,
                 int64_t{first.prompt_tokens + first.generated_tokens - 1});
        session.save_state(path);
        const std::vector<int32_t> tokens = session.cache().tokens();
        QVERIFY(tokens.size() > 4);

        engine::ChatSession resumed(*l.inference, 128);
        const int64_t before_restore = tokens_forwarded();
        const engine::KvRestoreResult restored = resumed.restore_state(path);
        QVERIFY2(restored.restored, restored.reason.c_str());
        QCOMPARE(restored.tokens, int32_t(tokens.size()));
        QCOMPARE(tokens_forwarded(), before_restore); // no forward pass

        turns.push_back({chat::Role::Assistant, "ok"});
        turns.push_back({chat::Role::User, "More."});
        engine::TurnStats stats;
        const int64_t before_prefill = tokens_forwarded();
        logits_of(resumed, turns, &stats);
        // The new turn shares the first prompt (the reply's text changed); a token may merge at
        // the seam. Only the rest went through the model.
        QVERIFY(stats.reused_tokens >= first.prompt_tokens - 2);
        QCOMPARE(stats.computed_tokens, stats.prompt_tokens - stats.reused_tokens);
        QCOMPARE(tokens_forwarded() - before_prefill, int64_t{stats.computed_tokens});
        // Without the restore, the same turn goes through the model whole.
        engine::ChatSession fresh(*l.inference, 128);
        const int64_t before_fresh = tokens_forwarded();
        engine::TurnStats fresh_stats;
        logits_of(fresh, turns, &fresh_stats);
        QCOMPARE(fresh_stats.reused_tokens, 0);
        QCOMPARE(tokens_forwarded() - before_fresh, int64_t{fresh_stats.prompt_tokens});
    }
};

QTEST_MAIN(TestKvStateFile)
#include "test_kv_state_file.moc"
