#include "app/gui/main_window.h"
#include "app/core/app_settings.h"
#include "app/core/chat_controller.h"
#include "app/core/hearth_backend.h"
#include "app/core/metrics_controller.h"
#include "app/core/model_controller.h"
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QtQml/qqmlextensionplugin.h>

Q_IMPORT_QML_PLUGIN(Hearth_CorePlugin)
Q_IMPORT_QML_PLUGIN(HearthPlugin)

namespace hearth::app {

void prepareQuick() {
    if (qEnvironmentVariableIsEmpty("QT_QUICK_CONTROLS_STYLE"))
        QQuickStyle::setStyle(QStringLiteral("Material"));
    // The offscreen platform (tests, screenshots) has no OpenGL; draw in software there.
    if (QGuiApplication::platformName() == QLatin1String("offscreen") &&
        qEnvironmentVariableIsEmpty("QT_QUICK_BACKEND"))
        QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);
}

QQuickWindow* loadMainWindow(QQmlApplicationEngine& engine, HearthBackend& backend) {
    // Qt 6.4 has no loadFromModule: the modules are resources under qrc:/.
    engine.addImportPath(QStringLiteral("qrc:/"));
    engine.setInitialProperties({
        {QStringLiteral("chat"), QVariant::fromValue(backend.chat())},
        {QStringLiteral("models"), QVariant::fromValue(backend.models())},
        {QStringLiteral("settings"), QVariant::fromValue(backend.settings())},
        {QStringLiteral("metrics"), QVariant::fromValue(backend.metrics())},
    });
    engine.load(QUrl(QStringLiteral("qrc:/Hearth/Main.qml")));
    if (engine.rootObjects().isEmpty()) return nullptr;
    return qobject_cast<QQuickWindow*>(engine.rootObjects().constFirst());
}

} // namespace hearth::app
