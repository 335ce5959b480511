// The inference worker on its own thread, driven only by queued signals, with a
// real model (stories260K): load, refuse a bad file while keeping the model,
// stream batched pieces, stop between tokens, reuse a conversation's cache, save
// evicted conversations' KV states (F16, or Q8_0 when asked) and resume them (also
// after a restart).
#include "app/metrics/metrics_controller.h"
#include "app/models/inference_worker.h"
#include "engine/forward/compute_device.h"
#include "engine/session/engine_metrics.h"
#include "engine/vision/chat_image_file.h"
#include "tests/app/saved_kv_state.h"
#include "tests/support/test_support.h"
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <atomic>

using namespace hearth::app;
using hearth::chat::Role;

class WorkerHarness : public QObject {
    Q_OBJECT
public:
    explicit WorkerHarness(const QString& stateDir = QString()) {
        worker = new InferenceWorker(stateDir);
        worker->moveToThread(&thread);
        // The worker is deleted on its own thread as that thread finishes, and says so through an
        // atomic: QThread::wait's join is a futex TSan cannot see, so without this, ~QObject's
        // reads of this harness (its connections) would look unordered with whatever later
        // reuses the harness's stack slot.
        connect(&thread, &QThread::finished, [this] {
            delete worker;
            workerDeleted.store(true, std::memory_order_release);
        });
        connect(this, &WorkerHarness::load, worker, &InferenceWorker::loadModel, Qt::QueuedConnection);
        connect(this, &WorkerHarness::chooseImageProjector, worker, &InferenceWorker::chooseImageProjector,
                Qt::QueuedConnection);
        connect(this, &WorkerHarness::warmUp, worker, &InferenceWorker::warmUp, Qt::QueuedConnection);
        connect(this, &WorkerHarness::generate, worker, &InferenceWorker::generate, Qt::QueuedConnection);
        connect(this, &WorkerHarness::configure, worker, &InferenceWorker::configure, Qt::QueuedConnection);
        connect(this, &WorkerHarness::forget, worker, &InferenceWorker::forgetConversation,
                Qt::QueuedConnection);
        // The worker's signals, re-emitted on this (the test's) thread, where the spies read them.
        connect(worker, &InferenceWorker::loadFinished, this, &WorkerHarness::loadFinished);
        connect(worker, &InferenceWorker::warmUpFinished, this, &WorkerHarness::warmUpFinished);
        connect(worker, &InferenceWorker::configured, this, &WorkerHarness::configured);
        connect(worker, &InferenceWorker::piecesReady, this, &WorkerHarness::piecesReady);
        connect(worker, &InferenceWorker::generationFinished, this, &WorkerHarness::generationFinished);
        connect(worker, &InferenceWorker::generationFailed, this, &WorkerHarness::generationFailed);
        connect(worker, &InferenceWorker::deviceFailed, this, &WorkerHarness::deviceFailed);
        thread.start();
    }
    ~WorkerHarness() override {
        thread.quit();
        thread.wait();
        while (!workerDeleted.load(std::memory_order_acquire))
            QThread::yieldCurrentThread();
    }
    // The engine settings travel as one config, by configure: these change one field of it.
    void setMemoryBudget(size_t bytes) {
        config.memory_budget_bytes = bytes;
        emit configure(config);
    }
    void setCompressSavedStates(bool compress) {
        config.saved_format =
            compress ? hearth::engine::KvStateFormat::Q8_0 : hearth::engine::KvStateFormat::F16;
        emit configure(config);
    }
    InferenceWorker* worker;
    std::atomic<bool> workerDeleted{false};
    QThread thread;
    EngineConfig config;
signals:
    void load(quint64 id, const QString& path);
    void chooseImageProjector(const QString& modelPath, const QString& projectorPath);
    void warmUp(quint64 id);
    void generate(const hearth::app::GenerationRequest& request);
    void configure(const hearth::app::EngineConfig& config);
    void forget(const QString& conversationId);
    void loadFinished(quint64 requestId, bool ok, const hearth::app::ModelSummary& summary,
                      const QString& error);
    void warmUpFinished(quint64 requestId, double seconds);
    void configured(const hearth::app::ModelSummary& summary);
    void piecesReady(quint64 requestId, const QString& text);
    void generationFinished(quint64 requestId, const hearth::app::GenerationResult& result);
    void generationFailed(quint64 requestId, const QString& message);
    void deviceFailed(const QString& message);
};

class TestInferenceWorker : public QObject {
    Q_OBJECT

    static QString modelPath() {
        return QString::fromStdString(hearth::test::testdata("models/stories260K.gguf"));
    }

    static GenerationRequest request(quint64 id, const QString& conversation, int maxTokens,
                                     QList<ChatTurnData> turns = {{Role::User, "Once upon a time"}}) {
        GenerationRequest r;
        r.id = id;
        r.conversationId = conversation;
        r.turns = std::move(turns);
        r.options.max_tokens = maxTokens;
        r.options.sampling.temperature = 0.0f; // greedy: the same prompt gives the same reply
        r.options.sampling.seed = 1;
        return r;
    }

    // The GPU the engine picks ("vulkan:N"), or empty when this machine has none it can use.
    static QString usableGpu() {
        const int32_t index = hearth::engine::best_gpu_device(hearth::engine::gpu_devices());
        return index < 0 ? QString() : QStringLiteral("vulkan:%1").arg(index);
    }

    static hearth::engine::ComputeDevice device(const QString& name) {
        return hearth::engine::compute_device_from_name(name.toStdString()).value();
    }

    // Applies `config` and returns the summary the worker answers with.
    static bool configureIn(WorkerHarness& h, const EngineConfig& config, ModelSummary* summary) {
        QSignalSpy configured(&h, &WorkerHarness::configured);
        emit h.configure(config);
        if (!configured.wait(60000)) return false;
        *summary = configured.constFirst().constFirst().value<ModelSummary>();
        return true;
    }

    // The turns of one conversation: a story's start, then a question after each of `replies`.
    static QList<ChatTurnData> conversationAfter(const QStringList& replies) {
        const QStringList asks{"Once upon a time", "And then?", "How did it end?"};
        QList<ChatTurnData> turns{{Role::User, asks[0]}};
        for (int i = 0; i < replies.size(); ++i)
            turns << ChatTurnData{Role::Assistant, replies[i]} << ChatTurnData{Role::User, asks[i + 1]};
        return turns;
    }

    static bool loadInto(WorkerHarness& h, const QString& path, quint64 id, QString* error = nullptr) {
        QSignalSpy finished(&h, &WorkerHarness::loadFinished);
        emit h.load(id, path);
        if (!finished.wait(30000)) return false;
        if (error) *error = finished.constFirst().at(3).toString();
        return finished.constFirst().at(0).toULongLong() == id && finished.constFirst().at(1).toBool();
    }

    // Runs one request and returns its result (fails the test if it does not finish).
    static bool generateIn(WorkerHarness& h, const GenerationRequest& r, GenerationResult* result,
                           QString* text = nullptr) {
        QSignalSpy pieces(&h, &WorkerHarness::piecesReady);
        QSignalSpy done(&h, &WorkerHarness::generationFinished);
        QSignalSpy failed(&h, &WorkerHarness::generationFailed);
        emit h.generate(r);
        if (!QTest::qWaitFor([&] { return !done.isEmpty() || !failed.isEmpty(); }, 60000)) return false;
        if (!failed.isEmpty()) {
            qWarning("generation failed: %s", qPrintable(failed.constFirst().at(1).toString()));
            return false;
        }
        *result = done.constFirst().at(1).value<GenerationResult>();
        if (text) {
            text->clear();
            for (const auto& args : pieces)
                *text += args.at(1).toString();
        }
        return true;
    }

private slots:
    void loadsAndWarmsUp() {
        WorkerHarness h;
        QSignalSpy finished(&h, &WorkerHarness::loadFinished);
        emit h.load(7, modelPath());
        QVERIFY(finished.wait(30000));
        const auto args = finished.constFirst();
        QCOMPARE(args.at(0).toULongLong(), 7ull);
        QVERIFY2(args.at(1).toBool(), qPrintable(args.at(3).toString()));
        const auto summary = args.at(2).value<ModelSummary>();
        QCOMPARE(summary.path, modelPath());
        QCOMPARE(summary.architecture, QStringLiteral("llama"));
        QVERIFY(summary.parameters > 0);
        QVERIFY(summary.contextLength > 0);
        QVERIFY(summary.contextLength <= summary.trainedContextLength);

        QSignalSpy warmed(&h, &WorkerHarness::warmUpFinished);
        emit h.warmUp(7);
        QVERIFY(warmed.wait(30000));
        QCOMPARE(warmed.constFirst().at(0).toULongLong(), 7ull);
    }

    void refusesABadFileAndKeepsTheModel() {
        WorkerHarness h;
        QVERIFY(loadInto(h, modelPath(), 1));
        const QString bad =
            QString::fromStdString(hearth::test::make_temp_dir("hearth-bad")) + "/broken.gguf";
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray(4096, 'x'));
        file.close();
        QString error;
        QVERIFY(!loadInto(h, bad, 2, &error));
        QVERIFY2(error.contains("broken.gguf"), qPrintable(error));

        // The first model still answers.
        QSignalSpy done(&h, &WorkerHarness::generationFinished);
        emit h.generate(request(3, "c", 8));
        QVERIFY(done.wait(30000));
        QVERIFY(done.constFirst().at(1).value<GenerationResult>().stats.generated_tokens > 0);
    }

    // A vision model with its projector beside it: the worker loads both, and a turn's images
    // reach the engine (the reply's figures count them); the same model without its projector
    // chats and refuses an image, saying why.
    void loadsAVisionModelWithItsProjector() {
        const QString dir = QString::fromStdString(hearth::test::make_temp_dir("hearth-worker-vision"));
        const QString model = dir + "/tiny-gemma3.gguf";
        QVERIFY(
            QFile::copy(QString::fromStdString(hearth::test::testdata("models/tiny-gemma3.gguf")), model));
        QVERIFY(
            QFile::copy(QString::fromStdString(hearth::test::testdata("vision/mmproj-tiny-gemma3-f16.gguf")),
                        dir + "/mmproj-tiny-gemma3-f16.gguf"));
        const hearth::chat::ChatImage picture =
            hearth::vision::chat_image_from_file(hearth::test::testdata("vision/images/shapes-96x64.png"));
        ChatTurnData ask{Role::User, "Describe this image."};
        ask.images = {picture};

        WorkerHarness h;
        QSignalSpy loaded(&h, &WorkerHarness::loadFinished);
        emit h.load(1, model);
        QVERIFY(loaded.wait(30000));
        QVERIFY2(loaded.constFirst().at(1).toBool(), qPrintable(loaded.constFirst().at(3).toString()));
        const auto summary = loaded.constFirst().at(2).value<ModelSummary>();
        QCOMPARE(summary.imageProjector, dir + "/mmproj-tiny-gemma3-f16.gguf");
        QVERIFY(summary.imageProjectorError.isEmpty());

        QSignalSpy done(&h, &WorkerHarness::generationFinished);
        QSignalSpy failed(&h, &WorkerHarness::generationFailed);
        emit h.generate(request(2, "vision", 4, {ask}));
        QVERIFY(done.wait(60000));
        QVERIFY(failed.isEmpty());
        const GenerationResult result = done.constFirst().at(1).value<GenerationResult>();
        QCOMPARE(result.stats.images, 1);
        QCOMPARE(result.stats.images_encoded, 1);
        QVERIFY(result.stats.image_positions > 0);

        // Without the projector beside it the model loads, chats, and says why it reads no image.
        QVERIFY(QFile::remove(dir + "/mmproj-tiny-gemma3-f16.gguf"));
        QVERIFY(loadInto(h, model, 3));
        emit h.generate(request(4, "vision-2", 4, {ask}));
        QVERIFY(failed.wait(60000));
        QVERIFY2(failed.constFirst().at(1).toString().contains(QStringLiteral("reads no images")),
                 qPrintable(failed.constFirst().at(1).toString()));
        emit h.generate(request(5, "vision-3", 4));
        QVERIFY(done.wait(60000));

        // A projector chosen by hand, from elsewhere under another name: the model reads images again.
        const QString elsewhere =
            QString::fromStdString(hearth::test::make_temp_dir("hearth-worker-vision-2"));
        QVERIFY(
            QFile::copy(QString::fromStdString(hearth::test::testdata("vision/mmproj-tiny-gemma3-f32.gguf")),
                        elsewhere + "/vision-tower.gguf"));
        emit h.chooseImageProjector(model, elsewhere + "/vision-tower.gguf");
        loaded.clear();
        emit h.load(6, model);
        QVERIFY(loaded.wait(30000));
        QCOMPARE(loaded.constFirst().at(2).value<ModelSummary>().imageProjector,
                 elsewhere + "/vision-tower.gguf");
        done.clear();
        emit h.generate(request(7, "vision-4", 4, {ask}));
        QVERIFY(done.wait(60000));
        QCOMPARE(done.constFirst().at(1).value<GenerationResult>().stats.images, 1);
    }

    // With the model's layers on the GPU, its projector's vision tower goes there too, and an
    // image message runs there end to end; back on the CPU, the tower follows.
    void theVisionTowerFollowsTheModelToTheGpu() {
        const QString gpu = usableGpu();
        if (gpu.isEmpty()) QSKIP("no Vulkan device the engine can use (not even lavapipe)");
        const QString dir = QString::fromStdString(hearth::test::make_temp_dir("hearth-worker-vision-gpu"));
        const QString model = dir + "/tiny-gemma3.gguf";
        QVERIFY(
            QFile::copy(QString::fromStdString(hearth::test::testdata("models/tiny-gemma3.gguf")), model));
        QVERIFY(
            QFile::copy(QString::fromStdString(hearth::test::testdata("vision/mmproj-tiny-gemma3-f16.gguf")),
                        dir + "/mmproj-tiny-gemma3-f16.gguf"));
        ChatTurnData ask{Role::User, "Describe this image."};
        ask.images = {
            hearth::vision::chat_image_from_file(hearth::test::testdata("vision/images/shapes-96x64.png"))};

        WorkerHarness h;
        QVERIFY(loadInto(h, model, 1));
        EngineConfig config;
        config.device = device(gpu);
        ModelSummary summary;
        QVERIFY(configureIn(h, config, &summary));
        QVERIFY(summary.gpuLayers > 0);
        QVERIFY(!summary.imageProjector.isEmpty());
        QCOMPARE(summary.imageTowerGpu, summary.gpuName);
        GenerationResult result;
        QVERIFY(generateIn(h, request(2, "vision-gpu", 4, {ask}), &result));
        QCOMPARE(result.stats.images_encoded, 1);
        QVERIFY(result.stats.image_positions > 0);

        config.device = {};
        QVERIFY(configureIn(h, config, &summary));
        QCOMPARE(summary.gpuLayers, 0);
        QVERIFY(summary.imageTowerGpu.isEmpty());
        QVERIFY(generateIn(h, request(3, "vision-cpu", 4, {ask}), &result));
        QCOMPARE(result.stats.images_encoded, 1); // a new projector: its cache starts empty
    }

    void streamsBatchedPieces() {
        WorkerHarness h;
        QVERIFY(loadInto(h, modelPath(), 1));
        QSignalSpy pieces(&h, &WorkerHarness::piecesReady);
        QSignalSpy done(&h, &WorkerHarness::generationFinished);
        emit h.generate(request(5, "c", 200));
        QVERIFY(done.wait(60000));
        const auto result = done.constFirst().at(1).value<GenerationResult>();
        QVERIFY(result.stats.generated_tokens > 0);
        QVERIFY(result.stats.prompt_tokens > 0);
        QVERIFY(!pieces.isEmpty());
        QString text;
        for (const auto& args : pieces) {
            QCOMPARE(args.at(0).toULongLong(), 5ull);
            text += args.at(1).toString();
        }
        QVERIFY(!text.trimmed().isEmpty());
        // How often they come depends on the machine's speed: test_piece_batcher holds the
        // batcher to its rate on a simulated clock. Here: every hand-over has text, at most one
        // per token.
        for (const auto& args : pieces)
            QVERIFY(!args.at(1).toString().isEmpty());
        QVERIFY(pieces.count() <= result.stats.generated_tokens);
    }

    void stopsBetweenTokens() {
        WorkerHarness h;
        QVERIFY(loadInto(h, modelPath(), 1));
        QSignalSpy pieces(&h, &WorkerHarness::piecesReady);
        QSignalSpy done(&h, &WorkerHarness::generationFinished);
        // Stop from the worker's own thread as soon as the first piece is out, so the
        // tiny model cannot finish its story first.
        InferenceWorker* worker = h.worker;
        const GenerationRequest r = request(9, "c", 100000);
        connect(
            worker, &InferenceWorker::piecesReady, worker, [cancel = r.cancel] { cancel->store(true); },
            Qt::DirectConnection);
        emit h.generate(r);
        QVERIFY(done.wait(30000));
        QVERIFY(!pieces.isEmpty());
        const auto result = done.constFirst().at(1).value<GenerationResult>();
        QVERIFY(result.stats.stop_reason == hearth::engine::StopReason::Stopped);
        QVERIFY(result.stats.generated_tokens < 100000);
    }

    void stopBeforeStartIsNotLost() {
        WorkerHarness h;
        QVERIFY(loadInto(h, modelPath(), 1));
        QSignalSpy done(&h, &WorkerHarness::generationFinished);
        GenerationRequest r = request(11, "c", 100000);
        r.cancel->store(true); // before the queued request runs
        emit h.generate(r);
        QVERIFY(done.wait(30000));
        QVERIFY(done.constFirst().at(1).value<GenerationResult>().stats.stop_reason ==
                hearth::engine::StopReason::Stopped);
        // A later request is not affected by the old stop.
        emit h.generate(request(12, "c", 5));
        QVERIFY(done.wait(30000));
        QVERIFY(done.last().at(1).value<GenerationResult>().stats.stop_reason !=
                hearth::engine::StopReason::Stopped);
    }

    void reusesAConversationsCache() {
        WorkerHarness h;
        QVERIFY(loadInto(h, modelPath(), 1));
        QSignalSpy pieces(&h, &WorkerHarness::piecesReady);
        QSignalSpy done(&h, &WorkerHarness::generationFinished);
        emit h.generate(request(20, "story", 16));
        QVERIFY(done.wait(30000));
        QString reply;
        for (const auto& args : pieces)
            reply += args.at(1).toString();
        const auto first = done.constFirst().at(1).value<GenerationResult>();
        QCOMPARE(first.stats.reused_tokens, 0);

        // Another conversation in between must not evict the first one's cache.
        emit h.generate(request(21, "other", 4, {{Role::User, "A different start"}}));
        QVERIFY(done.wait(30000));

        emit h.generate(
            request(22, "story", 8,
                    {{Role::User, "Once upon a time"}, {Role::Assistant, reply}, {Role::User, "And then?"}}));
        QVERIFY(done.wait(30000));
        const auto second = done.last().at(1).value<GenerationResult>();
        QVERIFY2(second.stats.reused_tokens >= first.stats.prompt_tokens - 1,
                 qPrintable(QString("reused %1 of first prompt %2")
                                .arg(second.stats.reused_tokens)
                                .arg(first.stats.prompt_tokens)));
        QCOMPARE(second.stats.reused_tokens + second.stats.computed_tokens, second.stats.prompt_tokens);
    }

    void savesEvictedConversationsAndResumesThem() {
        const QString dir = QString::fromStdString(hearth::test::make_temp_dir("hearth-kv")) + "/kv-states";
        const QString alphaFile = dir + "/alpha.hkv", betaFile = dir + "/beta.hkv";
        const QList<ChatTurnData> alphaStart{{Role::User, "Once upon a time"}};
        QString alphaReply;
        {
            WorkerHarness h(dir);
            QVERIFY(loadInto(h, modelPath(), 1));
            h.setMemoryBudget(1); // only the conversation in use stays in memory

            GenerationResult first;
            QVERIFY(generateIn(h, request(2, "alpha", 12, alphaStart), &first, &alphaReply));
            QVERIFY(!first.resume.restored);
            QVERIFY(!first.resume.from_memory);
            QVERIFY(!QFile::exists(alphaFile)); // still in memory

            GenerationResult other;
            QVERIFY(generateIn(h, request(3, "beta", 6, {{Role::User, "A different start"}}), &other));
            QVERIFY2(QFile::exists(alphaFile), "the evicted conversation's state was not saved");
            QVERIFY(QFileInfo(alphaFile).size() > 0);

            GenerationResult back;
            QVERIFY(generateIn(
                h,
                request(4, "alpha", 6,
                        {alphaStart.first(), {Role::Assistant, alphaReply}, {Role::User, "And then?"}}),
                &back));
            QVERIFY(back.resume.restored);
            QVERIFY(back.resume.tokens > 0);
            QVERIFY(back.resume.seconds >= 0);
            QVERIFY2(back.stats.reused_tokens >= first.stats.prompt_tokens - 1,
                     qPrintable(QString("reused %1, first prompt %2")
                                    .arg(back.stats.reused_tokens)
                                    .arg(first.stats.prompt_tokens)));
            QVERIFY(back.stats.generated_tokens > 0);
            QVERIFY(QFile::exists(betaFile)); // evicted in turn
        } // the worker is destroyed on its thread: alpha, in memory, is saved

        WorkerHarness h(dir);
        QVERIFY(loadInto(h, modelPath(), 1));
        GenerationResult restarted;
        QVERIFY(generateIn(
            h,
            request(5, "alpha", 4,
                    {alphaStart.first(), {Role::Assistant, alphaReply}, {Role::User, "And then?"}}),
            &restarted));
        QVERIFY2(restarted.resume.restored, restarted.resume.reason.c_str());
        QVERIFY(restarted.stats.reused_tokens > 0);

        // Deleting a conversation deletes its saved state.
        QVERIFY(QFile::exists(betaFile));
        emit h.forget("beta");
        QTRY_VERIFY_WITH_TIMEOUT(!QFile::exists(betaFile), 10000);

        // A damaged state is refused: the reply is prefilled as usual.
        GenerationResult gamma;
        QVERIFY(generateIn(h, request(6, "gamma", 4), &gamma));
        h.setMemoryBudget(1);
        QVERIFY(generateIn(h, request(7, "alpha", 2, alphaStart), &restarted)); // evicts gamma
        const QString gammaFile = dir + "/gamma.hkv";
        QVERIFY(QFile::exists(gammaFile));
        {
            QFile file(gammaFile);
            QVERIFY(file.open(QIODevice::ReadWrite));
            const qint64 size = file.size();
            QVERIFY(file.seek(size / 2));
            QByteArray middle = file.read(64);
            for (char& c : middle)
                c = static_cast<char>(~c);
            QVERIFY(file.seek(size / 2));
            file.write(middle);
        }
        GenerationResult damaged;
        QVERIFY(generateIn(h, request(8, "gamma", 4), &damaged));
        QVERIFY(!damaged.resume.restored);
        QVERIFY(!damaged.resume.reason.empty());
        QCOMPARE(damaged.stats.reused_tokens, 0);
        QVERIFY(damaged.stats.generated_tokens > 0);
    }

    // The "Compress saved conversation state" setting: evicted conversations are written as
    // Q8_0, resume from there, and switching the setting applies to the next save.
    void savesCompressedStatesWhenAskedTo() {
        using hearth::engine::KvStateFormat;
        const QString dir =
            QString::fromStdString(hearth::test::make_temp_dir("hearth-kv-q8")) + "/kv-states";
        const QString alphaFile = dir + "/alpha.hkv";
        const QList<ChatTurnData> alphaStart{{Role::User, "Once upon a time"}};
        WorkerHarness h(dir);
        QVERIFY(loadInto(h, modelPath(), 1));
        h.setMemoryBudget(1); // only the conversation in use stays in memory

        GenerationResult result;
        QString alphaReply;
        QVERIFY(generateIn(h, request(2, "alpha", 12, alphaStart), &result, &alphaReply));
        // beta evicts alpha, which is saved.
        QVERIFY(generateIn(h, request(3, "beta", 4, {{Role::User, "A different start"}}), &result));
        auto saved = hearth::test::readSavedStateHeader(alphaFile);
        QVERIFY(saved);
        QCOMPARE(saved->format, KvStateFormat::F16); // the default
        QVERIFY(saved->sizeMatchesFormat);

        h.setCompressSavedStates(true);
        // alpha comes back from its F16 state, grows, and is evicted again by beta: now as Q8_0.
        const QList<ChatTurnData> alphaNext{
            alphaStart.first(), {Role::Assistant, alphaReply}, {Role::User, "And then?"}};
        QVERIFY(generateIn(h, request(4, "alpha", 4, alphaNext), &result));
        QVERIFY2(result.resume.restored, result.resume.reason.c_str());
        QVERIFY(generateIn(h, request(5, "beta", 4, {{Role::User, "A different start"}}), &result));
        saved = hearth::test::readSavedStateHeader(alphaFile);
        QVERIFY(saved);
        QCOMPARE(saved->format, KvStateFormat::Q8_0);
        QVERIFY(saved->sizeMatchesFormat);

        // A Q8_0 state resumes like an F16 one.
        QVERIFY(generateIn(h, request(6, "alpha", 2, alphaNext), &result));
        QVERIFY2(result.resume.restored, result.resume.reason.c_str());
        QVERIFY(result.stats.reused_tokens > 0);

        // Back to F16 for the next save.
        h.setCompressSavedStates(false);
        QVERIFY(generateIn(h, request(7, "alpha", 2, alphaNext), &result));
        QVERIFY(generateIn(h, request(8, "beta", 2, {{Role::User, "A different start"}}), &result));
        saved = hearth::test::readSavedStateHeader(alphaFile);
        QVERIFY(saved);
        QCOMPARE(saved->format, KvStateFormat::F16);
    }

    void forgetsAStateWithoutAModel() {
        const QString dir = QString::fromStdString(hearth::test::make_temp_dir("hearth-kv-forget"));
        const QString file = dir + "/f00d-1_x%2f.hkv"; // "/" is escaped in the file name
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("state");
        f.close();
        WorkerHarness h(dir);
        emit h.forget("f00d-1_x/");
        QTRY_VERIFY_WITH_TIMEOUT(!QFile::exists(file), 10000);
    }

    void failsCleanlyWithoutAModel() {
        WorkerHarness h;
        QSignalSpy failed(&h, &WorkerHarness::generationFailed);
        emit h.generate(request(1, "c", 4));
        QVERIFY(failed.wait(10000));
        QCOMPARE(failed.constFirst().at(0).toULongLong(), 1ull);
        QVERIFY(!failed.constFirst().at(1).toString().isEmpty());
    }

    void reconfiguresWithoutReloading() {
        WorkerHarness h;
        QVERIFY(loadInto(h, modelPath(), 1));
        QSignalSpy configured(&h, &WorkerHarness::configured);
        EngineConfig config;
        config.threads = 1;
        config.context_length = 96;
        emit h.configure(config);
        QVERIFY(configured.wait(10000));
        const auto summary = configured.constFirst().constFirst().value<ModelSummary>();
        QCOMPARE(summary.threads, 1);
        QCOMPARE(summary.contextLength, 96);
        QCOMPARE(summary.keyCacheType, QStringLiteral("f16"));
        QSignalSpy done(&h, &WorkerHarness::generationFinished);
        emit h.generate(request(2, "c", 4));
        QVERIFY(done.wait(30000));
        QVERIFY(done.constFirst().at(1).value<GenerationResult>().stats.generated_tokens > 0);
    }

    // A conversation's second turn after its first, with the kernel threads changed in between
    // or not; the worker keeps no saved states, so a cache survives only in memory.
    static bool secondTurnAfterThreadChange(bool changeThreads, GenerationResult* first,
                                            GenerationResult* second, ModelSummary* summary) {
        WorkerHarness h;
        if (!loadInto(h, modelPath(), 1)) return false;
        QSignalSpy configured(&h, &WorkerHarness::configured);
        EngineConfig config;
        config.threads = 1;
        emit h.configure(config);
        QString reply;
        if (!configured.wait(10000) || !generateIn(h, request(2, "story", 12), first, &reply)) return false;
        config.threads = changeThreads ? 2 : 1;
        emit h.configure(config);
        if (!configured.wait(10000)) return false;
        *summary = configured.last().constFirst().value<ModelSummary>();
        return generateIn(
            h,
            request(3, "story", 4,
                    {{Role::User, "Once upon a time"}, {Role::Assistant, reply}, {Role::User, "And then?"}}),
            second);
    }

    // A thread change resizes the kernels' pool and keeps every conversation's cache: the next
    // turn computes exactly the tokens it computes without the change (only its new ones).
    void keepsTheCachesWhenTheThreadsChange() {
        GenerationResult first, unchanged, changed;
        ModelSummary summary;
        QVERIFY(secondTurnAfterThreadChange(false, &first, &unchanged, &summary));
        QCOMPARE(summary.threads, 1);
        QVERIFY(secondTurnAfterThreadChange(true, &first, &changed, &summary));
        QCOMPARE(summary.threads, 2);
        QVERIFY(changed.resume.from_memory);
        QVERIFY2(
            changed.stats.reused_tokens >= first.stats.prompt_tokens,
            qPrintable(
                QString("reused %1 of %2").arg(changed.stats.reused_tokens).arg(first.stats.prompt_tokens)));
        QCOMPARE(changed.stats.reused_tokens, unchanged.stats.reused_tokens);
        QCOMPARE(changed.stats.computed_tokens, unchanged.stats.computed_tokens);
    }

    // Three turns of one conversation, on the CPU, then a GPU, then the CPU again, switched in the
    // settings between them: each turn reuses the conversation's cache (moved along with the
    // forward pass), and the replies are the greedy tokens of the same turns all on the CPU.
    void switchesBetweenCpuAndGpuMidConversation() {
        const QString gpu = usableGpu();
        if (gpu.isEmpty()) QSKIP("no Vulkan device the engine can use (not even lavapipe)");
        qputenv("HEARTH_VULKAN_VALIDATION", "1");
        const auto runTurns = [&](const QStringList& devices, QList<GenerationResult>* results,
                                  QStringList* replies, quint64* validationErrors) {
            WorkerHarness h;
            if (!loadInto(h, modelPath(), 1)) return false;
            for (int turn = 0; turn < devices.size(); ++turn) {
                EngineConfig config;
                config.device = device(devices[turn]);
                ModelSummary summary;
                if (!configureIn(h, config, &summary)) return false;
                const bool onGpu = devices[turn] != QLatin1String("cpu");
                if (onGpu != (summary.gpuLayers == summary.layerCount && !summary.gpuName.isEmpty())) {
                    qWarning("turn %d: %d of %d layers on '%s'", turn, summary.gpuLayers, summary.layerCount,
                             qPrintable(summary.gpuName));
                    return false;
                }
                GenerationResult result;
                QString reply;
                GenerationRequest r = request(10 + turn, "story", 8, conversationAfter(*replies));
                // Plain turns: ChatML's markers took most of stories260K's 128 positions.
                r.options.template_override = "{% for m in messages %}{{ m.content }}\n{% endfor %}";
                if (!generateIn(h, r, &result, &reply)) return false;
                results->append(result);
                replies->append(reply);
            }
            *validationErrors = h.worker->engineMetrics()->snapshot().device_validation_errors;
            return true;
        };
        QList<GenerationResult> cpu, switched;
        QStringList cpuReplies, switchedReplies;
        quint64 cpuErrors = 0, validationErrors = 0;
        QVERIFY(runTurns({"cpu", "cpu", "cpu"}, &cpu, &cpuReplies, &cpuErrors));
        QVERIFY(runTurns({"cpu", gpu, "cpu"}, &switched, &switchedReplies, &validationErrors));
        QCOMPARE(validationErrors, quint64{0});
        QCOMPARE(switchedReplies, cpuReplies);
        for (int turn = 1; turn < 3; ++turn) {
            const GenerationResult& r = switched[turn];
            QVERIFY2(r.resume.from_memory, qPrintable(QString("turn %1").arg(turn)));
            // Everything the turn before computed, its reply's tokens but the last included.
            QVERIFY2(r.stats.reused_tokens >= switched[turn - 1].stats.prompt_tokens,
                     qPrintable(QString("turn %1 reused %2 of the %3 tokens before")
                                    .arg(turn)
                                    .arg(r.stats.reused_tokens)
                                    .arg(switched[turn - 1].stats.prompt_tokens)));
            QCOMPARE(r.stats.reused_tokens, cpu[turn].stats.reused_tokens);
            QCOMPARE(r.stats.computed_tokens, cpu[turn].stats.computed_tokens);
        }
    }

    // A GPU turn shows in the metrics panel's kernel list: rows marked as the GPU's, with
    // dispatches and GPU time, beside the CPU's kernels.
    void aGpuTurnShowsInTheKernelMetrics() {
        const QString gpu = usableGpu();
        if (gpu.isEmpty()) QSKIP("no Vulkan device the engine can use (not even lavapipe)");
        qputenv("HEARTH_VULKAN_VALIDATION", "1");
        WorkerHarness h;
        QVERIFY(loadInto(h, modelPath(), 1));
        MetricsController metrics(h.worker->engineMetrics());
        EngineConfig config;
        config.device = device(gpu);
        ModelSummary summary;
        QVERIFY(configureIn(h, config, &summary));
        QVERIFY(summary.gpuLayers > 0);
        GenerationResult result;
        QVERIFY(generateIn(h, request(2, "c", 6), &result));
        QSignalSpy updated(&metrics, &MetricsController::updated);
        metrics.sample();
        QVERIFY(updated.wait(10000));
        quint64 dispatches = 0, ns = 0;
        bool matmul = false;
        for (const KernelStats& row : metrics.kernels()->rows()) {
            if (!row.gpu) continue;
            QCOMPARE(row.isa, QStringLiteral("GPU"));
            dispatches += row.calls;
            ns += row.totalNs;
            if (row.operation == QLatin1String("matmul")) {
                matmul = true;
                QVERIFY2(row.kernel.startsWith(QLatin1String("matmul_")),
                         qPrintable(row.kernel)); // the shader
            }
        }
        QVERIFY(matmul);
        // A matrix product per weight matrix of every layer, for each timed forward pass: the
        // device times one pass in 200 ms (timestamps on every pass would slow decode), the first
        // always.
        QVERIFY2(dispatches >= 7u * static_cast<quint64>(summary.layerCount),
                 qPrintable(QString("%1 dispatches").arg(dispatches)));
        QVERIFY(ns > 0);
        const auto gpuRows = [&] {
            int n = 0;
            for (int i = 0; i < metrics.kernels()->rowCount(); ++i)
                n += metrics.kernels()->index(i).data(KernelMetricsModel::GpuRole).toBool();
            return n;
        };
        QVERIFY(gpuRows() > 0);
        // Reset: the GPU's rows go until the GPU runs again.
        metrics.resetKernelMetrics();
        QVERIFY(updated.wait(10000));
        QCOMPARE(gpuRows(), 0);
        QCOMPARE(h.worker->engineMetrics()->snapshot().device_validation_errors, uint64_t{0});
    }

    // A device this machine lacks: the user is told, the model runs on the CPU, and the
    // conversation goes on with its cache. The same choice is not tried again at every change.
    void aGpuItCannotUseFallsBackToTheCpu() {
        WorkerHarness h;
        QVERIFY(loadInto(h, modelPath(), 1));
        GenerationResult first;
        QString reply;
        QVERIFY(generateIn(h, request(2, "story", 8), &first, &reply));
        QSignalSpy failed(&h, &WorkerHarness::deviceFailed);
        EngineConfig config;
        config.device = device("vulkan:9");
        ModelSummary summary;
        QVERIFY(configureIn(h, config, &summary));
        QCOMPARE(failed.count(), 1);
        const QString message = failed.constFirst().constFirst().toString();
        QVERIFY2(message.contains("vulkan:9") && message.contains("CPU"), qPrintable(message));
        QCOMPARE(summary.gpuLayers, 0);
        QVERIFY(summary.gpuName.isEmpty());
        GenerationResult second;
        QVERIFY(generateIn(h, request(3, "story", 4, conversationAfter({reply})), &second));
        QVERIFY(second.resume.from_memory);
        QVERIFY2(
            second.stats.reused_tokens >= first.stats.prompt_tokens,
            qPrintable(
                QString("reused %1 of %2").arg(second.stats.reused_tokens).arg(first.stats.prompt_tokens)));
        config.threads = 1; // another setting: the GPU is not tried again
        QVERIFY(configureIn(h, config, &summary));
        QCOMPARE(failed.count(), 1);
        config.device = device("cpu"); // chosen again after another: tried again
        QVERIFY(configureIn(h, config, &summary));
        config.device = device("vulkan:9");
        QVERIFY(configureIn(h, config, &summary));
        QCOMPARE(failed.count(), 2);
    }

    // A quantized KV cache from the settings: the worker says what it now runs with, and a
    // conversation still generates (tiny-qwen3: head size 32, one Q8_0 / Q4_0 block per head).
    void runsWithAQuantizedCache() {
        WorkerHarness h;
        const QString qwen3 = QString::fromStdString(hearth::test::testdata("models/tiny-qwen3.gguf"));
        QVERIFY(loadInto(h, qwen3, 1));
        QSignalSpy configured(&h, &WorkerHarness::configured);
        EngineConfig config;
        config.cache_types = {hearth::kernels::TensorType::Q8_0, hearth::kernels::TensorType::Q4_0};
        emit h.configure(config);
        QVERIFY(configured.wait(10000));
        const auto summary = configured.constFirst().constFirst().value<ModelSummary>();
        QCOMPARE(summary.keyCacheType, QStringLiteral("q8_0"));
        QCOMPARE(summary.valueCacheType, QStringLiteral("q4_0"));
        QSignalSpy done(&h, &WorkerHarness::generationFinished);
        emit h.generate(request(2, "c", 4));
        QVERIFY(done.wait(30000));
        QVERIFY(done.constFirst().at(1).value<GenerationResult>().stats.generated_tokens > 0);
    }
};

QTEST_MAIN(TestInferenceWorker)
#include "test_inference_worker.moc"
