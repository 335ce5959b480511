#include "app/gui/main_window.h"
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/gui/message_image_provider.h"
#include "app/gui/translations.h"
#include "app/metrics/metrics_controller.h"
#include "app/models/download_controller.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include <QGuiApplication>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QtQml/qqmlextensionplugin.h>

Q_IMPORT_QML_PLUGIN(Hearth_ChatPlugin)
Q_IMPORT_QML_PLUGIN(Hearth_MetricsPlugin)
Q_IMPORT_QML_PLUGIN(Hearth_ModelsPlugin)
Q_IMPORT_QML_PLUGIN(Hearth_SettingsPlugin)
Q_IMPORT_QML_PLUGIN(Hearth_ToolsPlugin)
Q_IMPORT_QML_PLUGIN(HearthPlugin)

namespace hearth::app {
namespace {

// True when OpenGL is really the CPU: Mesa's llvmpipe or softpipe (Xvfb, remote desktops,
// machines without a GPU driver), or no OpenGL at all.
bool openGlRunsOnTheCpu() {
    QOpenGLContext context;
    if (!context.create()) return true;
    QOffscreenSurface surface;
    surface.setFormat(context.format());
    surface.create();
    if (!context.makeCurrent(&surface)) return true;
    const auto* renderer = reinterpret_cast<const char*>(context.functions()->glGetString(GL_RENDERER));
    const QByteArray name = renderer ? QByteArray(renderer).toLower() : QByteArray();
    context.doneCurrent();
    return name.isEmpty() || name.contains("llvmpipe") || name.contains("softpipe") ||
           name.contains("software rasterizer");
}

} // namespace

void prepareQuick() {
    if (qEnvironmentVariableIsEmpty("QT_QUICK_CONTROLS_STYLE"))
        QQuickStyle::setStyle(QStringLiteral("Material"));
    // Without a GPU, Qt Quick's software renderer: the offscreen platform (tests, screenshots)
    // has no OpenGL, and a GL emulated on the CPU (llvmpipe) redraws the whole window on the
    // cores that generation needs, where the software renderer repaints only what changed and
    // leaves generation nearly all of the CPU.
    if (!qEnvironmentVariableIsEmpty("QT_QUICK_BACKEND")) return;
    if (QGuiApplication::platformName() == QLatin1String("offscreen") || openGlRunsOnTheCpu())
        QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);
}

QQuickWindow* loadMainWindow(QQmlApplicationEngine& engine, HearthBackend& backend) {
    // Qt 6.4 has no loadFromModule: the modules are resources under qrc:/.
    engine.addImportPath(QStringLiteral("qrc:/"));
    // The chat's images, for thumbnails and the large view; the engine owns the provider.
    engine.addImageProvider(QString::fromLatin1(MessageImageProvider::kProviderId),
                            new MessageImageProvider(backend.chat()->imageLibrary()));
    engine.setInitialProperties({
        {QStringLiteral("chat"), QVariant::fromValue(backend.chat())},
        {QStringLiteral("models"), QVariant::fromValue(backend.models())},
        {QStringLiteral("settings"), QVariant::fromValue(backend.settings())},
        {QStringLiteral("metrics"), QVariant::fromValue(backend.metrics())},
        {QStringLiteral("downloads"), QVariant::fromValue(backend.downloads())},
        {QStringLiteral("backend"), QVariant::fromValue(&backend)},
    });
    // The language chosen in the settings, and a new choice at once: the window's words follow.
    AppSettings* settings = backend.settings();
    if (!settings->language().isEmpty())
        installTranslations(*QCoreApplication::instance(), settings->language());
    QObject::connect(settings, &AppSettings::languageChanged, &engine, [&engine, settings] {
        installTranslations(*QCoreApplication::instance(), settings->language());
        engine.retranslate();
    });
    engine.load(QUrl(QStringLiteral("qrc:/Hearth/Main.qml")));
    if (engine.rootObjects().isEmpty()) return nullptr;
    return qobject_cast<QQuickWindow*>(engine.rootObjects().constFirst());
}

} // namespace hearth::app
