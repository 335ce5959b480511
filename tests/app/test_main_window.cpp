// The real main window (offscreen, software-rendered) over a real backend, driven through the
// controllers as the window's own controls drive them, with a model that hearth-cli synth's
// writer makes: Qwen2.5-0.5B's shapes and types (Q5_0, Q8_0, Q4_K, Q6_K) and random weights.
// Its replies bring several kernel paths into the metrics panel's kernel list at once and its
// random text every kind of Markdown block. This path once crashed now and then (a Repeater
// whose model reset, inside a Qt 6.4 layout; seen in bench_responsiveness, not reproducible on
// demand): the test runs it as a user would, two conversations, and checks the window is up
// and the replies are there. Then it exports the conversation from the header and every one from
// the settings, imports that file back, and leaves screenshots in /tmp/export-*.png. With
// stories260K, a model's own settings in the window: the settings page names the values they
// replace, the model's card opens its dialog, the chat header shows the chat's prompt
// (screenshots in /tmp/presets-*.png). The Models page opens at its top, before and after a restart.
#include "app/chat/chat_controller.h"
#include "app/chat/conversation_files.h"
#include "app/chat/hearth_backend.h"
#include "app/chat/message_list_model.h"
#include "app/chat/preset_controller.h"
#include "app/gui/main_window.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "engine/gguf/gguf_file.h"
#include "engine/synth/synth_writer.h"
#include "tests/app/qml_warnings.h"
#include "tests/app/quick_items.h"
#include "tests/support/test_support.h"

#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QScreen>
#include <QTest>
#include <QUrl>
#include <QtQuickTest/quicktest.h>
#include <functional>

using namespace hearth;

namespace {
using hearth::test::findByName;
} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        test::failOnQmlWarnings();
        QGuiApplication::setApplicationDisplayName(QStringLiteral("Hearth")); // as main() sets it
        dir_ = QString::fromStdString(test::make_temp_dir("hearth-window"));
        model_ = dir_ + "/qwen2.5-0.5b-q4_k_m.gguf";
        gguf::SynthOptions options;
        options.shape = *gguf::find_shape("qwen2.5-0.5b");
        options.file_type = gguf::FileType::Q4_K_M;
        const auto vocab = gguf::GgufFile::open(test::testdata("vocab/ggml-vocab-qwen2.gguf"));
        gguf::synthesize(options, *vocab, model_.toStdString());
    }
    void cleanupTestCase() { QFile::remove(model_); }

    void replyFromASyntheticQwenModelInTheWindow() {
        app::prepareQuick();
        app::HearthBackend backend({dir_ + "/data", dir_ + "/settings.ini"});
        backend.settings()->setTemperature(0.0);
        backend.settings()->setMaxReplyTokens(100);
        QQmlApplicationEngine engine;
        QQuickWindow* window = app::loadMainWindow(engine, backend);
        QVERIFY(window != nullptr);
        // The first window fits its screen (the offscreen one is 800x800), down to the sidebar's
        // last item; only the minimum size may be larger.
        const QRect screen = window->screen()->availableGeometry();
        QVERIFY2(window->width() <= qMax(screen.width(), window->minimumWidth()) &&
                     window->height() <= qMax(screen.height(), window->minimumHeight()),
                 qPrintable(QStringLiteral("window %1x%2 on a screen of %3x%4")
                                .arg(window->width())
                                .arg(window->height())
                                .arg(screen.width())
                                .arg(screen.height())));
        QVERIFY(QQuickTest::qWaitForPolish(window));
        const QQuickItem* settingsEntry = findByName(window->contentItem(), QStringLiteral("nav_settings"));
        QVERIFY(settingsEntry);
        QVERIFY(settingsEntry->mapRectToScene(settingsEntry->boundingRect()).bottom() <= window->height());
        backend.start();
        QTRY_VERIFY_WITH_TIMEOUT(backend.chat()->ready(), 10000);
        backend.models()->loadDroppedFile(QUrl::fromLocalFile(model_));
        QTRY_VERIFY_WITH_TIMEOUT(backend.models()->loaded() && !backend.models()->busy(), 60000);
        // The platform appends the display name to the title: the title must not hold it too.
        QVERIFY(window->title().contains(backend.models()->modelName()));
        QVERIFY2(!window->title().contains(QGuiApplication::applicationDisplayName()),
                 qPrintable(window->title()));
        for (const char* prompt : {"Hello", "Tell me more"}) {
            backend.chat()->newConversation();
            QVERIFY(backend.chat()->send(QString::fromUtf8(prompt)));
            QTRY_VERIFY_WITH_TIMEOUT(backend.chat()->generating(), 10000);
            QTRY_VERIFY_WITH_TIMEOUT(!backend.chat()->generating(), 120000);
        }
        QVERIFY(window->isVisible());
        // The second conversation holds its turn and its reply.
        QCOMPARE(backend.chat()->messages()->rowCount(), 2);

        // The header's export: the button, a format, the file, and where it went under the button.
        app::ConversationFiles* files = backend.chat()->files();
        files->setExportFolder(dir_ + "/exports");
        QQuickItem* exportButton =
            test::findShown(window->contentItem(), QStringLiteral("exportConversation"));
        QVERIFY(exportButton);
        QVERIFY(QMetaObject::invokeMethod(exportButton, "clicked"));
        QQuickItem* asMarkdown = nullptr;
        QTRY_VERIFY(
            (asMarkdown = test::findShown(window->contentItem(), QStringLiteral("exportAs_markdown"))));
        QVERIFY(QMetaObject::invokeMethod(asMarkdown, "clicked"));
        QQuickItem* resultText = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT(
            (resultText = test::findShown(window->contentItem(), QStringLiteral("exportResultText"))), 10000);
        QVERIFY2(!files->failed(), qPrintable(files->status()));
        QVERIFY(QFile::exists(files->lastFile()));
        QVERIFY(resultText->property("text").toString().contains(files->lastFile()));
        window->grabWindow().save(QDir::tempPath() + "/export-result.png"); // to look at
        // Settings: every conversation as JSON, then that file imported back.
        window->setProperty("page", QStringLiteral("settings"));
        QTRY_VERIFY(
            !test::findShown(window->contentItem(), QStringLiteral("exportResultText"))); // the chat's
        QQuickItem* allAsJson = nullptr;
        QTRY_VERIFY((allAsJson = test::findShown(window->contentItem(), QStringLiteral("exportAll_json"))));
        QVERIFY(QMetaObject::invokeMethod(allAsJson, "clicked"));
        QTRY_VERIFY_WITH_TIMEOUT(!files->busy() && files->lastFile().endsWith(".json"), 10000);
        QVERIFY2(!files->failed(), qPrintable(files->status()));
        const int before = backend.chat()->conversations()->rowCount();
        const QString exported = files->lastFile();
        files->importFile(QUrl::fromLocalFile(exported));
        QTRY_VERIFY_WITH_TIMEOUT(backend.chat()->conversations()->rowCount() == before + 2, 10000);
        QQuickItem* status =
            test::findShown(window->contentItem(), QStringLiteral("conversationFilesStatus"));
        QVERIFY(status);
        QVERIFY2(status->property("text").toString().contains(exported), qPrintable(files->status()));
        // The section in view for the screenshot.
        QQuickItem* scroll = test::findShown(window->contentItem(), QStringLiteral("settingsScroll"));
        QVERIFY(scroll);
        auto* flick = scroll->property("contentItem").value<QQuickItem*>();
        QVERIFY(flick);
        flick->setProperty(
            "contentY",
            status->mapToItem(flick->property("contentItem").value<QQuickItem*>(), QPointF(0, 0)).y() - 300);
        QVERIFY(QQuickTest::qWaitForPolish(window));
        window->grabWindow().save(QDir::tempPath() + "/export-settings.png");
    }

    void modelPresetInTheWindow() {
        app::HearthBackend backend({dir_ + "/presets-data", dir_ + "/presets-settings.ini"});
        QQmlApplicationEngine engine;
        QQuickWindow* window = app::loadMainWindow(engine, backend);
        QVERIFY(window != nullptr);
        backend.start();
        QTRY_VERIFY_WITH_TIMEOUT(backend.chat()->ready() && backend.presets()->ready(), 10000);
        const QString stories =
            QDir::cleanPath(QString::fromStdString(test::testdata("models/stories260K.gguf")));
        QCOMPARE(backend.presets()->saveModelPreset(stories, {{"temperature", 0.25}, {"contextLength", 96}}),
                 QString());
        backend.models()->load(stories);
        QTRY_VERIFY_WITH_TIMEOUT(backend.models()->loaded() && !backend.models()->busy(), 60000);
        QCOMPARE(backend.models()->contextLength(), 96);

        window->setProperty("page", QStringLiteral("settings"));
        QQuickItem* notice = nullptr;
        QTRY_VERIFY(
            (notice = test::findShown(window->contentItem(), QStringLiteral("presetOverridesNotice"))));
        const QString text = notice->property("text").toString();
        QVERIFY2(text.contains(QStringLiteral("temperature")) &&
                     text.contains(QStringLiteral("context length")) &&
                     !text.contains(QStringLiteral("top-k")),
                 qPrintable(text));
        window->grabWindow().save(QDir::tempPath() + "/presets-settings.png");

        // The card of the loaded model says it has settings of its own and opens them.
        window->setProperty("page", QStringLiteral("models"));
        QQuickItem* button = nullptr;
        QTRY_VERIFY(
            (button = test::findShown(window->contentItem(), QStringLiteral("modelSettingsButton_0"))));
        QVERIFY(button->property("hasOwnSettings").toBool());
        QVERIFY(QMetaObject::invokeMethod(button, "clicked"));
        QQuickItem* temperatureOverride = nullptr;
        QTRY_VERIFY((temperatureOverride =
                         test::findShown(window->contentItem(), QStringLiteral("temperatureOverride"))));
        QVERIFY(temperatureOverride->property("checked").toBool());
        QVERIFY(!test::findShown(window->contentItem(), QStringLiteral("topKOverride"))
                     ->property("checked")
                     .toBool());
        QTest::qWait(500); // the dialog's opening transition, for the screenshot only
        window->grabWindow().save(QDir::tempPath() + "/presets-dialog.png");
        QVERIFY(QMetaObject::invokeMethod(
            test::findShown(window->contentItem(), QStringLiteral("presetUseGlobal")), "clicked"));
        QTRY_COMPARE_WITH_TIMEOUT(backend.models()->contextLength(), 128, 10000); // stories260K's own, capped
        // The list was read again for the new context: the card is a new one.
        QTRY_VERIFY(
            (button = test::findShown(window->contentItem(), QStringLiteral("modelSettingsButton_0"))) &&
            !button->property("hasOwnSettings").toBool());
        QVERIFY(QMetaObject::invokeMethod(
            test::findShown(window->contentItem(), QStringLiteral("presetCancel")), "clicked"));

        // The chat's header: the prompt chooser, with the chat's choice.
        window->setProperty("page", QStringLiteral("chat"));
        QQuickItem* chooser = nullptr;
        QTRY_VERIFY(
            (chooser = test::findShown(window->contentItem(), QStringLiteral("promptPresetChooser"))));
        QCOMPARE(chooser->property("chosenName").toString(), QStringLiteral("Default prompt"));
        const QString concise = QStringLiteral("built-in-concise");
        backend.presets()->choosePrompt(QString(), concise);
        QTRY_COMPARE(chooser->property("chosenName").toString(),
                     backend.presets()->prompts()->nameOf(concise));
        window->setProperty("page", QStringLiteral("settings"));
        QTRY_VERIFY(!test::findShown(window->contentItem(), QStringLiteral("presetOverridesNotice")));
        window->setProperty("page", QStringLiteral("chat"));
        QVERIFY(QQuickTest::qWaitForPolish(window));
        window->grabWindow().save(QDir::tempPath() + "/presets-chat.png");
    }

    // A load error belongs to the Models page where it came up, and clears once it no longer applies.
    void aModelErrorStaysWhereItHappened() {
        app::HearthBackend backend({dir_ + "/errors-data", dir_ + "/errors.ini"});
        QQmlApplicationEngine engine;
        QQuickWindow* window = app::loadMainWindow(engine, backend);
        QVERIFY(window != nullptr);
        backend.start();
        QTRY_VERIFY_WITH_TIMEOUT(backend.chat()->ready(), 10000);
        const auto toastShown = [window] {
            QQuickItem* toast = findByName(window->contentItem(), QStringLiteral("toast"));
            return toast && toast->isVisible();
        };
        window->setProperty("page", QStringLiteral("models"));
        const QString broken = dir_ + "/broken.gguf";
        QFile file(broken);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("not a model");
        file.close();
        backend.models()->load(broken);
        QTRY_VERIFY_WITH_TIMEOUT(!backend.models()->errorMessage().isEmpty(), 10000);
        QVERIFY(!toastShown()); // the Models page shows it in its own place
        QVERIFY(findByName(window->contentItem(), QStringLiteral("modelError"))->isVisible());
        window->setProperty("page", QStringLiteral("chat"));
        QVERIFY(QQuickTest::qWaitForPolish(window));
        QVERIFY2(!toastShown(), "the Models page's error followed the user to the chat");

        // A second load while the first runs is refused; once the first succeeds, that no longer applies.
        window->setProperty("page", QStringLiteral("models"));
        const QString stories = QString::fromStdString(test::testdata("models/stories260K.gguf"));
        backend.models()->load(stories);
        backend.models()->load(stories);
        QVERIFY(!backend.models()->errorMessage().isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(backend.models()->loaded() && !backend.models()->busy(), 60000);
        QVERIFY2(backend.models()->errorMessage().isEmpty(), qPrintable(backend.models()->errorMessage()));
        QCOMPARE(window->property("page").toString(), QStringLiteral("chat"));
        QVERIFY(!toastShown());

        // A file dropped on the chat that is not a model: the error shows over the chat.
        QVERIFY(!backend.models()->loadDroppedFile(QUrl::fromLocalFile(dir_ + "/notes.txt")));
        QVERIFY(QQuickTest::qWaitForPolish(window));
        QVERIFY(toastShown());
    }

    // The Models page opens at its top, on a first start and after a restart with a model used
    // before (its list then fills in as the scan ends): the header's top is the list's top.
    void theModelsPageOpensAtItsTop() {
        const QString folder = dir_ + "/top-models";
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(QFile::copy(QString::fromStdString(test::testdata("models/stories260K.gguf")),
                            folder + "/stories260K.gguf"));
        for (int start = 0; start < 2; ++start) {
            app::HearthBackend backend({dir_ + "/top-data", dir_ + "/top.ini"});
            if (start == 0) backend.settings()->setModelsFolder(folder);
            QQmlApplicationEngine engine;
            QQuickWindow* window = app::loadMainWindow(engine, backend);
            QVERIFY(window != nullptr);
            backend.start();
            QTRY_VERIFY_WITH_TIMEOUT(backend.chat()->ready(), 10000);
            window->setProperty("page", QStringLiteral("models"));
            QTRY_VERIFY_WITH_TIMEOUT(!backend.models()->scanning(), 10000);
            QTest::qWait(300);
            QVERIFY(QQuickTest::qWaitForPolish(window));
            auto* list =
                qobject_cast<QQuickItem*>(findByName(window->contentItem(), QStringLiteral("modelList")));
            QVERIFY(list != nullptr);
            auto* header = list->property("headerItem").value<QQuickItem*>();
            QVERIFY(header != nullptr);
            QVERIFY2(
                qAbs(header->mapToItem(list, QPointF(0, 0)).y()) < 0.5,
                qPrintable(QString("start %1: the page opened scrolled by %2 px (contentY %3, originY %4)")
                               .arg(start)
                               .arg(-header->mapToItem(list, QPointF(0, 0)).y())
                               .arg(list->property("contentY").toDouble())
                               .arg(list->property("originY").toDouble())));
            if (start == 0) {
                backend.models()->load(folder + "/stories260K.gguf");
                QTRY_VERIFY_WITH_TIMEOUT(backend.models()->loaded() && !backend.models()->busy(), 60000);
            }
        }
    }

    // An error toast covers none of the chat (it takes its own row above the page), and it goes
    // when the user moves on to another page or chat: it was about what they had just done.
    void anErrorToastCoversNothingAndStaysWithItsMoment() {
        app::HearthBackend backend({dir_ + "/toast-data", dir_ + "/toast.ini"});
        backend.settings()->setMaxReplyTokens(8);
        QQmlApplicationEngine engine;
        QQuickWindow* window = app::loadMainWindow(engine, backend);
        QVERIFY(window != nullptr);
        backend.start();
        QTRY_VERIFY_WITH_TIMEOUT(backend.chat()->ready(), 10000);
        backend.models()->load(QString::fromStdString(test::testdata("models/stories260K.gguf")));
        QTRY_VERIFY_WITH_TIMEOUT(backend.models()->loaded() && !backend.models()->busy(), 60000);
        for (const char* prompt : {"Once upon a time", "And then?"}) {
            QVERIFY(backend.chat()->send(QString::fromUtf8(prompt)));
            QTRY_VERIFY_WITH_TIMEOUT(!backend.chat()->generating(), 60000);
        }
        const QString firstChat = backend.chat()->currentConversationId();
        backend.chat()->newConversation();
        QVERIFY(backend.chat()->send(QStringLiteral("Once upon a time")));
        QTRY_VERIFY_WITH_TIMEOUT(!backend.chat()->generating(), 60000);
        QCOMPARE(window->property("page").toString(), QStringLiteral("chat"));

        QQuickItem* toast = findByName(window->contentItem(), QStringLiteral("toast"));
        QVERIFY(toast);
        const auto dropAFileThatIsNotAModel = [&] {
            QVERIFY(!backend.models()->loadDroppedFile(QUrl::fromLocalFile(dir_ + "/notes.txt")));
            QVERIFY(QQuickTest::qWaitForPolish(window));
            QVERIFY(toast->isVisible());
        };
        dropAFileThatIsNotAModel();
        // The last reply's actions and the composer are not under it.
        QQuickItem* list = findByName(window->contentItem(), QStringLiteral("messageList"));
        QTRY_VERIFY(list->property("atYEnd").toBool());
        QVERIFY(QQuickTest::qWaitForPolish(window));
        QQuickItem* lastActions = nullptr;
        const std::function<void(QQuickItem*)> findActions = [&](QQuickItem* item) {
            if (!item->isVisible()) return;
            if (item->objectName() == QLatin1String("messageActions") &&
                (!lastActions || test::sceneRect(item).y() > test::sceneRect(lastActions).y()))
                lastActions = item;
            for (QQuickItem* child : item->childItems())
                findActions(child);
        };
        findActions(list);
        QVERIFY(lastActions);
        const QRectF toastRect = test::sceneRect(toast);
        QVERIFY2(!toastRect.intersects(test::sceneRect(lastActions)),
                 "the toast covers the last reply's actions");
        QVERIFY(!toastRect.intersects(
            test::sceneRect(findByName(window->contentItem(), QStringLiteral("composer")))));

        // Another page, and back: gone.
        window->setProperty("page", QStringLiteral("settings"));
        QVERIFY(QQuickTest::qWaitForPolish(window));
        QVERIFY(!toast->isVisible());
        window->setProperty("page", QStringLiteral("chat"));
        QVERIFY(QQuickTest::qWaitForPolish(window));
        QVERIFY2(!toast->isVisible(), "the error came back with the chat page");
        // Another chat: gone.
        dropAFileThatIsNotAModel();
        backend.chat()->selectConversation(firstChat);
        QVERIFY(QQuickTest::qWaitForPolish(window));
        QVERIFY2(!toast->isVisible(), "the error followed the user to another chat");
        // The chat's own errors too (a send the chat refuses, here with no model).
        backend.models()->unload();
        QVERIFY(!backend.chat()->send(QStringLiteral("Hello")));
        QVERIFY(QQuickTest::qWaitForPolish(window));
        QVERIFY(toast->isVisible());
        window->setProperty("page", QStringLiteral("models"));
        QVERIFY(QQuickTest::qWaitForPolish(window));
        QVERIFY(!toast->isVisible());
    }

private:
    QString dir_, model_;
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
