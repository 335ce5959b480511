// The model picker's list and the folder scan that fills it (real GGUF files from testdata).
#include "app/core/model_list_model.h"
#include "app/core/model_scan.h"
#include "tests/support/test_support.h"
#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QTest>

using namespace hearth::app;

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

    void readsRealModelInfo() {
        const ModelEntry entry = readModelEntry(model("stories260K.gguf"), 2048);
        QVERIFY2(entry.error.isEmpty(), qPrintable(entry.error));
        QCOMPARE(entry.architecture, QStringLiteral("llama"));
        QVERIFY(entry.parameters > 100'000 && entry.parameters < 1'000'000);
        QVERIFY(entry.contextLength > 0);
        QCOMPARE(entry.fileBytes, QFileInfo(model("stories260K.gguf")).size());
        QVERIFY(entry.estimatedBytes >= entry.fileBytes / 2);
        QVERIFY(!entry.quantization.isEmpty());
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
        const QList<ModelEntry> entries = scanModels(folder, {recent, "/does/not/exist.gguf"}, 1024);
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
