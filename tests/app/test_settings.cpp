// Settings apply at once (signals), are range-checked, and are there after a restart; a
// folder chosen in a dialog (a URL) becomes its real path. The standard data folder names the app once.
#include "app/platform/app_paths.h"
#include "app/settings/app_settings.h"
#include "engine/sampling/sampler.h"
#include "tests/support/test_support.h"
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QThread>

using namespace hearth::app;

class TestSettings : public QObject {
    Q_OBJECT

    QString iniFile() {
        return QString::fromStdString(hearth::test::make_temp_dir("hearth-settings")) + "/hearth.ini";
    }

private slots:
    // "0 threads" is automatic, and means what it means to the engine: one per hardware thread.
    // The engine resolves it (engine::resolve_threads): the config carries the setting as it is.
    void automaticThreadsAreOnePerHardwareThread() {
        QCOMPARE(AppSettings::automaticThreads(0), std::max(1, QThread::idealThreadCount()));
        QCOMPARE(AppSettings::automaticThreads(3), 3);
        AppSettings s(QString::fromStdString(hearth::test::make_temp_dir("hearth-threads")) + "/s.ini", "/m");
        QCOMPARE(s.threads(), 0); // the default: automatic
        QCOMPARE(s.engineConfig().threads, 0);
        s.setThreads(1);
        QCOMPARE(s.engineConfig().threads, 1);
    }

    void defaults() {
        AppSettings s(iniFile(), "/models");
        QCOMPARE(s.temperature(), 0.8);
        QCOMPARE(s.topK(), 40);
        QCOMPARE(s.seed(), -1);
        QCOMPARE(s.theme(), QStringLiteral("system"));
        QCOMPARE(s.modelsFolder(), QStringLiteral("/models"));
        QVERIFY(s.recentModels().isEmpty());
    }

    // The sampling defaults are set once, in the engine (hearth-cli samples with the same): a new
    // settings file, a reset, and a request nothing filled in all start from them.
    void samplingDefaultsAreTheEngines() {
        const hearth::engine::SamplingParams engine;
        const auto areTheEngines = [&](double temperature, int topK, double topP, double minP,
                                       double repeatPenalty) {
            return static_cast<float>(temperature) == engine.temperature && topK == engine.top_k &&
                   static_cast<float>(topP) == engine.top_p && static_cast<float>(minP) == engine.min_p &&
                   static_cast<float>(repeatPenalty) == engine.repeat_penalty;
        };
        AppSettings s(iniFile(), "/models");
        QVERIFY(areTheEngines(s.temperature(), s.topK(), s.topP(), s.minP(), s.repeatPenalty()));
        s.setTemperature(1.5);
        s.setTopK(3);
        s.setTopP(0.5);
        s.setMinP(0.2);
        s.setRepeatPenalty(1.7);
        QVERIFY(!areTheEngines(s.temperature(), s.topK(), s.topP(), s.minP(), s.repeatPenalty()));
        s.resetSampling();
        QVERIFY(areTheEngines(s.temperature(), s.topK(), s.topP(), s.minP(), s.repeatPenalty()));
    }

    void changesSignalAndPersist() {
        const QString file = iniFile();
        {
            AppSettings s(file, "/models");
            QSignalSpy changed(&s, &AppSettings::changed);
            QSignalSpy engine(&s, &AppSettings::engineConfigChanged);
            QSignalSpy appearance(&s, &AppSettings::appearanceChanged);
            QSignalSpy folder(&s, &AppSettings::modelsFolderChanged);
            s.setSystemPrompt("Be brief.");
            s.setTemperature(0.3);
            s.setTopK(12);
            s.setTopP(0.9);
            s.setMinP(0.1);
            s.setRepeatPenalty(1.2);
            s.setSeed(42);
            s.setMaxReplyTokens(300);
            s.setContextLength(4096);
            s.setThreads(2);
            s.setModelsFolder("/srv/models");
            s.setTheme("dark");
            s.setFontSize(13);
            QSignalSpy savedStates(&s, &AppSettings::savedStatesChanged);
            s.setCompressSavedStates(true);
            s.setCompressSavedStates(true); // unchanged: no signal
            QCOMPARE(savedStates.count(), 1);
            s.setTemperature(0.3); // unchanged: no signal
            QCOMPARE(changed.count(), 8);
            QCOMPARE(engine.count(), 2);
            QCOMPARE(appearance.count(), 2);
            QCOMPARE(folder.count(), 1);
        } // destroyed: writes what is pending
        AppSettings s(file, "/models");
        QCOMPARE(s.systemPrompt(), QStringLiteral("Be brief."));
        QCOMPARE(s.temperature(), 0.3);
        QCOMPARE(s.topK(), 12);
        QCOMPARE(s.topP(), 0.9);
        QCOMPARE(s.minP(), 0.1);
        QCOMPARE(s.repeatPenalty(), 1.2);
        QCOMPARE(s.seed(), 42);
        QCOMPARE(s.maxReplyTokens(), 300);
        QCOMPARE(s.contextLength(), 4096);
        QCOMPARE(s.threads(), 2);
        QCOMPARE(s.modelsFolder(), QStringLiteral("/srv/models"));
        QCOMPARE(s.theme(), QStringLiteral("dark"));
        QCOMPARE(s.fontSize(), 13);
        QCOMPARE(s.compressSavedStates(), true);
        s.setCompressSavedStates(false);
        s.flush();
        QCOMPARE(AppSettings(file, "/models").compressSavedStates(), false);
        QCOMPARE(QSettings(file, QSettings::IniFormat).value("engine/compressSavedStates").toBool(), false);
    }

    // The KV cache types are the engine's: its list, its names, and typed in the EngineConfig, as
    // are the conversations' memory and the saved states' format (every engine setting, one value).
    void engineConfigCarriesEveryEngineSettingTyped() {
        using hearth::kernels::TensorType;
        AppSettings s(iniFile(), "/models");
        QCOMPARE(AppSettings::cacheTypes(), (QStringList{"f16", "q8_0", "q4_0"}));
        QCOMPARE(s.engineConfig().cache_types, hearth::engine::KvCacheTypes{});
        s.setKeyCacheType("q8_0");
        s.setValueCacheType("q4_0");
        QCOMPARE(s.keyCacheType(), QStringLiteral("q8_0"));
        QCOMPARE(s.engineConfig().cache_types,
                 (hearth::engine::KvCacheTypes{TensorType::Q8_0, TensorType::Q4_0}));
        s.setValueCacheType("q5_1"); // not a cache type: F16
        QCOMPARE(s.valueCacheType(), QStringLiteral("f16"));
        QCOMPARE(s.engineConfig().cache_types.values, TensorType::F16);

        s.setConversationMemoryMB(64);
        s.setCompressSavedStates(true);
        QCOMPARE(s.engineConfig().memory_budget_bytes, size_t{64'000'000});
        QCOMPARE(s.engineConfig().saved_format, hearth::engine::KvStateFormat::Q8_0);
    }

    // A reply's options, in the engine's types: the sampling, the length and the template as set;
    // the seed as set, or a new one for every reply at -1.
    void generationOptionsFollowTheSettings() {
        AppSettings s(iniFile(), "/models");
        s.setTemperature(0.5);
        s.setTopK(7);
        s.setMaxReplyTokens(33);
        s.setChatTemplate("{{ messages }}");
        s.setSeed(42);
        const hearth::engine::GenerationOptions options = s.generationOptions();
        QCOMPARE(options.sampling.temperature, 0.5f);
        QCOMPARE(options.sampling.top_k, 7);
        QCOMPARE(options.max_tokens, 33);
        QCOMPARE(options.template_override, std::string("{{ messages }}"));
        QCOMPARE(options.sampling.seed, uint64_t{42});
        s.setSeed(-1);
        QVERIFY(s.generationOptions().sampling.seed != s.generationOptions().sampling.seed);
    }

    // The compute device and the layers on the GPU: CPU and automatic at first, then what was
    // chosen, after a restart too, and in the EngineConfig the worker gets.
    void computeDeviceAndGpuLayersPersist() {
        const QString file = iniFile();
        {
            AppSettings s(file, "/models");
            QCOMPARE(s.computeDevice(), QStringLiteral("cpu"));
            QCOMPARE(s.gpuLayers(), -1);
            QCOMPARE(s.engineConfig().device, hearth::engine::ComputeDevice{});
            QSignalSpy engine(&s, &AppSettings::engineConfigChanged);
            s.setComputeDevice("Vulkan:1"); // the engine's spelling is stored
            s.setGpuLayers(12);
            s.setGpuLayers(12); // unchanged: no signal
            QCOMPARE(engine.count(), 2);
            QCOMPARE(s.engineConfig().gpu_layers, 12);
            const hearth::engine::ComputeDevice gpu = s.engineConfig().device;
            QCOMPARE(gpu.kind, hearth::engine::ComputeDevice::Kind::Vulkan);
            QCOMPARE(gpu.index, 1);
        }
        {
            AppSettings s(file, "/models");
            QCOMPARE(s.computeDevice(), QStringLiteral("vulkan:1"));
            QCOMPARE(s.gpuLayers(), 12);
            s.setGpuLayers(-1);
            s.setComputeDevice("cpu");
        }
        AppSettings s(file, "/models");
        QCOMPARE(s.computeDevice(), QStringLiteral("cpu"));
        QCOMPARE(s.gpuLayers(), -1);
    }

    // A device name the engine does not read, in the file or set, is the CPU.
    void anUnknownComputeDeviceIsTheCpu() {
        const QString file = iniFile();
        {
            QSettings raw(file, QSettings::IniFormat);
            raw.setValue("engine/computeDevice", "cuda:0");
            raw.setValue("engine/gpuLayers", -40);
        }
        AppSettings s(file, "/models");
        QCOMPARE(s.computeDevice(), QStringLiteral("cpu"));
        QCOMPARE(s.gpuLayers(), -1);
        s.setComputeDevice("vulkan:0");
        s.setComputeDevice("metal");
        QCOMPARE(s.computeDevice(), QStringLiteral("cpu"));
    }

    // Conversation memory was set in MiB; every size the app shows is decimal now. A setting saved
    // in MiB is read as the same memory in MB, and saved under the new name.
    void conversationMemoryInMiBBecomesMB() {
        const QString file = iniFile();
        {
            QSettings raw(file, QSettings::IniFormat);
            raw.setValue("engine/conversationMemoryMiB", 1024);
        }
        AppSettings s(file, "/models");
        QCOMPARE(s.conversationMemoryMB(), 1074); // 1024 MiB = 1073.7 MB
        QCOMPARE(s.engineConfig().memory_budget_bytes, size_t{1'074'000'000});
        s.setConversationMemoryMB(500);
        s.flush();
        QCOMPARE(QSettings(file, QSettings::IniFormat).value("engine/conversationMemoryMB").toInt(), 500);
        QVERIFY(!QSettings(file, QSettings::IniFormat).contains("engine/conversationMemoryMiB"));
        QCOMPARE(AppSettings(file, "/models").conversationMemoryMB(), 500);
    }

    void savedStatesAreF16ByDefault() {
        QCOMPARE(AppSettings(iniFile(), "/models").compressSavedStates(), false);
    }

    // What a folder dialog hands over is a URL; the setting must be the folder's real path.
    void modelsFolderFromADialogsUrl_data() {
        QTest::addColumn<QUrl>("url");
        QTest::addColumn<QString>("folder");
        const QString path = QStringLiteral("/home/zoë/My Models/日本語 100% #1 [Q8]");
        QTest::newRow("from a local path") << QUrl::fromLocalFile(path) << path;
        QTest::newRow("percent-encoded, as dialogs give it")
            << QUrl(QStringLiteral("file:///home/zo%C3%AB/My%20Models/"
                                   "%E6%97%A5%E6%9C%AC%E8%AA%9E%20100%25%20%231%20%5BQ8%5D/"))
            << path;
        QTest::newRow("plain") << QUrl(QStringLiteral("file:///srv/models")) << QStringLiteral("/srv/models");
    }
    void modelsFolderFromADialogsUrl() {
        QFETCH(QUrl, url);
        QFETCH(QString, folder);
        const QString file = iniFile();
        {
            AppSettings s(file, "/models");
            QSignalSpy changed(&s, &AppSettings::modelsFolderChanged);
            QVERIFY(s.setModelsFolderUrl(url));
            QCOMPARE(s.modelsFolder(), folder);
            QCOMPARE(changed.count(), 1);
        }
        QCOMPARE(AppSettings(file, "/models").modelsFolder(), folder); // and it persists as such
    }

    void aRemoteFolderIsRefused() {
        AppSettings s(iniFile(), "/models");
        QVERIFY(!s.setModelsFolderUrl(QUrl(QStringLiteral("https://example.com/models"))));
        QVERIFY(!s.setModelsFolderUrl(QUrl()));
        QCOMPARE(s.modelsFolder(), QStringLiteral("/models"));
    }

    void flushWritesTheFile() {
        const QString file = iniFile();
        AppSettings s(file, "/models");
        s.setTopK(7);
        s.flush();
        QSettings raw(file, QSettings::IniFormat);
        QCOMPARE(raw.value("generation/topK").toInt(), 7);
    }

    void valuesAreClamped_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QVariant>("input");
        QTest::addColumn<QVariant>("stored");
        QTest::newRow("temperature high") << "temperature" << QVariant(9.0) << QVariant(2.0);
        QTest::newRow("temperature negative") << "temperature" << QVariant(-1.0) << QVariant(0.0);
        QTest::newRow("top-p") << "topP" << QVariant(1.5) << QVariant(1.0);
        QTest::newRow("repeat penalty") << "repeatPenalty" << QVariant(0.5) << QVariant(1.0);
        QTest::newRow("seed") << "seed" << QVariant(-7) << QVariant(-1);
        QTest::newRow("context") << "contextLength" << QVariant(3) << QVariant(64);
        QTest::newRow("font") << "fontSize" << QVariant(99) << QVariant(24);
        QTest::newRow("theme") << "theme" << QVariant("purple") << QVariant("system");
    }
    void valuesAreClamped() {
        QFETCH(QString, name);
        QFETCH(QVariant, input);
        QFETCH(QVariant, stored);
        AppSettings s(iniFile(), "/models");
        QVERIFY(s.setProperty(name.toUtf8().constData(), input));
        QCOMPARE(s.property(name.toUtf8().constData()), stored);
    }

    void recentModelsAreMostRecentFirstAndBounded() {
        AppSettings s(iniFile(), "/models");
        QSignalSpy recent(&s, &AppSettings::recentModelsChanged);
        for (int i = 0; i < 12; ++i)
            s.rememberModel(QString("/m/%1.gguf").arg(i));
        s.rememberModel("/m/5.gguf");
        QCOMPARE(s.recentModels().size(), 10);
        QCOMPARE(s.recentModels().first(), QStringLiteral("/m/5.gguf"));
        QCOMPARE(s.recentModels().count("/m/5.gguf"), 1);
        QVERIFY(!s.recentModels().contains("/m/0.gguf"));
        s.forgetModel("/m/5.gguf");
        QVERIFY(!s.recentModels().contains("/m/5.gguf"));
        QCOMPARE(recent.count(), 14);
    }

    // A model's chosen image projector is kept across restarts; an empty choice forgets it.
    void chosenImageProjectorsPersist() {
        const QString file = iniFile();
        {
            AppSettings s(file, "/models");
            QSignalSpy changed(&s, &AppSettings::imageProjectorsChanged);
            s.setImageProjectorFor("/m/gemma.gguf", "/p/mmproj-gemma.gguf");
            s.setImageProjectorFor("/m/other.gguf", "/p/other-mmproj.gguf");
            s.setImageProjectorFor("/m/other.gguf", "");
            QCOMPARE(changed.count(), 3);
            s.flush();
        }
        AppSettings reopened(file, "/models");
        QCOMPARE(reopened.imageProjectorFor("/m/gemma.gguf"), QStringLiteral("/p/mmproj-gemma.gguf"));
        QVERIFY(reopened.imageProjectorFor("/m/other.gguf").isEmpty());
        QCOMPARE(reopened.imageProjectors().size(), 1);
    }

    void resetSamplingRestoresDefaults() {
        AppSettings s(iniFile(), "/models");
        s.setTemperature(1.7);
        s.setTopK(3);
        s.setSeed(9);
        s.setSystemPrompt("kept");
        s.resetSampling();
        QCOMPARE(s.temperature(), SamplingDefaults{}.temperature);
        QCOMPARE(s.topK(), SamplingDefaults{}.topK);
        QCOMPARE(s.seed(), SamplingDefaults{}.seed);
        QCOMPARE(s.systemPrompt(), QStringLiteral("kept"));
    }

    void defaultFoldersNameTheAppOnce() {
        // As main() names the app; the standard locations in Qt's test place (~/.qttest).
        QCoreApplication::setOrganizationName(QStringLiteral("Hearth"));
        QCoreApplication::setApplicationName(QStringLiteral("Hearth"));
        QStandardPaths::setTestModeEnabled(true);
        qunsetenv("HEARTH_DATA_DIR");
        const AppPaths paths = AppPaths::resolve({}, {});
        const QString share = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
        QCOMPARE(paths.dataDir, share + QStringLiteral("/Hearth"));
        QCOMPARE(paths.defaultModelsFolder(), share + QStringLiteral("/Hearth/models"));
    }

    void conversationsInTheEarlierDataFolderStayInUse() {
        const QString share = QString::fromStdString(hearth::test::make_temp_dir("hearth-share"));
        QCOMPARE(AppPaths::defaultDataDir(share), share + QStringLiteral("/Hearth"));
        const QString earlier = share + QStringLiteral("/Hearth/Hearth");
        QVERIFY(QDir().mkpath(earlier));
        QFile database(AppPaths{earlier, {}}.databaseFile());
        QVERIFY(database.open(QIODevice::WriteOnly));
        database.close();
        QCOMPARE(AppPaths::defaultDataDir(share), earlier);
    }
};

QTEST_MAIN(TestSettings)
#include "test_settings.moc"
