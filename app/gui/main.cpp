// hearth: the desktop app. Opens the main window over the backend; a model
// file given on the command line is loaded the way a dropped file is.
#include "app/core/hearth_backend.h"
#include "app/core/model_controller.h"
#include "app/core/single_instance.h"
#include "app/core/translations.h"
#include "app/gui/app_icon.h"
#include "app/gui/automation.h"
#include "app/gui/main_window.h"
#include <QCommandLineParser>
#include <QDir>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQuickWindow>
#include <QUrl>

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv);
    QGuiApplication::setOrganizationName(QStringLiteral("Hearth"));
    QGuiApplication::setApplicationName(QStringLiteral("Hearth"));
    QGuiApplication::setApplicationDisplayName(QStringLiteral("Hearth"));
    QGuiApplication::setApplicationVersion(QStringLiteral(HEARTH_VERSION));
    QGuiApplication::setDesktopFileName(QStringLiteral("hearth"));
    QGuiApplication::setWindowIcon(hearth::app::appIcon());
    hearth::app::installTranslations(app);

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
    const QCommandLineOption script(
        QStringLiteral("script"),
        QCoreApplication::translate("main", "Run the automation script <file> (end-to-end tests)."),
        QStringLiteral("file"));
    const QCommandLineOption screenshots(
        QStringLiteral("screenshots"),
        QCoreApplication::translate("main", "Where the script's screenshots go."), QStringLiteral("dir"));
    parser.addOptions({dataDir, settingsFile, script, screenshots});
    parser.addPositionalArgument(QStringLiteral("model"),
                                 QCoreApplication::translate("main", "A .gguf model file to load."),
                                 QStringLiteral("[model]"));
    parser.process(app);

    const hearth::app::AppPaths paths =
        hearth::app::AppPaths::resolve(parser.value(dataDir), parser.value(settingsFile));
    // A second start on the same profile hands its model to the running window and exits.
    hearth::app::SingleInstance instance(paths.dataDir);
    if (!instance.claim()) {
        QString error;
        if (instance.handOver(parser.positionalArguments(), 10000, &error)) return 0;
        qCritical("%s", qPrintable(error));
        return 1;
    }
    hearth::app::prepareQuick();
    hearth::app::HearthBackend backend(paths);
    QQmlApplicationEngine engine;
    QQuickWindow* window = hearth::app::loadMainWindow(engine, backend);
    if (!window) return 1;
    backend.start();
    QObject::connect(&instance, &hearth::app::SingleInstance::argumentsReceived, window,
                     [&](const QStringList& files) {
                         if (!files.isEmpty())
                             backend.models()->loadDroppedFile(QUrl::fromLocalFile(files.constFirst()));
                         window->setWindowStates(window->windowStates() & ~Qt::WindowMinimized);
                         window->raise();
                         window->requestActivate();
                     });

    if (!parser.positionalArguments().isEmpty())
        backend.models()->loadDroppedFile(QUrl::fromUserInput(parser.positionalArguments().constFirst(),
                                                              QDir::currentPath(), QUrl::AssumeLocalFile));

    std::unique_ptr<hearth::app::AutomationDriver> driver;
    if (parser.isSet(script)) {
        driver = std::make_unique<hearth::app::AutomationDriver>(
            backend, *window, parser.isSet(screenshots) ? parser.value(screenshots) : QDir::currentPath());
        driver->run(parser.value(script));
    }
    return app.exec();
}
