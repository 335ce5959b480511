// Qt Quick Test runner for the QML components (tests in tests/app/qml/tst_*.qml).
// The setup gives the tests the Hearth modules, a real AppSettings backed by a temp file,
// and a real backend's ModelController (and its settings) for the model picker.
#include "app/core/app_settings.h"
#include "app/core/hearth_backend.h"
#include "app/core/model_controller.h"
#include "tests/app/qml_warnings.h"
#include "tests/support/test_support.h"
#include <QQmlContext>
#include <QQmlEngine>
#include <QtQml/qqmlextensionplugin.h>
#include <QtQuickTest>

Q_IMPORT_QML_PLUGIN(Hearth_CorePlugin)
Q_IMPORT_QML_PLUGIN(HearthPlugin)

class Setup : public QObject {
    Q_OBJECT
public slots:
    void qmlEngineAvailable(QQmlEngine* engine) {
        engine->addImportPath(QStringLiteral("qrc:/"));
        hearth::test::failOnQmlWarnings();
        const QString dir = QString::fromStdString(hearth::test::make_temp_dir("hearth-qml-test"));
        auto* settings = new hearth::app::AppSettings(dir + "/settings.ini", dir + "/models", engine);
        engine->rootContext()->setContextProperty(QStringLiteral("testSettings"), settings);
        // The model picker needs a ModelController: a whole backend with no model loaded.
        auto* backend = new hearth::app::HearthBackend({dir + "/data", dir + "/backend.ini"}, engine);
        engine->rootContext()->setContextProperty(QStringLiteral("testModels"), backend->models());
        engine->rootContext()->setContextProperty(QStringLiteral("testModelSettings"), backend->settings());
    }
};

QUICK_TEST_MAIN_WITH_SETUP(hearth_qml_components, Setup)
#include "test_qml_components.moc"
