#include "app/metrics/metrics_controller.h"
#include "app/models/format.h"
#include "engine/session/engine_metrics.h"
#include "kernels/dispatch_metrics.h"
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>
#include <qcoro/qcorofuture.h>
#include <utility>

namespace hearth::app {

namespace dm = hearth::kernels::dispatch_metrics;

struct MetricsSample {
    engine::EngineMetricsSnapshot engine;
    QList<KernelStats> kernels;
};

namespace {
KernelStats gpuRow(const engine::DeviceOpTiming& op) {
    KernelStats stats;
    stats.operation = QString::fromStdString(op.name);
    stats.isa = QStringLiteral("GPU");
    // The device's candidate that ran it, or the operation where it has one shader.
    const std::string_view kernel = kernels::kernel_name(op.kernel).name;
    stats.kernel = kernel.empty() ? stats.operation : QString::fromUtf8(kernel);
    stats.calls = op.dispatches;
    stats.totalNs = op.ns;
    stats.gpu = true;
    return stats;
}

MetricsSample takeSample(const engine::EngineMetrics& engine) {
    MetricsSample sample;
    sample.engine = engine.snapshot();
    const auto snapshot = std::make_unique<dm::Snapshot>(dm::snapshot()); // large: keep it off the stack
    for (const dm::Snapshot::Entry& entry : snapshot->entries) {
        KernelStats stats;
        stats.operation = QString::fromUtf8(dm::op_name(entry.op));
        const auto type = static_cast<uint32_t>(entry.type);
        const auto traits = kernels::type_traits(type);
        stats.type = traits ? QString::fromUtf8(traits->name) : QStringLiteral("type %1").arg(type);
        const kernels::KernelName kernel = kernels::kernel_name(entry.kernel);
        stats.isa = QString::fromUtf8(kernels::backend_name(kernel.backend));
        stats.kernel = QString::fromUtf8(kernel.name);
        stats.calls = entry.cell.calls;
        stats.totalNs = entry.cell.total_ns;
        stats.histogram.reserve(dm::kBuckets);
        for (int b = 0; b < dm::kBuckets; ++b)
            stats.histogram.append(entry.cell.histogram[b]);
        sample.kernels.append(stats);
    }
    for (const engine::DeviceOpTiming& op : sample.engine.device_ops)
        sample.kernels.append(gpuRow(op));
    return sample;
}
// Per expert, its hits summed over the layers (empty for a dense model).
QVariantList expertTotals(const engine::EngineMetricsSnapshot& e) {
    QVariantList totals;
    for (int32_t expert = 0; expert < e.expert_count; ++expert) {
        qint64 sum = 0;
        for (int32_t layer = 0; layer < e.expert_layers; ++layer)
            sum += e.expert_hits[static_cast<size_t>(layer) * static_cast<size_t>(e.expert_count) +
                                 static_cast<size_t>(expert)];
        totals.append(sum);
    }
    return totals;
}

} // namespace

MetricsController::MetricsController(std::shared_ptr<const engine::EngineMetrics> engine, QObject* parent)
    : QObject(parent), engine_(std::move(engine)), last_(std::make_unique<MetricsSample>()) {
    samplePool_.setMaxThreadCount(1);
    timer_.setInterval(250);
    connect(&timer_, &QTimer::timeout, this, [this] { sample(); });
    timer_.start();
    sample(); // the panel shows figures from the start, not an empty snapshot
}

MetricsController::~MetricsController() = default;

void MetricsController::setIntervalMs(int ms) {
    if (ms == timer_.interval() || ms <= 0) return;
    timer_.setInterval(ms);
    emit intervalChanged();
}

QCoro::Task<> MetricsController::sample() {
    if (sampling_) {         // the previous sample is still being taken, maybe from before this call:
        sampleAgain_ = true; // another follows it
        co_return;
    }
    sampling_ = true;
    const QPointer<MetricsController> self(this);
    QFuture<MetricsSample> future =
        QtConcurrent::run(&samplePool_, [engine = engine_] { return takeSample(*engine); });
    MetricsSample next = co_await future;
    if (!self) co_return;
    sampling_ = false;
    *last_ = std::move(next);
    const auto push = [](QVariantList& history, double value) {
        history.append(value);
        while (history.size() > kHistoryLength)
            history.removeFirst();
    };
    const engine::EngineMetricsSnapshot& e = last_->engine;
    // A reply that ended since the last sample counts in this one, however short it was.
    const bool ended = !e.generating && replyEnded_;
    push(decodeHistory_, e.generating ? e.decode_tokens_per_second : ended ? endedDecodeRate_ : 0.0);
    push(prefillHistory_, e.generating ? e.prefill_tokens_per_second : ended ? endedPrefillRate_ : 0.0);
    replyEnded_ = false;
    ++samples_;
    if (watched_) publish();
    if (std::exchange(sampleAgain_, false)) sample();
}

void MetricsController::publish() {
    QList<KernelStats> kernels = last_->kernels;
    for (KernelStats& row : kernels) {
        if (!row.gpu) continue;
        const KernelStats before = gpuBaseline_.value(row.operation + u'/' + row.kernel);
        row.calls -= std::min(row.calls, before.calls);
        row.totalNs -= std::min(row.totalNs, before.totalNs);
    }
    kernels.removeIf([](const KernelStats& row) { return row.gpu && row.calls == 0; });
    kernels_.update(std::move(kernels));
    expertHits_ = expertTotals(last_->engine); // once per sample: QML reads it in several places
    emit updated();
}

void MetricsController::setWatched(bool watched) {
    if (watched == watched_) return;
    watched_ = watched;
    emit watchedChanged();
    if (watched_) publish(); // the last sample's figures, whatever happened while hidden
}

void MetricsController::recordReply(const GenerationResult& result) {
    // A plain reply of a few tokens or more is the baseline speculative replies are compared with.
    const engine::TurnStats& stats = result.stats;
    if (!stats.speculative && stats.generated_tokens >= kMinBaselineTokens &&
        stats.decode_tokens_per_second() > 0) {
        plainTokensPerSecond_ = stats.decode_tokens_per_second();
        emit speculationChanged();
    }
    replies_.record(result);
    replyEnded_ = true;
    endedDecodeRate_ = result.stats.decode_tokens_per_second();
    endedPrefillRate_ = result.stats.prefill_tokens_per_second();
    sample(); // the reply's figures now, not up to a sampling interval later
}

void MetricsController::recordServerRequest(const GenerationResult& result) {
    recordReply(result);
    ++serverRequests_;
    serverTokensGenerated_ += result.stats.generated_tokens;
    serverTokensPerSecond_ = result.stats.decode_tokens_per_second();
    emit serverRequestsChanged();
}

void MetricsController::resetKernelMetrics() {
    dm::reset(); // atomics only: no I/O
    gpuBaseline_.clear();
    for (const engine::DeviceOpTiming& op : engine_->device_ops()) // a lock, no I/O
    {
        const KernelStats row = gpuRow(op);
        gpuBaseline_.insert(row.operation + u'/' + row.kernel, row);
    }
    sample();
}

void MetricsController::setSpeculationOn(bool on) {
    if (on == speculationOn_) return;
    speculationOn_ = on;
    emit speculationChanged();
}

void MetricsController::setModelPath(const QString& path) {
    if (path == modelPath_) return;
    modelPath_ = path;
    plainTokensPerSecond_ = 0; // another model's speed says nothing of this one's
    emit speculationChanged();
}

bool MetricsController::speculating() const {
    return last_->engine.speculative;
}
double MetricsController::acceptanceRate() const {
    const engine::EngineMetricsSnapshot& e = last_->engine;
    return e.drafted_tokens > 0
               ? static_cast<double>(e.accepted_tokens) / static_cast<double>(e.drafted_tokens)
               : 0.0;
}
double MetricsController::tokensPerVerifyPass() const {
    const engine::EngineMetricsSnapshot& e = last_->engine;
    return e.verify_passes > 0 ? static_cast<double>(e.accepted_tokens + e.verify_passes) /
                                     static_cast<double>(e.verify_passes)
                               : 0.0;
}
qint64 MetricsController::draftedTokens() const {
    return last_->engine.drafted_tokens;
}
qint64 MetricsController::acceptedTokens() const {
    return last_->engine.accepted_tokens;
}
double MetricsController::speedup() const {
    const engine::EngineMetricsSnapshot& e = last_->engine;
    return e.speculative && plainTokensPerSecond_ > 0 ? e.decode_tokens_per_second / plainTokensPerSecond_
                                                      : 0.0;
}

int MetricsController::expertLayers() const {
    return last_->engine.expert_layers;
}

bool MetricsController::generating() const {
    return last_->engine.generating;
}
bool MetricsController::readingPrompt() const {
    return last_->engine.generating && last_->engine.tokens_generated == 0;
}
double MetricsController::decodeTokensPerSecond() const {
    return last_->engine.decode_tokens_per_second;
}
double MetricsController::prefillTokensPerSecond() const {
    return last_->engine.prefill_tokens_per_second;
}
double MetricsController::timeToFirstTokenMs() const {
    return last_->engine.time_to_first_token_ms;
}
qint64 MetricsController::tokensReused() const {
    return last_->engine.tokens_reused;
}
qint64 MetricsController::tokensComputed() const {
    return last_->engine.tokens_computed;
}
qint64 MetricsController::images() const {
    return last_->engine.images;
}
qint64 MetricsController::imagePositions() const {
    return last_->engine.image_positions;
}
qint64 MetricsController::imagesEncoded() const {
    return last_->engine.images_encoded;
}
double MetricsController::imageEncodeMs() const {
    return last_->engine.image_encode_ms;
}
qint64 MetricsController::tokensGenerated() const {
    return last_->engine.tokens_generated;
}
qint64 MetricsController::kvTokens() const {
    return last_->engine.kv_tokens;
}
qint64 MetricsController::kvCapacity() const {
    return last_->engine.kv_capacity;
}
double MetricsController::kvFill() const {
    return last_->engine.kv_capacity > 0
               ? static_cast<double>(last_->engine.kv_tokens) / static_cast<double>(last_->engine.kv_capacity)
               : 0.0;
}
QString MetricsController::kvMemory() const {
    return formatBytes(last_->engine.kv_bytes);
}
QString MetricsController::modelMemory() const {
    return formatBytes(last_->engine.model_bytes);
}
QString MetricsController::residentMemory() const {
    return formatBytes(last_->engine.resident_bytes);
}

} // namespace hearth::app
