// Qt Quick Test runner for the QML components (tests in tests/app/qml/tst_*.qml).
// The setup gives the tests the Hearth modules, a real AppSettings backed by a temp file,
// and a real backend's ModelController (and its settings) for the model picker.
#include "app/core/app_settings.h"
#include "app/core/hearth_backend.h"
#include "app/core/kernel_metrics_model.h"
#include "app/core/model_controller.h"
#include "app/core/reply_cache_history.h"
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
        // The metrics panel's lists, filled as after a long session: a kernel with a million calls
        // and a latency histogram of 24 buckets, and two replies.
        auto* kernels = new hearth::app::KernelMetricsModel(engine);
        hearth::app::KernelStats gemv{QStringLiteral("matmul_gemv"),
                                      QStringLiteral("q4_K"),
                                      QStringLiteral("avx2"),
                                      1'198'010,
                                      14'975'125'000,
                                      {}};
        gemv.histogram.resize(32);
        for (int b = 8; b < 32; ++b)
            gemv.histogram[b] = 1000 * (b - 7);
        hearth::app::KernelStats attention{
            QStringLiteral("attention"), QStringLiteral("f16"), QStringLiteral("scalar"), 52, 161'200, {}};
        attention.histogram.resize(32);
        attention.histogram[11] = 52;
        kernels->update({gemv, attention});
        engine->rootContext()->setContextProperty(QStringLiteral("testKernels"), kernels);
        auto* replies =
            new hearth::app::ReplyCacheHistory(hearth::app::ReplyCacheHistory::kDefaultCapacity, engine);
        hearth::app::GenerationResult first;
        first.computedTokens = 40;
        replies->record(first);
        hearth::app::GenerationResult second;
        second.reusedTokens = 100;
        second.computedTokens = 20;
        replies->record(second);
        engine->rootContext()->setContextProperty(QStringLiteral("testReplies"), replies);
    }
};

QUICK_TEST_MAIN_WITH_SETUP(hearth_qml_components, Setup)
#include "test_qml_components.moc"
