#pragma once
// The real window over a HearthBackend in a profile of its own under a temporary folder, for the
// suites that drive the window as a person would.
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/gui/main_window.h"
#include "tests/support/test_support.h"
#include <QQmlApplicationEngine>
#include <QQuickWindow>
#include <QTest>
#include <functional>
#include <memory>

namespace hearth::test {

struct MainWindowFixture {
    QString dir; // the profile's folder: data/ and settings.ini
    std::unique_ptr<app::HearthBackend> backend;
    std::unique_ptr<QQmlApplicationEngine> engine;
    QQuickWindow* window = nullptr;

    // `configure` sets the backend up (settings, folders) before the window loads; then the
    // backend starts and the window is active. False when a step failed.
    bool open(const char* name,
              const std::function<void(app::HearthBackend&, const QString& dir)>& configure) {
        dir = QString::fromStdString(make_temp_dir(name));
        app::prepareQuick();
        backend = std::make_unique<app::HearthBackend>(app::AppPaths{dir + "/data", dir + "/settings.ini"});
        if (configure) configure(*backend, dir);
        engine = std::make_unique<QQmlApplicationEngine>();
        window = app::loadMainWindow(*engine, *backend);
        if (!window) return false;
        backend->start();
        if (!QTest::qWaitFor([&] { return backend->chat()->ready(); }, 10000)) return false;
        window->requestActivate();
        return QTest::qWaitForWindowActive(window);
    }
    void close() {
        engine.reset();
        backend.reset();
        window = nullptr;
    }
};

} // namespace hearth::test
