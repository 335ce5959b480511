// The forward pass changes its kernel thread count in place: the caches it made stay valid and
// the logits stay the same bits (test_thread_count shows that they do not depend on the count).
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <cstring>
#include <thread>
#include <vector>

using namespace hearth;

namespace {

std::vector<int32_t> prompt() {
    std::vector<int32_t> tokens;
    for (int i = 0; i < 20; ++i)
        tokens.push_back(1 + (37 * i) % 200);
    return tokens;
}

// The logits of 6 tokens decoded after the prompt, with the threads set to `threads_after`
// once the prompt is in the cache.
std::vector<float> decode_after_prompt(const std::shared_ptr<const engine::Model>& model,
                                       int32_t threads_after) {
    engine::Inference inference(model, engine::InferenceOptions{1, 64});
    auto cache = inference.new_cache(64);
    inference.eval(*cache, prompt());
    inference.set_threads(threads_after);
    std::vector<float> logits;
    for (int i = 0; i < 6; ++i) {
        const int32_t token = 3 + 11 * i;
        const std::span<const float> l = inference.eval(*cache, std::span<const int32_t>(&token, 1));
        logits.insert(logits.end(), l.begin(), l.end());
    }
    return logits;
}

} // namespace

class TestInferenceSetThreads : public QObject {
    Q_OBJECT

private slots:
    void reports_the_new_count() {
        const auto model = engine::Model::load(test::testdata("models/stories260K.gguf"));
        engine::Inference inference(model, engine::InferenceOptions{1, 64});
        QCOMPARE(inference.n_threads(), 1);
        inference.set_threads(3);
        QCOMPARE(inference.n_threads(), 3);
        inference.set_threads(0); // as in InferenceOptions: one per hardware thread
        QCOMPARE(inference.n_threads(),
                 static_cast<int32_t>(std::max(1u, std::thread::hardware_concurrency())));
    }

    // A cache filled before the change goes on after it, as if the count had never changed.
    void a_cache_goes_on_after_the_change() {
        const auto model = engine::Model::load(test::testdata("models/tiny-llama3.gguf"));
        const std::vector<float> unchanged = decode_after_prompt(model, 1);
        const std::vector<float> changed = decode_after_prompt(model, 3);
        QCOMPARE(changed.size(), unchanged.size());
        QVERIFY(std::memcmp(changed.data(), unchanged.data(), unchanged.size() * sizeof(float)) == 0);
    }
};

QTEST_MAIN(TestInferenceSetThreads)
#include "test_inference_set_threads.moc"
