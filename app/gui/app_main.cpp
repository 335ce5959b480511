// The desktop app's start: the command line, the single-instance hand-over, the window over the
// backend, and a model file given on the command line loaded the way a dropped file is.
#include "app/gui/app_main.h"
#include "app/chat/hearth_backend.h"
#include "app/gui/app_icon.h"
#include "app/gui/main_window.h"
#include "app/gui/translations.h"
#include "app/models/model_controller.h"
#include "app/platform/quit_on_signals.h"
#include "app/platform/single_instance.h"
#include <QCommandLineParser>
#include <QDir>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQuickWindow>
#include <QUrl>

namespace hearth::app {

int runHearth(int argc, char** argv, const StartHooks& hooks) {
    QGuiApplication app(argc, argv);
    QGuiApplication::setOrganizationName(QStringLiteral("Hearth"));
    QGuiApplication::setApplicationName(QStringLiteral("Hearth"));
    QGuiApplication::setApplicationDisplayName(QStringLiteral("Hearth"));
    QGuiApplication::setApplicationVersion(QStringLiteral(HEARTH_VERSION));
    QGuiApplication::setDesktopFileName(QStringLiteral("hearth"));
    QGuiApplication::setWindowIcon(appIcon());
    installTranslations(app);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QCoreApplication::translate("main", "Chat with language models on your own computer."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption dataDir(
        QStringLiteral("data-dir"),
        QCoreApplication::translate("main",
                                    "Keep conversations in <dir> (default: the standard app-data place)."),
        QStringLiteral("dir"));
    const QCommandLineOption settingsFile(
        QStringLiteral("settings"),
        QCoreApplication::translate("main", "Read and write settings in the INI file <file>."),
        QStringLiteral("file"));
    parser.addOptions({dataDir, settingsFile});
    if (hooks.addOptions) hooks.addOptions(parser);
    parser.addPositionalArgument(QStringLiteral("model"),
                                 QCoreApplication::translate("main", "A .gguf model file to load."),
                                 QStringLiteral("[model]"));
    parser.process(app);

    const AppPaths paths = AppPaths::resolve(parser.value(dataDir), parser.value(settingsFile));
    // A second start on the same profile hands its model to the running window and exits.
    SingleInstance instance(paths.dataDir);
    // Termination signals are caught from before the claim: one that came between the claim
    // and the handlers ended the app on the spot, leaving its lock and socket behind.
    process::quitOnTerminationSignals(app);
    if (!instance.claim()) {
        process::restoreTerminationSignals(); // handing over, it ends on a signal as before
        QString error;
        if (instance.handOver(parser.positionalArguments(), 10000, &error)) return 0;
        qCritical("%s", qPrintable(error));
        return 1;
    }
    // From here on the profile is ours: a termination signal ends the app as closing it does.
    prepareQuick();
    HearthBackend backend(paths);
    QQmlApplicationEngine engine;
    QQuickWindow* window = loadMainWindow(engine, backend);
    if (!window) return 1;
    backend.start();
    QObject::connect(&instance, &SingleInstance::argumentsReceived, window, [&](const QStringList& files) {
        if (!files.isEmpty()) backend.models()->loadDroppedFile(QUrl::fromLocalFile(files.constFirst()));
        window->setWindowStates(window->windowStates() & ~Qt::WindowMinimized);
        window->raise();
        window->requestActivate();
    });

    if (!parser.positionalArguments().isEmpty())
        backend.models()->loadDroppedFile(QUrl::fromUserInput(parser.positionalArguments().constFirst(),
                                                              QDir::currentPath(), QUrl::AssumeLocalFile));

    if (hooks.started) hooks.started(parser, backend, *window);
    return app.exec();
}

} // namespace hearth::app
