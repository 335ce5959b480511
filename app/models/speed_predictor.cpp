#include "app/models/speed_predictor.h"
#include "engine/error.h"
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

namespace hearth::app {

SpeedPredictor::SpeedPredictor(QString limitsFile, int threads, QObject* parent)
    : QObject(parent), limitsFile_(std::move(limitsFile)), threads_(std::max(1, threads)) {
    pool_.setMaxThreadCount(1);
    connect(&watcher_, &QFutureWatcherBase::finished, this, [this] {
        measuring_ = false;
        if (const std::optional<engine::MachineLimits> measured = watcher_.result()) limits_ = measured;
        emit limitsChanged();
        if (pending_) {
            pending_ = false;
            measure(true);
        }
    });
}

SpeedPredictor::~SpeedPredictor() {
    cancelled_ = true;   // a measurement under way stops at its next step...
    pool_.waitForDone(); // ...and ends first (it holds no pointer to this but the flag)
}

void SpeedPredictor::start() {
    measure(false);
}

void SpeedPredictor::remeasure() {
    measure(true);
}

void SpeedPredictor::setThreads(int threads) {
    threads = std::max(1, threads);
    if (threads == threads_) return;
    threads_ = threads;
    measure(false); // the stored measurement of that count, or a new one
}

void SpeedPredictor::measure(bool again) {
    if (measuring_) {
        pending_ = pending_ || again;
        return;
    }
    measuring_ = true;
    emit limitsChanged();
    watcher_.setFuture(
        QtConcurrent::run(&pool_,
                          [file = limitsFile_.toStdString(), threads = threads_, again,
                           cancelled = &cancelled_]() -> std::optional<engine::MachineLimits> {
                              try {
                                  return engine::cached_machine_limits(file, threads, again, cancelled);
                              } catch (const Error&) {
                                  return std::nullopt; // no memory for it, or cancelled: no predictions
                              }
                          }));
}

std::optional<kernels::TensorType> SpeedPredictor::weightType(const QString& quantization) {
    QString name = quantization.trimmed();
    while (!name.isEmpty()) {
        if (const auto type = kernels::type_from_name(name.toStdString())) return type;
        const qsizetype cut = name.lastIndexOf(QLatin1Char('_'));
        if (cut <= 0) break;
        name.truncate(cut); // "Q4_K_M" -> "Q4_K"
    }
    return std::nullopt;
}

std::optional<engine::ModelCost> SpeedPredictor::approximateCost(qint64 fileBytes, qint64 parameters,
                                                                 qint64 activeParameters,
                                                                 const QString& quantization) {
    const std::optional<kernels::TensorType> type = weightType(quantization);
    if (!type || fileBytes <= 0) return std::nullopt;
    return engine::approximate_model_cost(fileBytes, parameters, activeParameters, *type);
}

QString SpeedPredictor::summary() const {
    if (!limits_) return {};
    const double q4k = limits_->gemm_gflops(kernels::TensorType::Q4_K, 64);
    return tr("Memory read %1 GB/s, Q4_K prompts at %2 GFLOP/s (threads: %3)")
        .arg(limits_->bandwidth_gbps, 0, 'f', 1)
        .arg(q4k, 0, 'f', 0)
        .arg(limits_->threads);
}

QString SpeedPredictor::describe(const engine::ModelCost& cost, MemoryFit fit) const {
    if (!limits_) return {};
    const engine::SpeedPrediction speed = engine::predict_speed(cost, *limits_);
    const double tps = speed.decode_tokens_per_second;
    if (!(tps > 0)) return {};
    const QString rate = tr("≈ %1 tok/s on this computer").arg(tps, 0, 'f', tps < 10 ? 1 : 0);
    switch (fit) {
    case MemoryFit::Fits:
        return tr("%1, fits in memory").arg(rate);
    case MemoryFit::Tight:
        return tr("%1, tight in memory").arg(rate);
    case MemoryFit::TooLarge:
        return tr("%1 if it fitted: too large for its memory").arg(rate);
    case MemoryFit::Unknown:
        break;
    }
    return rate;
}

} // namespace hearth::app
