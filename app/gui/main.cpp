// hearth: the desktop app. Opens the main window over the backend; a model
// file given on the command line is loaded the way a dropped file is.
#include "app/core/hearth_backend.h"
#include "app/core/model_controller.h"
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
    parser.setApplicationDescription(QStringLiteral("Chat with language models on your own computer."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption dataDir(
        QStringLiteral("data-dir"),
        QStringLiteral("Keep conversations in <dir> (default: the standard app-data place)."),
        QStringLiteral("dir"));
    const QCommandLineOption settingsFile(QStringLiteral("settings"),
                                          QStringLiteral("Read and write settings in the INI file <file>."),
                                          QStringLiteral("file"));
    const QCommandLineOption script(QStringLiteral("script"),
                                    QStringLiteral("Run the automation script <file> (end-to-end tests)."),
                                    QStringLiteral("file"));
    const QCommandLineOption screenshots(QStringLiteral("screenshots"),
                                         QStringLiteral("Where the script's screenshots go."),
                                         QStringLiteral("dir"));
    parser.addOptions({dataDir, settingsFile, script, screenshots});
    parser.addPositionalArgument(QStringLiteral("model"), QStringLiteral("A .gguf model file to load."),
                                 QStringLiteral("[model]"));
    parser.process(app);

    hearth::app::prepareQuick();
    hearth::app::HearthBackend backend(
        hearth::app::AppPaths::resolve(parser.value(dataDir), parser.value(settingsFile)));
    QQmlApplicationEngine engine;
    QQuickWindow* window = hearth::app::loadMainWindow(engine, backend);
    if (!window) return 1;
    backend.start();

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
