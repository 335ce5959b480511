// Responsiveness benchmark (not a test): runs the real window (offscreen unless
// a display is set) and measures
//   - the longest gap between GUI event-loop iterations while a model loads and
//     while a reply streams (target: under 25 ms), and
//   - generation tokens/s in the app against hearth-cli generate and against the engine
//     driven directly in this process, same model, sampling and threads (target: at least 97%).
// Each watched run also names its three slowest events on the GUI thread (10 ms or more): the
// event's type and receiver say what kept the loop from running, and the GUI thread's CPU time
// within it whether it worked or waited for a core.
// usage: bench_responsiveness [model.gguf] [reply tokens] [repetitions] [threads]
// (threads: 0 or absent, the app's default)
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/gui/main_window.h"
#include "app/models/inference_worker.h"
#include "app/models/model_controller.h"
#include "app/models/speed_predictor.h"
#include "app/settings/app_settings.h"
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/session/chat_session.h"
#include "tests/support/test_support.h"
#include <QElapsedTimer>
#include <QEventLoop>
#include <QGuiApplication>
#include <QProcess>
#include <QQmlApplicationEngine>
#include <QQuickWindow>
#include <QRegularExpression>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <vector>

using namespace hearth;

namespace {

// Ticks every 2 ms on the GUI thread; the longest time between two ticks is the
// longest the event loop was kept from running.
class GapMonitor : public QObject {
public:
    GapMonitor() {
        timer_.setTimerType(Qt::PreciseTimer);
        timer_.setInterval(2);
        connect(&timer_, &QTimer::timeout, this, [this] {
            const qint64 now = clock_.nsecsElapsed();
            if (last_ >= 0) {
                gaps_.push_back((now - last_) / 1e6);
                if (gaps_.back() >= longest_) { // a running maximum: the tick itself stays O(1)
                    longest_ = gaps_.back();
                    longestAtMs_ = now / 1e6;
                }
            }
            last_ = now;
        });
    }
    void start() {
        gaps_.clear();
        longest_ = 0;
        last_ = -1;
        clock_.start();
        timer_.start();
    }
    void stop() { timer_.stop(); }
    double longest() const { return longest_; }
    double percentile(double p) const {
        if (gaps_.empty()) return 0;
        std::vector<double> sorted = gaps_;
        std::sort(sorted.begin(), sorted.end());
        return sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * sorted.size()))];
    }
    size_t samples() const { return gaps_.size(); }
    double longestAtMs() const { return longestAtMs_; } // when the longest gap ended, since start()
    double nowMs() const { return clock_.nsecsElapsed() / 1e6; }

private:
    QTimer timer_;
    QElapsedTimer clock_;
    qint64 last_ = -1;
    std::vector<double> gaps_;
    double longest_ = 0;
    double longestAtMs_ = 0;
};

// Runs the event loop until done() holds. It waits for events rather than polling (a poll with
// a time limit ignores WaitForMoreEvents and kept the GUI thread busy, taking a core from
// generation); a 50 ms timer wakes it to look at the time limit.
template <class Condition> bool spinUntil(Condition done, int timeoutMs) {
    QElapsedTimer t;
    t.start();
    QTimer wake;
    wake.start(50);
    while (!done()) {
        if (t.elapsed() > timeoutMs) return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
    return true;
}

// The calling thread's CPU time: an event that took long on the clock but little here waited
// for a core (the engine's threads hold them), one that took long here is work to cut.
double threadCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

const char* kPrompt = "Once upon a time, there was a little girl who";

// The application, timing every event it delivers on the GUI thread while `watching`: the
// slowest ones name what kept the event loop from running (a render, a layout, a queued call).
class TimedApplication : public QGuiApplication {
public:
    using QGuiApplication::QGuiApplication;
    struct SlowEvent {
        double ms;
        QString what;
    };
    bool watching = false;
    std::vector<SlowEvent> slow; // events of 10 ms or more while watching

    bool notify(QObject* receiver, QEvent* event) override {
        if (!watching || thread() != QThread::currentThread())
            return QGuiApplication::notify(receiver, event);
        QElapsedTimer timer;
        timer.start();
        const double cpuStart = threadCpuMs();
        const int type = event->type();
        const QString name = QString::fromLatin1(receiver->metaObject()->className());
        const bool result = QGuiApplication::notify(receiver, event);
        const double ms = timer.nsecsElapsed() / 1e6;
        if (ms >= 10)
            slow.push_back({ms, QStringLiteral("%1 (CPU %2) event %3 to %4")
                                    .arg(ms, 0, 'f', 1)
                                    .arg(threadCpuMs() - cpuStart, 0, 'f', 1)
                                    .arg(type)
                                    .arg(name)});
        return result;
    }
    // The three slowest, longest first.
    QString slowest() {
        std::sort(slow.begin(), slow.end(),
                  [](const SlowEvent& a, const SlowEvent& b) { return a.ms > b.ms; });
        QStringList parts;
        for (size_t i = 0; i < std::min<size_t>(3, slow.size()); ++i)
            parts << slow[i].what;
        slow.clear();
        return parts.isEmpty() ? QStringLiteral("none of 10 ms or more") : parts.join(QStringLiteral("; "));
    }
};

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    TimedApplication app(argc, argv);
    const QString model = argc > 1 ? QString::fromLocal8Bit(argv[1])
                                   : QString::fromStdString(test::testdata("models/stories260K.gguf"));
    const int replyTokens = argc > 2 ? std::atoi(argv[2]) : 256;
    const int repetitions = argc > 3 ? std::atoi(argv[3]) : 5;
    const int threadSetting = argc > 4 ? std::atoi(argv[4]) : 0;

    const QString dir = QString::fromStdString(test::make_temp_dir("hearth-bench"));
    app::prepareQuick();
    app::HearthBackend backend({dir + "/data", dir + "/settings.ini"});
    backend.settings()->setTemperature(0.0);
    backend.settings()->setMaxReplyTokens(replyTokens);
    backend.settings()->setThreads(threadSetting);
    QQmlApplicationEngine engine;
    QQuickWindow* window = app::loadMainWindow(engine, backend);
    if (!window) return 1;
    backend.start();
    spinUntil([&] { return backend.chat()->ready(); }, 10000);
    // A first start measures this machine's limits in the background, once: not while timed.
    spinUntil([&] { return !backend.speed()->measuring(); }, 120000);

    GapMonitor monitor;
    // 1. Loading.
    monitor.start();
    QElapsedTimer loadTimer;
    loadTimer.start();
    backend.models()->loadDroppedFile(QUrl::fromLocalFile(model));
    if (!spinUntil([&] { return backend.models()->loaded() && !backend.models()->busy(); }, 120000)) {
        std::fprintf(stderr, "the model did not load: %s\n", qPrintable(backend.models()->errorMessage()));
        return 1;
    }
    monitor.stop();
    const double loadMs = loadTimer.elapsed();
    const double loadGap = monitor.longest(), loadP99 = monitor.percentile(0.99);

    // 2. Each repetition, one after the other so that the host's load weighs on all alike: two
    // replies in the app (the window renders every streamed update), one timed for tokens/s and
    // the GUI thread's CPU with nothing else running, one watched by the gap monitor (whose 2 ms
    // timer would otherwise take CPU from generation on a 2-core machine); then the engine alone
    // in this process (same model, threads, context, prompt and sampling); then hearth-cli
    // generate, its own process (its prompt is the plain text, not the chat template's
    // rendering; decode speed at a few hundred tokens of context barely depends on that).
    const int threads = backend.models()->summary().threads;
    const int context = backend.models()->summary().contextLength;
    auto loaded = engine::Model::load(model.toStdString());
    engine::InferenceOptions options;
    options.n_threads = threads;
    engine::Inference inference(loaded, options);
    engine::GenerationOptions generation;
    generation.sampling.temperature = 0.0f;
    generation.max_tokens = replyTokens;
    const std::vector<engine::ChatTurn> turns{{chat::Role::User, kPrompt}};

    std::vector<double> appRates, engineRates, cliRates, ratios, guiCpuShares, frameRates;
    int frames = 0;
    QObject::connect(
        window, &QQuickWindow::afterRendering, &app, [&] { ++frames; }, Qt::DirectConnection);
    double generationGap = 0, generationP99 = 0;
    int generated = 0, finished = 0;
    double lastRate = 0;
    QObject::connect(backend.worker(), &app::InferenceWorker::generationFinished, &app,
                     [&](quint64, const app::GenerationResult& r) {
                         lastRate = r.stats.decode_tokens_per_second();
                         generated = r.stats.generated_tokens;
                         ++finished;
                     });
    // One reply; the worker's result and the chat's end are separate queued calls: both.
    double newConversationMs = 0, sendMs = 0; // the last reply's calls, on the GUI thread
    auto reply = [&] {
        const int before = finished;
        QElapsedTimer call;
        call.start();
        backend.chat()->newConversation();
        newConversationMs = call.nsecsElapsed() / 1e6;
        call.restart();
        backend.chat()->send(QString::fromUtf8(kPrompt));
        sendMs = call.nsecsElapsed() / 1e6;
        spinUntil([&] { return !backend.chat()->generating() && finished > before; }, 300000);
    };
    for (int i = 0; i < repetitions; ++i) {
        QElapsedTimer wall;
        wall.start();
        const double cpuBefore = threadCpuMs();
        const int framesBefore = frames;
        reply();
        const double seconds = std::max<qint64>(1, wall.elapsed()) / 1e3;
        guiCpuShares.push_back(0.1 * (threadCpuMs() - cpuBefore) / seconds);
        frameRates.push_back((frames - framesBefore) / seconds);
        appRates.push_back(lastRate);
        monitor.start();
        app.watching = true;
        reply();
        app.watching = false;
        monitor.stop();
        const double watchedRate = lastRate;
        generationGap = std::max(generationGap, monitor.longest());
        generationP99 = std::max(generationP99, monitor.percentile(0.99));
        const QString slowest = app.slowest();

        engine::ChatSession session(inference, context);
        engineRates.push_back(
            session.reply(turns, generation, [](std::string_view) {}).decode_tokens_per_second());

        QProcess cli;
        cli.start(QString::fromStdString(test::bin_dir() + "/hearth-cli"),
                  {"generate", "-m", model, "-p", QString::fromUtf8(kPrompt), "-n",
                   QString::number(replyTokens), "--temp", "0", "-t", QString::number(threads), "-c",
                   QString::number(context)});
        cli.waitForFinished(600000);
        const QString timings = QString::fromUtf8(cli.readAllStandardError());
        const QRegularExpressionMatch m =
            QRegularExpression(R"(generated (\d+) tokens in [0-9.]+ ms \(([0-9.]+) tok/s\))").match(timings);
        if (cli.exitCode() != 0 || !m.hasMatch()) {
            std::fprintf(stderr, "hearth-cli generate failed: %s\n", qPrintable(timings));
            return 1;
        }
        cliRates.push_back(m.captured(2).toDouble());
        const double appRate = appRates.back();
        ratios.push_back(100.0 * appRate / cliRates.back());
        std::printf(
            "  run %d: app %.1f (watched %.1f), engine %.1f, hearth-cli %.1f tok/s (app/hearth-cli "
            "%.1f%%); GUI thread CPU %.1f%% and %.0f frames/s in the timed reply; new chat %.1f ms, "
            "send %.1f ms; longest gap %.1f ms, ending %.0f ms after the send (run: %.0f ms); slowest "
            "events (ms, CPU ms, type, receiver): %s\n",
            i + 1, appRate, watchedRate, engineRates.back(), cliRates.back(), ratios.back(),
            guiCpuShares.back(), frameRates.back(), newConversationMs, sendMs, monitor.longest(),
            monitor.longestAtMs(), monitor.nowMs(), qPrintable(slowest));
    }

    const double appRate = median(appRates), engineRate = median(engineRates), cliRate = median(cliRates);
    std::printf("model: %s (%d threads, context %d, %d reply tokens, %d runs)\n", qPrintable(model), threads,
                context, generated, repetitions);
    std::printf("platform: %s\n", qPrintable(QGuiApplication::platformName()));
    std::printf("load:       %.0f ms; longest GUI event-loop gap %.1f ms (p99 %.1f ms)\n", loadMs, loadGap,
                loadP99);
    std::printf("generation: longest GUI event-loop gap %.1f ms (p99 %.1f ms)\n", generationGap,
                generationP99);
    std::printf(
        "tokens/s:   app %.1f, hearth-cli %.1f, engine in this process %.1f (medians): app/hearth-cli = "
        "%.1f%% (median of the runs' ratios), app/engine = %.1f%%\n",
        appRate, cliRate, engineRate, median(ratios), engineRate > 0 ? 100.0 * appRate / engineRate : 0.0);
    std::printf("GUI thread: %.1f%% of one core and %.0f frames/s while a reply streams (medians)\n",
                median(guiCpuShares), median(frameRates));
    std::printf("targets:    gap < 25 ms: %s; app >= 97%% of hearth-cli: %s\n",
                std::max(loadGap, generationGap) < 25 ? "met" : "NOT met",
                median(ratios) >= 97 ? "met" : "NOT met");
    return 0;
}
