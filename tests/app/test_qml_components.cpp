// Qt Quick Test runner for the QML components (tests in tests/app/qml/tst_*.qml).
// The setup gives the tests the Hearth modules, a real AppSettings backed by a temp file,
// a real backend's ModelController (and its settings) for the model picker, its presets for the
// model settings dialog and the prompt chooser, and real list models for the metrics panel, the
// reply chart and the chat view; the window's image provider over a library holding one
// generated picture (testImageSha256), for the thumbnails.
#include "app/chat/hearth_backend.h"
#include "app/chat/image_library.h"
#include "app/chat/message_images.h"
#include "app/chat/message_list_model.h"
#include "app/chat/preset_controller.h"
#include "app/gui/message_image_provider.h"
#include "app/gui/translations.h"
#include "app/metrics/kernel_metrics_model.h"
#include "app/metrics/reply_cache_history.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "tests/app/qml_warnings.h"
#include "tests/support/test_support.h"
#include <QBuffer>
#include <QDir>
#include <QImage>
#include <QLocale>
#include <QQmlContext>
#include <QQmlEngine>
#include <QtQml/qqmlextensionplugin.h>
#include <QtQuickTest>

Q_IMPORT_QML_PLUGIN(Hearth_ChatPlugin)
Q_IMPORT_QML_PLUGIN(Hearth_MetricsPlugin)
Q_IMPORT_QML_PLUGIN(Hearth_ModelsPlugin)
Q_IMPORT_QML_PLUGIN(Hearth_SettingsPlugin)
Q_IMPORT_QML_PLUGIN(HearthPlugin)

class Setup : public QObject {
    Q_OBJECT

    // The reply chart's history: room for 4 replies, 5 recorded (the first, the largest, has
    // dropped out), the third resumed from a saved state.
    static hearth::app::ReplyCacheHistory* replyChartHistory(QObject* parent) {
        auto* history = new hearth::app::ReplyCacheHistory(4, parent);
        const struct {
            int reused, computed;
            bool restored;
        } replies[] = {{0, 900, false}, {0, 60, false}, {60, 30, true}, {90, 10, false}, {100, 20, false}};
        for (const auto& reply : replies) {
            hearth::app::GenerationResult result;
            result.stats.reused_tokens = reply.reused;
            result.stats.computed_tokens = reply.computed;
            result.resume.restored = reply.restored;
            history->record(result);
        }
        return history;
    }

    // The chat view's conversation: 12 turns, taller than the view, the last reply prose, a code
    // block and prose again, with its stats.
    static hearth::app::MessageListModel* longConversation(QObject* parent) {
        const QString conversation = QStringLiteral("conversation");
        auto* messages = new hearth::app::MessageListModel(conversation, parent);
        QList<hearth::app::MessageRecord> records;
        for (int turn = 1; turn <= 12; ++turn) {
            const bool last = turn == 12;
            records.append({hearth::app::newRecordId(),
                            conversation,
                            2 * turn - 2,
                            hearth::chat::Role::User,
                            QStringLiteral("Question %1").arg(turn),
                            hearth::app::MessageState::Complete,
                            {},
                            {},
                            {},
                            true,
                            {},
                            {}});
            records.append(
                {hearth::app::newRecordId(),
                 conversation,
                 2 * turn - 1,
                 hearth::chat::Role::Assistant,
                 last ? QStringLiteral("Here is a loop:\n\n```python\nfor i in range(3):\n    print(i)\n```"
                                       "\n\nIt prints three numbers.")
                      : QStringLiteral("Answer %1, long enough to take a few lines in a narrow column "
                                       "of the chat view, as replies do.")
                            .arg(turn),
                 hearth::app::MessageState::Complete,
                 {},
                 {},
                 {},
                 true,
                 {},
                 {}});
        }
        for (qsizetype i = 1; i < records.size(); ++i) // one branch: each follows the one before
            records[i].parentId = records.at(i - 1).id;
        messages->setMessages(records);
        messages->setStats(records.constLast().id, QStringLiteral("48 tokens · 212 tok/s"));
        return messages;
    }

    // A 64x48 picture, orange on the left half and blue on the right, as a PNG.
    static hearth::app::MessageImage testImage() {
        QImage picture(64, 48, QImage::Format_RGB32);
        picture.fill(QColor(240, 123, 63));
        for (int y = 0; y < picture.height(); ++y)
            for (int x = picture.width() / 2; x < picture.width(); ++x)
                picture.setPixelColor(x, y, QColor(40, 90, 220));
        QByteArray bytes;
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        picture.save(&buffer, "PNG");
        return hearth::app::messageImage(bytes, QStringLiteral("halves.png"));
    }

public slots:
    // The tests read the English texts whatever the machine's language; the English translation
    // gives them its plural forms, as in the app.
    void applicationAvailable() {
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        hearth::app::installTranslations(*QCoreApplication::instance());
    }

    void qmlEngineAvailable(QQmlEngine* engine) {
        // A QML warning fails the test function that is running (once, before the first file).
        hearth::test::failQuickTestsOnQmlWarnings(*engine);
        engine->addImportPath(QStringLiteral("qrc:/"));
        const QString dir = QString::fromStdString(hearth::test::make_temp_dir("hearth-qml-test"));
        auto* settings = new hearth::app::AppSettings(dir + "/settings.ini", dir + "/models", engine);
        engine->rootContext()->setContextProperty(QStringLiteral("testSettings"), settings);
        // The model picker needs a ModelController: a whole backend with no model loaded.
        auto* backend = new hearth::app::HearthBackend({dir + "/data", dir + "/backend.ini"}, engine);
        engine->rootContext()->setContextProperty(QStringLiteral("testModels"), backend->models());
        engine->rootContext()->setContextProperty(QStringLiteral("testModelSettings"), backend->settings());
        // The model settings dialog and the prompt chooser: that backend's presets, over its database,
        // for the stories model's file (its preset lives in the database, the file is only read).
        engine->rootContext()->setContextProperty(QStringLiteral("testPresets"), backend->presets());
        engine->rootContext()->setContextProperty(
            QStringLiteral("testPresetModelPath"),
            QDir::cleanPath(QString::fromStdString(hearth::test::testdata("models/stories260K.gguf"))));
        backend->presets()->start();
        // The metrics panel's lists, filled as after a long session: a kernel with a million calls
        // and a latency histogram of 24 buckets, a GPU's operation, and two replies.
        auto* kernels = new hearth::app::KernelMetricsModel(engine);
        hearth::app::KernelStats gemv{QStringLiteral("matmul_gemv"),
                                      QStringLiteral("q4_K"),
                                      QStringLiteral("avx2"),
                                      1'198'010,
                                      14'975'125'000,
                                      {},
                                      QStringLiteral("gemv_q4_K_q8_K_interleaved16")};
        gemv.histogram.resize(32);
        for (int b = 8; b < 32; ++b)
            gemv.histogram[b] = 1000 * (b - 7);
        hearth::app::KernelStats attention{
            QStringLiteral("attention"), QStringLiteral("f16"), QStringLiteral("scalar"), 52, 161'200, {},
            QStringLiteral("attend_ref")};
        attention.histogram.resize(32);
        attention.histogram[11] = 52;
        // And what a GPU ran: dispatches and GPU time, no histogram.
        const hearth::app::KernelStats gpuMatmul{
            QStringLiteral("matmul"), QString(), QStringLiteral("GPU"),    2'403'115,
            48'062'300'000,           {},        QStringLiteral("matmul"), true};
        kernels->update({gemv, attention, gpuMatmul});
        engine->rootContext()->setContextProperty(QStringLiteral("testKernels"), kernels);
        auto* replies =
            new hearth::app::ReplyCacheHistory(hearth::app::ReplyCacheHistory::kDefaultCapacity, engine);
        hearth::app::GenerationResult first;
        first.stats.computed_tokens = 40;
        replies->record(first);
        hearth::app::GenerationResult second;
        second.stats.reused_tokens = 100;
        second.stats.computed_tokens = 20;
        replies->record(second);
        engine->rootContext()->setContextProperty(QStringLiteral("testReplies"), replies);
        engine->rootContext()->setContextProperty(QStringLiteral("testReplyChartHistory"),
                                                  replyChartHistory(engine));
        engine->rootContext()->setContextProperty(QStringLiteral("testMessages"), longConversation(engine));
        auto images = std::make_shared<hearth::app::ImageLibrary>();
        const hearth::app::MessageImage image = testImage();
        images->setImages(QStringLiteral("tests"), {image});
        engine->addImageProvider(QString::fromLatin1(hearth::app::MessageImageProvider::kProviderId),
                                 new hearth::app::MessageImageProvider(images));
        engine->rootContext()->setContextProperty(QStringLiteral("testImageSha256"), image.sha256);
    }
};

QUICK_TEST_MAIN_WITH_SETUP(hearth_qml_components, Setup)
#include "test_qml_components.moc"
