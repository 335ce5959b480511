#pragma once
// The desktop app's whole run, from the command line to the event loop's end. The hooks let a
// test-only build of the app add options and act once the window is up (tests/app/automation's
// hearth-scripted); the hearth that ships passes none.
#include <QCommandLineParser>
#include <functional>

class QQuickWindow;

namespace hearth::app {

class HearthBackend;

struct StartHooks {
    std::function<void(QCommandLineParser&)> addOptions; // before the command line is parsed
    // The window is shown and the backend started; the event loop is about to run.
    std::function<void(const QCommandLineParser&, HearthBackend&, QQuickWindow&)> started;
};

int runHearth(int argc, char** argv, const StartHooks& hooks = {});

} // namespace hearth::app
