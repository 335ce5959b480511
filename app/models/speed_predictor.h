#pragma once
// This computer's measured limits (engine/model/machine_limits.h) and the speed each model will
// run at (engine/model/speed_prediction.h), for the model cards: "≈ 24 tok/s on this computer,
// fits in memory". Measured once in the background (a few seconds, on a thread of its own) and
// kept as JSON in the app's data folder with the CPU's name; measured again on request.
#include "app/models/model_fit.h"
#include "engine/model/machine_limits.h"
#include "engine/model/speed_prediction.h"
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QtQml/qqmlregistration.h>
#include <atomic>
#include <optional>

namespace hearth::app {

class SpeedPredictor : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by ModelController")
    Q_PROPERTY(bool measuring READ measuring NOTIFY limitsChanged)
    // "Memory read 26.7 GB/s, Q4_K prompts at 720 GFLOP/s (threads: 2)"; empty until measured.
    Q_PROPERTY(QString summary READ summary NOTIFY limitsChanged)

public:
    // `limitsFile`: the JSON the measurements are kept in; `threads`: the engine's.
    SpeedPredictor(QString limitsFile, int threads, QObject* parent = nullptr);
    ~SpeedPredictor() override;

    // Takes this machine's stored measurement for the threads, or measures it in the background.
    void start();
    // Measures again with the engine's threads (the settings' may have changed since).
    Q_INVOKABLE void remeasure();
    void setThreads(int threads);

    [[nodiscard]] bool measuring() const { return measuring_; }
    [[nodiscard]] QString summary() const;
    [[nodiscard]] const std::optional<engine::MachineLimits>& limits() const { return limits_; }

    // "≈ 24 tok/s on this computer, fits in memory": decode after a short prompt, and the memory
    // fit; empty while the limits are unknown or the cost predicts nothing.
    [[nodiscard]] QString describe(const engine::ModelCost& cost, MemoryFit fit) const;

    // The weight type most of a file of this quantization holds: "Q4_K_M" -> Q4_K; nullopt when
    // the name says none.
    static std::optional<kernels::TensorType> weightType(const QString& quantization);
    // A file not here yet, from its size, parameter counts (0: unknown) and quantization.
    static std::optional<engine::ModelCost> approximateCost(qint64 fileBytes, qint64 parameters,
                                                            qint64 activeParameters,
                                                            const QString& quantization);

signals:
    void limitsChanged();

private:
    void measure(bool again);

    QString limitsFile_;
    int threads_;
    bool measuring_ = false;
    bool pending_ = false; // a re-measure asked for while one runs
    std::optional<engine::MachineLimits> limits_;
    // Its own thread: a measurement takes seconds, and Qt Concurrent's global pool (the models
    // folder's scan, the metrics) must not wait behind it.
    QThreadPool pool_;
    QFutureWatcher<std::optional<engine::MachineLimits>> watcher_;
    std::atomic<bool> cancelled_{false}; // set as this goes: a measurement under way ends early
};

} // namespace hearth::app
