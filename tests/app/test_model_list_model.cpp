// The model picker's list and the folder scan that fills it (real GGUF files from testdata),
// with the memory each model needs, split between RAM and a GPU's memory when one is chosen.
#include "app/models/model_list_model.h"
#include "app/models/model_scan.h"
#include "engine/forward/device_plan.h"
#include "engine/forward/inference.h"
#include "engine/forward/kv_cache.h"
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_value.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/model/hparams.h"
#include "tests/support/test_support.h"
#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QTest>

using namespace hearth::app;

namespace {
hearth::app::EngineConfig contextOf(int contextLength) {
    hearth::app::EngineConfig config;
    config.context_length = contextLength;
    return config;
}
} // namespace

class TestModelListModel : public QObject {
    Q_OBJECT

    static QString model(const char* name) {
        return QString::fromStdString(hearth::test::testdata(std::string("models/") + name));
    }

private slots:
    void rolesAndLoadedFlag() {
        ModelListModel list;
        QAbstractItemModelTester tester(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ModelEntry a;
        a.path = "/m/a.gguf";
        a.name = "A";
        a.parameters = 1'100'000'000;
        a.fileBytes = 638'000'000;
        a.estimatedBytes = 700'000'000;
        ModelEntry b;
        b.path = "/m/b.gguf";
        b.name = "B";
        b.error = "b.gguf: bad magic";
        list.setEntries({a, b});
        QCOMPARE(list.rowCount(), 2);
        QCOMPARE(list.index(0).data(ModelListModel::ParametersRole).toString(), QStringLiteral("1.1B"));
        QCOMPARE(list.index(0).data(ModelListModel::FileSizeRole).toString(), QStringLiteral("638 MB"));
        QCOMPARE(list.index(0).data(ModelListModel::MemoryRole).toString(), QStringLiteral("700 MB"));
        QCOMPARE(list.index(1).data(ModelListModel::ErrorRole).toString(),
                 QStringLiteral("b.gguf: bad magic"));
        QCOMPARE(list.index(0).data(ModelListModel::LoadedRole).toBool(), false);
        list.setLoadedPath("/m/a.gguf");
        QCOMPARE(list.index(0).data(ModelListModel::LoadedRole).toBool(), true);
        QCOMPARE(list.index(1).data(ModelListModel::LoadedRole).toBool(), false);
        QCOMPARE(list.indexOf("/m/b.gguf"), 1);
    }

    // Two models of one name are told apart by what differs, not only by their paths.
    void twinsAreToldApartByWhatDiffers() {
        ModelEntry q8;
        q8.path = "/m/stories-q8.gguf";
        q8.name = "stories260K";
        q8.quantization = "Q8_0";
        q8.parameters = 260'000;
        q8.fileBytes = 400'000;
        ModelEntry f32 = q8;
        f32.path = "/m/stories.gguf";
        f32.quantization = "F32";
        f32.fileBytes = 1'185'376;
        ModelEntry copy = f32;
        copy.path = "/backup/stories.gguf";
        ModelEntry other;
        other.path = "/m/qwen.gguf";
        other.name = "Qwen";
        ModelListModel list;
        list.setEntries({q8, f32, other});
        QCOMPARE(list.index(0).data(ModelListModel::DistinctionRole).toString(),
                 QStringLiteral("Q8_0 · 400 KB"));
        QCOMPARE(list.index(1).data(ModelListModel::DistinctionRole).toString(),
                 QStringLiteral("F32 · 1.19 MB"));
        QVERIFY(
            list.index(2).data(ModelListModel::DistinctionRole).toString().isEmpty()); // a name of its own
        list.setEntries({f32, copy});
        QCOMPARE(list.index(0).data(ModelListModel::DistinctionRole).toString(), QStringLiteral("m"));
        QCOMPARE(list.index(1).data(ModelListModel::DistinctionRole).toString(), QStringLiteral("backup"));

        // The demo model installed with the app and a copy in the user's folder, both in a folder
        // named "models": as much of each folder as tells them apart.
        ModelEntry bundled = f32;
        bundled.path = "/usr/share/hearth/models/stories.gguf";
        ModelEntry mine = f32;
        mine.path = QDir::homePath() + "/models/stories.gguf";
        list.setEntries({bundled, mine});
        QCOMPARE(list.index(0).data(ModelListModel::DistinctionRole).toString(),
                 QStringLiteral("hearth/models"));
        QCOMPARE(list.index(1).data(ModelListModel::DistinctionRole).toString(), QStringLiteral("~/models"));
        QCOMPARE(ModelListModel::tellingFolder("/a/models", {"/models"}), QStringLiteral("a/models"));
        QCOMPARE(ModelListModel::tellingFolder("/models", {"/a/models"}), QStringLiteral("/models"));
    }

    // With a GPU chosen: the layers that fit in its memory (as the engine plans them, a tenth
    // left to others) take GPU memory, and RAM keeps every weight and the other layers' KV cache.
    void splitsTheEstimateBetweenRamAndTheGpu() {
        const QString path = model("stories260K.gguf");
        EngineConfig config = contextOf(2048); // 128 positions: the trained context
        const ModelEntry cpu = readModelEntry(path, config);
        const hearth::engine::DeviceMemoryPlan plan =
            hearth::engine::plan_device_memory(*hearth::gguf::GgufFile::open(path.toStdString()),
                                               hearth::engine::InferenceOptions{}.n_batch, 128, {});
        const int layers = static_cast<int>(plan.layer_bytes.size());
        QCOMPARE(layers, 5);
        const auto row = [](const ModelEntry& entry, int role) {
            ModelListModel list;
            list.setEntries({entry});
            return list.index(0).data(role);
        };
        QCOMPARE(row(cpu, ModelListModel::GpuFitRole).toString(), QString());
        QCOMPARE(row(cpu, ModelListModel::GpuMemoryRole).toString(), QString());

        config.device = {hearth::engine::ComputeDevice::Kind::Vulkan, 0};
        // Room for every layer: nothing but the weights in RAM.
        const ModelEntry whole = readModelEntry(path, config, qint64(1) << 30);
        QCOMPARE(whole.gpuLayers, layers);
        QCOMPARE(whole.layerCount, layers);
        QCOMPARE(whole.gpuBytes, static_cast<qint64>(plan.bytes_for(layers)));
        QCOMPARE(whole.estimatedBytes, cpu.fileBytes);
        QCOMPARE(row(whole, ModelListModel::GpuFitRole).toString(), QStringLiteral("whole"));
        QVERIFY(!row(whole, ModelListModel::GpuMemoryRole).toString().isEmpty());

        // Room for two layers (and their KV cache) in 90% of the memory.
        const auto memoryFor = [&](int n) { return static_cast<qint64>(plan.bytes_for(n)) * 10 / 9 + 16; };
        QCOMPARE(hearth::engine::layers_that_fit(plan, hearth::engine::usable_device_bytes(memoryFor(2))), 2);
        const ModelEntry two = readModelEntry(path, config, memoryFor(2));
        QCOMPARE(two.gpuLayers, 2);
        QCOMPARE(two.gpuBytes, static_cast<qint64>(plan.bytes_for(2)));
        QCOMPARE(two.estimatedBytes, cpu.fileBytes + static_cast<qint64>(plan.kv_bytes_per_layer) * 3);
        QCOMPARE(row(two, ModelListModel::GpuFitRole).toString(), QStringLiteral("partial"));

        // Asked for more layers than fit: the engine keeps the model on the CPU.
        config.gpu_layers = 3;
        const ModelEntry tooMany = readModelEntry(path, config, memoryFor(2));
        QCOMPARE(tooMany.gpuLayers, 0);
        QCOMPARE(tooMany.estimatedBytes, cpu.estimatedBytes);
        QCOMPARE(row(tooMany, ModelListModel::GpuFitRole).toString(), QStringLiteral("none"));
        QCOMPARE(row(tooMany, ModelListModel::GpuMemoryRole).toString(), QString());
        config.gpu_layers = 2;
        QCOMPARE(readModelEntry(path, config, memoryFor(2)).gpuLayers, 2);
        // No such GPU (no memory): the CPU.
        config.gpu_layers = -1;
        QCOMPARE(row(readModelEntry(path, config, 0), ModelListModel::GpuFitRole).toString(),
                 QStringLiteral("none"));
    }

    void readsRealModelInfo() {
        const ModelEntry entry = readModelEntry(model("stories260K.gguf"), contextOf(2048));
        QVERIFY2(entry.error.isEmpty(), qPrintable(entry.error));
        QCOMPARE(entry.architecture, QStringLiteral("llama"));
        QVERIFY(entry.parameters > 100'000 && entry.parameters < 1'000'000);
        QVERIFY(entry.contextLength > 0);
        QCOMPARE(entry.fileBytes, QFileInfo(model("stories260K.gguf")).size());
        QVERIFY(!entry.quantization.isEmpty());
    }

    // Weights plus one conversation's KV cache as the engine holds it: F16 keys and values,
    // per layer and position, KV heads x head size wide, at the context the worker gives it
    // (the setting, capped at the trained context).
    void estimatesMemoryWithAnF16Cache() {
        // stories260K: 5 layers, 4 KV heads of 8 dimensions (testdata/README.md), trained
        // context 128, so a 2048 setting gets 128 positions and a 64 setting 64.
        const qint64 kvBytesPerPosition = 2 /* K and V */ * 5 * (4 * 8) * 2 /* bytes per F16 */;
        const qint64 fileBytes = QFileInfo(model("stories260K.gguf")).size();
        QCOMPARE(readModelEntry(model("stories260K.gguf"), contextOf(2048)).estimatedBytes,
                 fileBytes + kvBytesPerPosition * 128);
        QCOMPARE(readModelEntry(model("stories260K.gguf"), contextOf(64)).estimatedBytes,
                 fileBytes + kvBytesPerPosition * 64);

        // tiny-qwen3's head size (key_length 32) is not embedding / heads (64 / 4): read from
        // the metadata here, and checked against the real cache's size.
        const QString qwen3 = model("tiny-qwen3.gguf");
        const auto file = hearth::gguf::GgufFile::open(qwen3.toStdString());
        const qint64 layers = file->get_int("qwen3.block_count").value_or(0);
        const qint64 kvHeads = file->get_int("qwen3.attention.head_count_kv").value_or(0);
        const qint64 headSize = file->get_int("qwen3.attention.key_length").value_or(0);
        const qint64 trained = file->get_int("qwen3.context_length").value_or(0);
        QCOMPARE(headSize, 32);
        QVERIFY(trained > 0 && trained < 4096);
        const qint64 expected = QFileInfo(qwen3).size() + 2 * layers * kvHeads * headSize * 2 * trained;
        QCOMPARE(readModelEntry(qwen3, contextOf(4096)).estimatedBytes, expected);
        const hearth::engine::KvCache cache(hearth::engine::read_hyperparams(*file),
                                            static_cast<int32_t>(trained));
        QCOMPARE(QFileInfo(qwen3).size() + static_cast<qint64>(cache.bytes()), expected);
    }

    // Q8_0 and Q4_0 caches hold each 32 values of a head in 34 and 18 bytes (an F16 scale and
    // the quants): the estimate follows the settings' cache types.
    void estimatesMemoryWithAQuantizedCache() {
        const QString qwen3 = model("tiny-qwen3.gguf");
        const auto file = hearth::gguf::GgufFile::open(qwen3.toStdString());
        const qint64 layers = file->get_int("qwen3.block_count").value_or(0);
        const qint64 kvHeads = file->get_int("qwen3.attention.head_count_kv").value_or(0);
        const qint64 trained = file->get_int("qwen3.context_length").value_or(0);
        hearth::app::EngineConfig config = contextOf(4096);
        config.cache_types = {hearth::kernels::TensorType::Q8_0, hearth::kernels::TensorType::Q4_0};
        QCOMPARE(readModelEntry(qwen3, config).estimatedBytes,
                 QFileInfo(qwen3).size() + layers * kvHeads * (34 + 18) * trained);
        hearth::engine::KvCacheTypes types;
        types.keys = hearth::kernels::TensorType::Q8_0;
        types.values = hearth::kernels::TensorType::Q4_0;
        const hearth::engine::KvCache cache(hearth::engine::read_hyperparams(*file),
                                            static_cast<int32_t>(trained), types);
        QCOMPARE(QFileInfo(qwen3).size() + static_cast<qint64>(cache.bytes()),
                 readModelEntry(qwen3, config).estimatedBytes);
    }

    // An architecture the engine does not run (every one in testdata runs now): a GGUF file that
    // names one, written here.
    void aModelTheEngineCannotRunSaysWhy() {
        const QString path =
            QString::fromStdString(hearth::test::make_temp_dir("hearth-arch")) + "/mamba.gguf";
        hearth::gguf::GgufWriter writer;
        writer.set("general.architecture", hearth::gguf::string_value("mamba"));
        writer.set("general.name", hearth::gguf::string_value("A state-space model"));
        writer.write(path.toStdString());
        const ModelEntry entry = readModelEntry(path, contextOf(2048));
        QVERIFY2(entry.error.contains("mamba"), qPrintable(entry.error));
        QCOMPARE(entry.estimatedBytes, qint64{0});
    }

    void scanListsFolderAndRecent() {
        const QString folder = QString::fromStdString(hearth::test::make_temp_dir("hearth-scan"));
        QVERIFY(QFile::copy(model("stories260K.gguf"), folder + "/b-stories.gguf"));
        QDir().mkpath(folder + "/nested");
        QVERIFY(QFile::copy(model("stories260K-Q8_0.gguf"), folder + "/nested/a-stories-q8.gguf"));
        QFile bad(folder + "/broken.gguf");
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("this is not a gguf file");
        bad.close();
        QFile other(folder + "/notes.txt");
        QVERIFY(other.open(QIODevice::WriteOnly));
        other.close();

        const QString recent = model("tiny-qwen2.gguf");
        const QList<ModelEntry> entries =
            scanModels(folder, {recent, "/does/not/exist.gguf"}, contextOf(1024));
        QCOMPARE(entries.size(), 4); // the recent one, then three .gguf files of the folder
        QCOMPARE(entries[0].path, QFileInfo(recent).absoluteFilePath());
        QVERIFY(entries[0].recent);
        int broken = 0;
        for (const ModelEntry& e : entries) {
            QVERIFY(e.path.endsWith(".gguf"));
            if (e.path.endsWith("broken.gguf")) {
                ++broken;
                QVERIFY2(e.error.contains("broken.gguf"), qPrintable(e.error));
            } else {
                QVERIFY2(e.error.isEmpty(), qPrintable(e.error));
            }
        }
        QCOMPARE(broken, 1);
    }
};

QTEST_MAIN(TestModelListModel)
#include "test_model_list_model.moc"
