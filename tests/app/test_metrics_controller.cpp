// The live panels' figures (MetricsController) sampled while a real model (stories260K)
// writes a reply through the real backend: the tokens/s history grows while it streams,
// and afterwards time to first token, prompt tokens, KV fill and memory match what the
// reply and the model say, and the kernels' dispatch rows are there.
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/metrics/metrics_controller.h"
#include "app/models/format.h"
#include "app/models/inference_worker.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/session/engine_metrics.h"
#include "tests/app/backend_fixture.h"
#include "tests/support/test_support.h"
#include <QDir>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>

using namespace hearth::app;

class TestMetricsController : public QObject {
    Q_OBJECT

    QString dir_;
    AppPaths paths() const { return {dir_ + "/data", dir_ + "/settings.ini"}; }
    static QString modelPath() { return hearth::test::storiesModelPath(); }
    static bool startWithModel(HearthBackend& b) {
        return hearth::test::startChat(b) && hearth::test::loadModel(b);
    }
    static qsizetype nonZero(const QVariantList& history) {
        return std::count_if(history.begin(), history.end(),
                             [](const QVariant& v) { return v.toDouble() > 0; });
    }

private slots:
    void init() { dir_ = QString::fromStdString(hearth::test::make_temp_dir("hearth-metrics")); }

    void samplesOnItsTimer() {
        MetricsController metrics(std::make_shared<hearth::engine::EngineMetrics>());
        QSignalSpy interval(&metrics, &MetricsController::intervalChanged);
        metrics.setIntervalMs(20);
        QCOMPARE(metrics.intervalMs(), 20);
        QCOMPARE(interval.count(), 1);
        metrics.setIntervalMs(0); // refused
        QCOMPARE(metrics.intervalMs(), 20);
        QTRY_VERIFY(metrics.samples() >= 3);
        // One history entry per sample, idle ones included, so the chart scrolls with time.
        QCOMPARE(int(metrics.decodeHistory().size()), metrics.samples());
        QCOMPARE(int(metrics.prefillHistory().size()), metrics.samples());
    }

    // While nothing shows the figures, samples still go to the histories but nothing is
    // published to the bindings; showing them publishes the last sample at once, and every
    // sample after it.
    void hiddenFiguresAreSampledButNotPublished() {
        MetricsController metrics(std::make_shared<hearth::engine::EngineMetrics>());
        QSignalSpy updated(&metrics, &MetricsController::updated);
        QSignalSpy watched(&metrics, &MetricsController::watchedChanged);
        QVERIFY(metrics.watched());
        QTRY_VERIFY(metrics.samples() >= 1);
        metrics.setWatched(false);
        QCOMPARE(watched.count(), 1);
        updated.clear();
        const int before = metrics.samples();
        metrics.setIntervalMs(20);
        QTRY_VERIFY(metrics.samples() >= before + 3);
        QCOMPARE(updated.count(), 0);
        QCOMPARE(int(metrics.decodeHistory().size()), metrics.samples());
        metrics.setWatched(true);
        QCOMPARE(watched.count(), 2);
        QCOMPARE(updated.count(), 1);
        QTRY_VERIFY(updated.count() >= 3);
    }

    // A reply that begins and ends between two samples still shows in the rate history: the
    // sample after it carries its rates, the ones after that are idle again.
    void aReplyBetweenTwoSamplesIsCharted() {
        MetricsController metrics(std::make_shared<hearth::engine::EngineMetrics>());
        metrics.setIntervalMs(20);
        QTRY_VERIFY(metrics.samples() >= 1);
        GenerationResult reply;
        reply.stats.generated_tokens = 48;
        reply.stats.decode_seconds = 0.005;
        reply.stats.computed_tokens = 46;
        reply.stats.prefill_seconds = 0.002;
        const int before = metrics.samples();
        metrics.recordReply(reply);
        QTRY_VERIFY(metrics.samples() >= before + 3);
        const QVariantList decode = metrics.decodeHistory(), prefill = metrics.prefillHistory();
        const qsizetype first = decode.size() - (metrics.samples() - before);
        QCOMPARE(decode.at(first).toDouble(), 48 / 0.005);
        QCOMPARE(prefill.at(first).toDouble(), 46 / 0.002);
        for (qsizetype i = first + 1; i < decode.size(); ++i) {
            QCOMPARE(decode.at(i).toDouble(), 0.0);
            QCOMPARE(prefill.at(i).toDouble(), 0.0);
        }
        QCOMPARE(metrics.replies()->count(), 1);
    }

    // From the start of a reply until its first token the engine reads the prompt: the panel
    // says so rather than "generating" beside the last reply's count of tokens.
    void aReplyReadsItsPromptBeforeGenerating() {
        auto sink = std::make_shared<hearth::engine::EngineMetrics>();
        MetricsController metrics(sink);
        metrics.setIntervalMs(20);
        hearth::engine::TurnStats last;
        last.generated_tokens = 40;
        sink->begin_reply();
        sink->publish_reply(last, 100, 512);
        sink->generating.store(false);
        QTRY_VERIFY(!metrics.generating() && metrics.tokensGenerated() == 40);
        QVERIFY(!metrics.readingPrompt());

        sink->begin_reply();
        QTRY_VERIFY(metrics.generating());
        QVERIFY(metrics.readingPrompt());
        QCOMPARE(metrics.tokensGenerated(), 0);
        hearth::engine::TurnStats next;
        next.computed_tokens = 30;
        sink->publish_reply(next, 130, 512); // the prompt is read, no token yet
        QTRY_VERIFY(metrics.samples() > 0 && metrics.readingPrompt());
        next.generated_tokens = 1;
        sink->publish_reply(next, 131, 512);
        QTRY_VERIFY(!metrics.readingPrompt());
        QVERIFY(metrics.generating());
    }

    // A mixture of experts: per expert, the times the routers of all layers chose it. Each
    // evaluated token chooses n_expert_used experts in every layer.
    void expertHitsSumTheLayers() {
        const auto model = hearth::engine::Model::load(hearth::test::testdata("models/tiny-qwen3moe.gguf"));
        const hearth::engine::HyperParams& hp = model->hparams();
        hearth::engine::Inference inference(model, hearth::engine::InferenceOptions{1, 8});
        auto cache = inference.new_cache(32);
        const std::vector<int32_t> tokens = {1, 2, 3, 4, 5};
        inference.eval(*cache, tokens);

        // The engine's sink shows its forward pass's counts (as its SessionStore connects them).
        const auto engine = std::make_shared<hearth::engine::EngineMetrics>();
        engine->show_expert_hits(inference.expert_hits());
        MetricsController metrics(engine);
        QSignalSpy updated(&metrics, &MetricsController::updated);
        metrics.sample();
        QVERIFY(updated.wait(5000));
        const QVariantList hits = metrics.expertHits();
        QCOMPARE(hits.size(), qsizetype(hp.n_expert));
        QCOMPARE(metrics.expertLayers(), hp.n_layer);
        qint64 total = 0;
        for (const QVariant& h : hits)
            total += h.toLongLong();
        QCOMPARE(total, qint64(hp.n_layer) * hp.n_expert_used * qint64(tokens.size()));
    }

    void historyKeepsTheLastSamples() {
        MetricsController metrics(std::make_shared<hearth::engine::EngineMetrics>());
        metrics.setIntervalMs(1);
        QTRY_VERIFY_WITH_TIMEOUT(metrics.samples() > MetricsController::kHistoryLength + 5, 30000);
        QCOMPARE(int(metrics.decodeHistory().size()), MetricsController::kHistoryLength);
        QCOMPARE(int(metrics.prefillHistory().size()), MetricsController::kHistoryLength);
    }

    void followsARealGeneration() {
        HearthBackend b(paths());
        QVERIFY(startWithModel(b));
        MetricsController* metrics = b.metrics();
        metrics->setIntervalMs(10); // several samples land while the tiny model writes
        // The longest reply: stories260K writes on until stopped (it has no end-of-text habit).
        b.settings()->setMaxReplyTokens(32768);
        b.settings()->setTemperature(1.0);

        GenerationResult result;
        bool finished = false;
        connect(b.worker(), &InferenceWorker::generationFinished, this,
                [&](quint64, const GenerationResult& r) {
                    result = r;
                    finished = true;
                });

        QVERIFY(b.chat()->send("Once upon a time"));
        // While the reply streams, the samples show it, and the history fills with its rates.
        QTRY_VERIFY_WITH_TIMEOUT(metrics->generating() && metrics->decodeTokensPerSecond() > 0, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(nonZero(metrics->decodeHistory()) >= 3, 20000);
        QVERIFY(metrics->generating());
        QVERIFY(metrics->decodeHistory().constLast().toDouble() > 0);
        QVERIFY(metrics->prefillHistory().constLast().toDouble() > 0);
        QVERIFY(metrics->prefillTokensPerSecond() > 0);
        QVERIFY(metrics->tokensGenerated() > 0);
        const qsizetype rates = nonZero(metrics->decodeHistory());
        QTRY_VERIFY_WITH_TIMEOUT(nonZero(metrics->decodeHistory()) > rates, 20000); // still growing
        // Long enough to have filled the 128-position context and shifted it (checked below),
        // however slowly the build runs (under ASan, with other suites beside it, the samples
        // above can come before the first shift).
        QTRY_VERIFY_WITH_TIMEOUT(metrics->tokensGenerated() > metrics->kvCapacity(), 60000);

        b.chat()->stop();
        QTRY_VERIFY_WITH_TIMEOUT(finished, 30000);
        QVERIFY(result.stats.stop_reason == hearth::engine::StopReason::Stopped);
        // A sample wholly taken after the reply (one may have been under way as it ended).
        const int samplesAtEnd = metrics->samples();
        QTRY_VERIFY(metrics->samples() >= samplesAtEnd + 2);

        QVERIFY(!metrics->generating());
        QCOMPARE(metrics->decodeHistory().constLast().toDouble(), 0.0); // idle again
        QVERIFY(metrics->timeToFirstTokenMs() > 0);
        QCOMPARE(metrics->timeToFirstTokenMs(), result.stats.time_to_first_token * 1000.0);
        QCOMPARE(metrics->decodeTokensPerSecond(), result.stats.decode_tokens_per_second());
        QCOMPARE(metrics->tokensGenerated(), qint64{result.stats.generated_tokens});
        QCOMPARE(metrics->tokensComputed(), qint64{result.stats.computed_tokens});
        QCOMPARE(metrics->tokensReused(), qint64{result.stats.reused_tokens});
        QVERIFY(result.stats.computed_tokens > 0);

        // KV fill: the conversation's cache against the context it has (stories260K: 128).
        QCOMPARE(metrics->kvCapacity(), qint64{b.models()->summary().contextLength});
        QCOMPARE(metrics->kvCapacity(), qint64{128});
        QVERIFY(metrics->kvTokens() > 0 && metrics->kvTokens() <= metrics->kvCapacity());
        QCOMPARE(metrics->kvFill(), double(metrics->kvTokens()) / double(metrics->kvCapacity()));
        // A reply of thousands of tokens shifted its context: the cache has been full.
        QVERIFY(result.stats.context_shifted());
        QVERIFY(metrics->kvFill() > 0.5);

        // Memory: the cache as far as it was ever filled (F16 keys and values, 5 layers, 4 KV
        // heads of 8), the model file, and the process.
        const qint64 kvBytesPerPosition = 2 * 5 * (4 * 8) * 2;
        QCOMPARE(metrics->kvMemory(), formatBytes(kvBytesPerPosition * metrics->kvCapacity()));
        QCOMPARE(metrics->modelMemory(), formatBytes(QFileInfo(modelPath()).size()));
        QVERIFY(!metrics->residentMemory().isEmpty());
        QVERIFY(metrics->residentMemory() != formatBytes(0));

        // The kernels that ran, with their calls.
        QVERIFY(metrics->kernels()->rowCount() > 0);
        QVERIFY(metrics->kernels()->index(0).data(KernelMetricsModel::CallsRole).toULongLong() > 0);

        // The reply is in the per-reply history too.
        QTRY_COMPARE(metrics->replies()->count(), 1);
        QCOMPARE(metrics->replies()->latestComputed(), result.stats.computed_tokens);
    }

    void resetClearsTheKernelRows() {
        HearthBackend b(paths());
        QVERIFY(startWithModel(b)); // the warm-up runs kernels
        MetricsController* metrics = b.metrics();
        metrics->setIntervalMs(10);
        QTRY_VERIFY_WITH_TIMEOUT(metrics->kernels()->rowCount() > 0, 10000);
        metrics->resetKernelMetrics(); // nothing runs afterwards: the rows go and stay gone
        QTRY_COMPARE(metrics->kernels()->rowCount(), 0);
        const int samples = metrics->samples();
        QTRY_VERIFY(metrics->samples() > samples + 2);
        QCOMPARE(metrics->kernels()->rowCount(), 0);
    }
};

QTEST_MAIN(TestMetricsController)
#include "test_metrics_controller.moc"
