// The logits do not depend on how many kernel threads run the forward pass: every matrix row
// and every attention head is computed whole by one thread, whichever it is. With more threads
// than (KV head, token) items, as in decode on many cores, attention splits each group's query
// heads across threads; the heads must still come out bit for bit.
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <cstring>
#include <vector>

using namespace hearth;

namespace {

// The logits after a prompt of 20 tokens, then after each of 6 tokens decoded one at a time.
std::vector<float> run(const std::shared_ptr<const engine::Model>& model, int32_t threads) {
    engine::Inference inference(model, engine::InferenceOptions{threads, 64});
    auto cache = inference.new_cache(64);
    std::vector<int32_t> prompt;
    for (int i = 0; i < 20; ++i)
        prompt.push_back(1 + (37 * i) % 200);
    std::vector<float> logits;
    const auto keep = [&](std::span<const float> l) { logits.insert(logits.end(), l.begin(), l.end()); };
    keep(inference.eval(*cache, prompt));
    for (int i = 0; i < 6; ++i) {
        const int32_t token = 3 + 11 * i;
        keep(inference.eval(*cache, std::span<const int32_t>(&token, 1)));
    }
    return logits;
}

} // namespace

class TestThreadCount : public QObject {
    Q_OBJECT

private slots:
    // Query heads per KV head: tiny-llama3 4, tiny-qwen2 2, stories260K 2, tiny-gemma3 4; a
    // sliding window and soft-capping (tiny-gemma2), experts (tiny-qwen3moe).
    void logits_do_not_depend_on_thread_count_data() {
        QTest::addColumn<QString>("model");
        for (const char* m :
             {"tiny-llama3", "tiny-qwen2", "stories260K", "tiny-gemma2", "tiny-gemma3", "tiny-qwen3moe"})
            QTest::newRow(m) << QString(m);
    }
    void logits_do_not_depend_on_thread_count() {
        QFETCH(QString, model);
        const auto loaded = engine::Model::load(test::testdata("models/" + model.toStdString() + ".gguf"));
        const std::vector<float> one = run(loaded, 1);
        for (int32_t threads : {2, 3, 5, 8}) {
            const std::vector<float> many = run(loaded, threads);
            QCOMPARE(many.size(), one.size());
            QVERIFY2(std::memcmp(many.data(), one.data(), one.size() * sizeof(float)) == 0,
                     qPrintable(QString("%1 threads give other logits than 1").arg(threads)));
        }
    }
};

QTEST_MAIN(TestThreadCount)
#include "test_thread_count.moc"
