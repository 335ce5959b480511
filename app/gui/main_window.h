#pragma once
// Builds the QML engine's main window over a backend: used by the app and by
// the responsiveness benchmark, so both run the very same UI.
class QQmlApplicationEngine;
class QQuickWindow;

namespace hearth::app {

class HearthBackend;

// Chooses the Controls style and, on the offscreen platform, the software
// renderer. Call after the QGuiApplication exists and before any window.
void prepareQuick();
// Loads Main.qml with the backend's controllers; nullptr (with the QML errors printed) on failure.
QQuickWindow* loadMainWindow(QQmlApplicationEngine& engine, HearthBackend& backend);

} // namespace hearth::app
