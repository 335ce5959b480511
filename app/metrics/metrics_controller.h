#pragma once
// The live panels' data: samples the engine's metrics (the GPU's time per op among them) and the
// kernels' dispatch metrics a few times a second (on a pool thread: the snapshot reads /proc) and
// keeps a short history of tokens/s for the chart, and the prompt tokens each of
// the last replies reused from the cache or computed.
#include "app/metrics/kernel_metrics_model.h"
#include "app/metrics/reply_cache_history.h"
#include <QHash>
#include <QObject>
#include <QThreadPool>
#include <QTimer>
#include <QVariantList>
#include <QtQml/qqmlregistration.h>
#include <memory>
#include <qcoro/qcorotask.h>

namespace hearth::engine {
class EngineMetrics;
}

namespace hearth::app {

struct MetricsSample; // the engine's and kernels' figures at one moment

class MetricsController : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Created by the application")
    Q_PROPERTY(bool generating READ generating NOTIFY updated)
    // Generating, and no token of the reply yet: the engine is reading the prompt.
    Q_PROPERTY(bool readingPrompt READ readingPrompt NOTIFY updated)
    Q_PROPERTY(double decodeTokensPerSecond READ decodeTokensPerSecond NOTIFY updated)
    Q_PROPERTY(double prefillTokensPerSecond READ prefillTokensPerSecond NOTIFY updated)
    Q_PROPERTY(double timeToFirstTokenMs READ timeToFirstTokenMs NOTIFY updated)
    Q_PROPERTY(qint64 tokensReused READ tokensReused NOTIFY updated)
    Q_PROPERTY(qint64 tokensComputed READ tokensComputed NOTIFY updated)
    Q_PROPERTY(qint64 tokensGenerated READ tokensGenerated NOTIFY updated)
    // The last reply's images that its prompt evaluated (none when every one was in the cache):
    // how many, their positions, how many were encoded now, and the encoding's time.
    Q_PROPERTY(qint64 images READ images NOTIFY updated)
    Q_PROPERTY(qint64 imagePositions READ imagePositions NOTIFY updated)
    Q_PROPERTY(qint64 imagesEncoded READ imagesEncoded NOTIFY updated)
    Q_PROPERTY(double imageEncodeMs READ imageEncodeMs NOTIFY updated)
    Q_PROPERTY(qint64 kvTokens READ kvTokens NOTIFY updated)
    Q_PROPERTY(qint64 kvCapacity READ kvCapacity NOTIFY updated)
    Q_PROPERTY(double kvFill READ kvFill NOTIFY updated)
    Q_PROPERTY(QString kvMemory READ kvMemory NOTIFY updated)
    Q_PROPERTY(QString modelMemory READ modelMemory NOTIFY updated)
    Q_PROPERTY(QString residentMemory READ residentMemory NOTIFY updated)
    Q_PROPERTY(QVariantList decodeHistory READ decodeHistory NOTIFY updated)
    Q_PROPERTY(QVariantList prefillHistory READ prefillHistory NOTIFY updated)
    Q_PROPERTY(hearth::app::KernelMetricsModel* kernels READ kernels CONSTANT)
    Q_PROPERTY(hearth::app::ReplyCacheHistory* replies READ replies CONSTANT)
    Q_PROPERTY(int intervalMs READ intervalMs WRITE setIntervalMs NOTIFY intervalChanged)
    Q_PROPERTY(int samples READ samples NOTIFY updated)
    // Requests the local API server answered, their tokens, and the last one's decode speed.
    Q_PROPERTY(int serverRequests READ serverRequests NOTIFY serverRequestsChanged)
    Q_PROPERTY(qint64 serverTokensGenerated READ serverTokensGenerated NOTIFY serverRequestsChanged)
    Q_PROPERTY(double serverTokensPerSecond READ serverTokensPerSecond NOTIFY serverRequestsChanged)
    // Mixture-of-experts models: how often each expert was chosen, summed over the layers
    // (empty for a dense model), and over how many layers.
    Q_PROPERTY(QVariantList expertHits READ expertHits NOTIFY updated)
    Q_PROPERTY(int expertLayers READ expertLayers NOTIFY updated)
    // Speculative decoding (shown while the settings turn it on, speculationOn): of the current or
    // last reply, the share of drafted tokens accepted, the tokens each verify pass gave, and the
    // drafted and accepted counts; and its decode rate over the last plain reply's of the same
    // model (speedup, 0 without a plain baseline yet: hasPlainBaseline false).
    Q_PROPERTY(bool speculationOn READ speculationOn WRITE setSpeculationOn NOTIFY speculationChanged)
    Q_PROPERTY(bool speculating READ speculating NOTIFY updated)
    Q_PROPERTY(double acceptanceRate READ acceptanceRate NOTIFY updated)
    Q_PROPERTY(double tokensPerVerifyPass READ tokensPerVerifyPass NOTIFY updated)
    Q_PROPERTY(qint64 draftedTokens READ draftedTokens NOTIFY updated)
    Q_PROPERTY(qint64 acceptedTokens READ acceptedTokens NOTIFY updated)
    Q_PROPERTY(bool hasPlainBaseline READ hasPlainBaseline NOTIFY speculationChanged)
    Q_PROPERTY(double plainTokensPerSecond READ plainTokensPerSecond NOTIFY speculationChanged)
    Q_PROPERTY(double speedup READ speedup NOTIFY updated)
    // How many samples the histories keep: with intervalMs, the time span the chart shows.
    Q_PROPERTY(int historyLength READ historyLength CONSTANT)
    // Whether the figures are shown (the panel is open). While they are not, samples are still
    // taken into the histories, but the kernel rows and every binding are left alone (updated
    // is not emitted): on a 2-core machine, the hidden panel's bindings re-evaluated four times a
    // second had held the window 25-45 ms at a time while a reply streamed. Setting it catches up
    // at once.
    Q_PROPERTY(bool watched READ watched WRITE setWatched NOTIFY watchedChanged)

public:
    static constexpr int kHistoryLength = 120;
    static constexpr int kMinBaselineTokens = 8; // a plain reply's tokens for its rate to count

    // `engine`: the live figures of the engine to show (the inference worker's), shared so that
    // a sample under way on a pool thread keeps them alive.
    explicit MetricsController(std::shared_ptr<const engine::EngineMetrics> engine,
                               QObject* parent = nullptr);
    ~MetricsController() override;

    [[nodiscard]] bool generating() const;
    [[nodiscard]] bool readingPrompt() const;
    [[nodiscard]] double decodeTokensPerSecond() const;
    [[nodiscard]] double prefillTokensPerSecond() const;
    [[nodiscard]] double timeToFirstTokenMs() const;
    [[nodiscard]] qint64 tokensReused() const;
    [[nodiscard]] qint64 tokensComputed() const;
    [[nodiscard]] qint64 images() const;
    [[nodiscard]] qint64 imagePositions() const;
    [[nodiscard]] qint64 imagesEncoded() const;
    [[nodiscard]] double imageEncodeMs() const;
    [[nodiscard]] qint64 tokensGenerated() const;
    [[nodiscard]] qint64 kvTokens() const;
    [[nodiscard]] qint64 kvCapacity() const;
    [[nodiscard]] double kvFill() const;
    [[nodiscard]] QString kvMemory() const;
    [[nodiscard]] QString modelMemory() const;
    [[nodiscard]] QString residentMemory() const;
    [[nodiscard]] QVariantList decodeHistory() const { return decodeHistory_; }
    [[nodiscard]] QVariantList prefillHistory() const { return prefillHistory_; }
    [[nodiscard]] KernelMetricsModel* kernels() { return &kernels_; }
    [[nodiscard]] ReplyCacheHistory* replies() { return &replies_; }
    // A reply finished: adds it to the per-reply history, and to the next sample of the rate
    // history (a reply shorter than the sampling interval would otherwise leave no trace there).
    void recordReply(const GenerationResult& result);
    // An API server request was answered: counted, and added to the per-reply history too.
    void recordServerRequest(const GenerationResult& result);
    [[nodiscard]] int serverRequests() const { return serverRequests_; }
    [[nodiscard]] qint64 serverTokensGenerated() const { return serverTokensGenerated_; }
    [[nodiscard]] double serverTokensPerSecond() const { return serverTokensPerSecond_; }
    [[nodiscard]] QVariantList expertHits() const { return expertHits_; }
    [[nodiscard]] int expertLayers() const;
    [[nodiscard]] bool speculationOn() const { return speculationOn_; }
    void setSpeculationOn(bool on);
    // The model replies come from: the plain baseline is that model's (a new one starts without).
    void setModelPath(const QString& path);
    [[nodiscard]] bool speculating() const;
    [[nodiscard]] double acceptanceRate() const;
    [[nodiscard]] double tokensPerVerifyPass() const;
    [[nodiscard]] qint64 draftedTokens() const;
    [[nodiscard]] qint64 acceptedTokens() const;
    [[nodiscard]] bool hasPlainBaseline() const { return plainTokensPerSecond_ > 0; }
    [[nodiscard]] double plainTokensPerSecond() const { return plainTokensPerSecond_; }
    [[nodiscard]] double speedup() const;
    [[nodiscard]] int intervalMs() const { return timer_.interval(); }
    void setIntervalMs(int ms);
    [[nodiscard]] bool watched() const { return watched_; }
    void setWatched(bool watched);
    [[nodiscard]] int samples() const { return samples_; }
    [[nodiscard]] static int historyLength() { return kHistoryLength; }

    // Takes one sample now (also what the timer does); while one is being taken, another follows
    // it, so the figures shown are from after the call.
    QCoro::Task<> sample();
    Q_INVOKABLE void resetKernelMetrics();

signals:
    void updated();
    void intervalChanged();
    void watchedChanged();
    void serverRequestsChanged();
    void speculationChanged();

private:
    // The last sample to the kernel rows, the expert totals and the bindings (updated).
    void publish();

    std::shared_ptr<const engine::EngineMetrics> engine_;
    std::unique_ptr<MetricsSample> last_;
    // The GPU's figures when the counters were last reset, by "operation/kernel": the rows show
    // what ran since.
    QHash<QString, KernelStats> gpuBaseline_;
    QVariantList decodeHistory_;
    QVariantList prefillHistory_;
    QVariantList expertHits_;
    KernelMetricsModel kernels_;
    ReplyCacheHistory replies_;
    QTimer timer_;
    // The samples' own thread: on Qt Concurrent's shared pool a sample waited behind long jobs
    // (two of them fill it on two cores), and the panel kept showing the empty first snapshot.
    QThreadPool samplePool_;
    bool sampling_ = false;
    bool sampleAgain_ = false; // sample() was called while one was being taken
    bool watched_ = true;
    int samples_ = 0;
    // The rates of the replies that ended since the last sample (the last one's), if any.
    bool replyEnded_ = false;
    double endedDecodeRate_ = 0, endedPrefillRate_ = 0;
    int serverRequests_ = 0;
    qint64 serverTokensGenerated_ = 0;
    double serverTokensPerSecond_ = 0;
    bool speculationOn_ = false;
    QString modelPath_;
    double plainTokensPerSecond_ = 0; // the last plain reply's decode rate, of modelPath_; 0: none yet
};

} // namespace hearth::app
