// hearth-scripted: the desktop app with the automation driver, for the end-to-end test. The
// same run as hearth (app_main.cpp), plus --script FILE and --screenshots DIR. Test-only: not
// installed, not packaged.
#include "app/gui/app_main.h"
#include "tests/app/automation/automation_driver.h"

#include <QCoreApplication>
#include <QDir>
#include <memory>

int main(int argc, char** argv) {
    using namespace hearth::app;
    const QCommandLineOption script(QStringLiteral("script"),
                                    QStringLiteral("Run the automation script <file>."),
                                    QStringLiteral("file"));
    const QCommandLineOption screenshots(QStringLiteral("screenshots"),
                                         QStringLiteral("Where the script's screenshots go."),
                                         QStringLiteral("dir"));
    std::unique_ptr<AutomationDriver> driver;
    StartHooks hooks;
    hooks.addOptions = [&](QCommandLineParser& parser) { parser.addOptions({script, screenshots}); };
    hooks.started = [&](const QCommandLineParser& parser, HearthBackend& backend, QQuickWindow& window) {
        if (!parser.isSet(script)) return;
        driver = std::make_unique<AutomationDriver>(
            backend, window, parser.isSet(screenshots) ? parser.value(screenshots) : QDir::currentPath());
        driver->run(parser.value(script));
    };
    return runHearth(argc, argv, hooks);
}
