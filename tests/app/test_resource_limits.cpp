// Resource limits through the real backend: a model larger than the memory the system has
// free, or a context whose KV cache would not fit, is refused before loading with a message
// that gives the numbers, and the model loaded before stays loaded and answers. The free
// memory is what HEARTH_AVAILABLE_MEMORY says, as on a smaller machine. A full disk while a
// KV state is saved loses nothing (the database's full disk: test_persistence).
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/chat/message_list_model.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "app/storage/conversation_store.h"
#include "engine/model/memory_check.h"
#include "tests/app/backend_fixture.h"
#include "tests/app/file_size_limit.h"
#include <QSignalSpy>
#include <QTest>

using namespace hearth::app;
using hearth::engine::format_memory;
using hearth::kernels::TensorType;

class TestResourceLimits : public QObject {
    Q_OBJECT

    QString dir_;
    AppPaths paths() const { return {dir_ + "/data", dir_ + "/settings.ini"}; }
    static QString otherModelPath() {
        return QDir::cleanPath(QString::fromStdString(hearth::test::testdata("models/tiny-llama3.gguf")));
    }
    static QString text(int64_t bytes) { return QString::fromStdString(format_memory(bytes)); }

    // Loads `path`; true when it loaded, else the message the models page shows is in *error.
    static bool load(HearthBackend& b, const QString& path, QString* error) {
        QSignalSpy ready(b.models(), &ModelController::modelReady);
        QSignalSpy failed(b.models(), &ModelController::loadFailed);
        b.models()->load(path);
        if (!QTest::qWaitFor([&] { return !ready.isEmpty() || !failed.isEmpty(); }, 30000)) return false;
        *error = b.models()->errorMessage();
        return !ready.isEmpty();
    }

    // The loaded model still answers.
    static bool replies(HearthBackend& b) {
        b.settings()->setMaxReplyTokens(4);
        const int before = b.chat()->messages()->count();
        if (!b.chat()->send("Once upon a time") || !hearth::test::finishReply(b.chat())) return false;
        return b.chat()->messages()->count() == before + 2 && b.chat()->errorMessage().isEmpty();
    }

private slots:
    void init() {
        dir_ = QString::fromStdString(hearth::test::make_temp_dir("hearth-limits"));
        qunsetenv("HEARTH_AVAILABLE_MEMORY");
    }
    void cleanup() { qunsetenv("HEARTH_AVAILABLE_MEMORY"); }

    void modelLargerThanTheFreeMemoryIsRefused() {
        HearthBackend b(paths());
        QVERIFY(hearth::test::startChat(b));
        QVERIFY(hearth::test::loadModel(b));
        const hearth::engine::ModelInfo info =
            hearth::engine::Model::read_info(otherModelPath().toStdString());
        const int64_t available = info.file_bytes / 2;
        qputenv("HEARTH_AVAILABLE_MEMORY", QByteArray::number(qint64(available)));

        QString error;
        QVERIFY(!load(b, otherModelPath(), &error));
        QVERIFY2(error.contains("tiny-llama3.gguf: needs "), qPrintable(error));
        QVERIFY2(error.contains(text(info.file_bytes) + " of weights"), qPrintable(error));
        QVERIFY2(error.contains("only " + text(available) + " is available"), qPrintable(error));
        QVERIFY2(!error.contains("shorter context"), qPrintable(error)); // no context makes it fit
        QVERIFY(b.models()->loaded());
        QCOMPARE(b.models()->modelPath(), hearth::test::storiesModelPath());
        QVERIFY(replies(b));

        qunsetenv("HEARTH_AVAILABLE_MEMORY"); // this machine's real figure: it fits
        QVERIFY2(load(b, otherModelPath(), &error), qPrintable(error));
        QVERIFY(error.isEmpty());
    }

    void contextWhoseCacheDoesNotFitIsRefused() {
        HearthBackend b(paths());
        QVERIFY(hearth::test::startChat(b));
        QVERIFY(hearth::test::loadModel(b));
        const hearth::engine::ModelInfo info =
            hearth::engine::Model::read_info(otherModelPath().toStdString());
        const int context = info.context_length > 0 ? std::min(1024, info.context_length) : 1024;
        b.settings()->setContextLength(1024);
        const auto f16 = hearth::engine::memory_need(info, context, TensorType::F16, TensorType::F16);
        // The weights fit, and a Q8_0 cache (17/32 of F16's) would, but not an F16 one.
        const int64_t available = f16.weight_bytes + f16.kv_cache_bytes * 6 / 10;
        qputenv("HEARTH_AVAILABLE_MEMORY", QByteArray::number(qint64(available)));

        QString error;
        QVERIFY(!load(b, otherModelPath(), &error));
        QVERIFY2(error.contains(text(f16.total())), qPrintable(error));
        QVERIFY2(error.contains(
                     QString("%1 of KV cache for %2 tokens").arg(text(f16.kv_cache_bytes)).arg(context)),
                 qPrintable(error));
        QVERIFY2(error.contains("only " + text(available) + " is available"), qPrintable(error));
        QVERIFY2(error.contains("shorter context or a quantized KV cache"), qPrintable(error));
        QCOMPARE(b.models()->modelPath(), hearth::test::storiesModelPath());
        QVERIFY(replies(b));

        // The way out the message names: a quantized cache.
        b.settings()->setKeyCacheType("q8_0");
        b.settings()->setValueCacheType("q8_0");
        QVERIFY2(load(b, otherModelPath(), &error), qPrintable(error));
        QCOMPARE(b.models()->modelPath(), otherModelPath());
    }

    // A full disk while the KV state is saved (at a model switch): the state is a cache, so the
    // save gives up without a trace (no half-written file) and the conversation, which the
    // database and the window hold, continues with a re-prefill once the model is back.
    void fullDiskWhileSavingTheKvStateLosesNothing() {
        HearthBackend b(paths());
        QVERIFY(hearth::test::startChat(b));
        QVERIFY(hearth::test::loadModel(b));
        b.settings()->setMaxReplyTokens(4);
        QVERIFY(b.chat()->send("Once upon a time") && hearth::test::finishReply(b.chat()));
        const QString conversation = b.chat()->currentConversationId();
        b.store()->waitForIdle();
        b.settings()->flush();
        QString error;
        {
            hearth::test::FileSizeLimit full(1024); // far less than the state
            QVERIFY(full.ok());
            QVERIFY2(load(b, otherModelPath(), &error), qPrintable(error)); // saves stories' sessions
        }
        QVERIFY(QDir(paths().kvStateDir()).entryList(QDir::Files).isEmpty());
        QVERIFY2(load(b, hearth::test::storiesModelPath(), &error), qPrintable(error));
        QCOMPARE(b.chat()->currentConversationId(), conversation);
        QVERIFY(b.chat()->send("And then?") && hearth::test::finishReply(b.chat()));
        QCOMPARE(b.chat()->messages()->count(), 4);
        QCOMPARE(b.chat()->messages()->messages().constLast().state, MessageState::Complete);
        QVERIFY(b.chat()->errorMessage().isEmpty());
    }
};

QTEST_MAIN(TestResourceLimits)
#include "test_resource_limits.moc"
