// A model the engine can run but whose tokenizer may split text differently from
// its own (an unknown tokenizer.ggml.pre), or whose chat template has no system
// role, is offered by the picker with a note, through the list model's "warning"
// role that the model card shows.
#include "app/models/image_projector_pairing.h"
#include "app/models/model_list_model.h"
#include "app/models/model_scan.h"
#include "app/settings/engine_config.h"
#include "tests/tokenizer/bpe_model_fixture.h"
#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QTest>

using namespace hearth::app;

class TestModelScanWarnings : public QObject {
    Q_OBJECT

private slots:
    void anUnknownPreTokenizerReachesTheWarningRole() {
        const std::string dir = hearth::test::make_temp_dir("hearth-scan-warnings");
        const QString unknown = QString::fromStdString(hearth::test::write_bpe_model(dir, "no-such-pre"));
        const QString known = QString::fromStdString(hearth::test::write_bpe_model(dir, "qwen2"));
        EngineConfig config;
        config.context_length = 256;

        const ModelEntry withWarning = readModelEntry(unknown, config);
        QVERIFY2(withWarning.error.isEmpty(), qPrintable(withWarning.error));
        QCOMPARE(withWarning.warnings.size(), 1);
        QVERIFY2(withWarning.warnings[0].contains(QStringLiteral("unknown pre-tokenizer 'no-such-pre'")),
                 qPrintable(withWarning.warnings[0]));
        const ModelEntry clean = readModelEntry(known, config);
        QVERIFY2(clean.error.isEmpty(), qPrintable(clean.error));
        QVERIFY(clean.warnings.isEmpty());

        ModelListModel list;
        QAbstractItemModelTester tester(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
        list.setEntries(scanModels(QString::fromStdString(dir), {}, config));
        QCOMPARE(list.rowCount(), 2);
        QCOMPARE(list.roleNames().value(ModelListModel::WarningRole), QByteArray("warning"));
        const int unknownRow = list.indexOf(unknown);
        const int knownRow = list.indexOf(known);
        QVERIFY(unknownRow >= 0 && knownRow >= 0);
        QCOMPARE(list.index(unknownRow).data(ModelListModel::WarningRole).toString(),
                 withWarning.warnings[0]);
        QCOMPARE(list.index(knownRow).data(ModelListModel::WarningRole).toString(), QString());
    }

    // A vision model's projector (mmproj) beside it is no model: the picker leaves it out, in
    // the folder and among the recent files, and loading it as a model says what it is.
    void imageProjectorsAreNotListedAsModels() {
        const QString dir = QString::fromStdString(hearth::test::make_temp_dir("hearth-scan-projectors"));
        const QString testdata = QStringLiteral(HEARTH_TESTDATA_DIR);
        QVERIFY(QFile::copy(testdata + "/models/stories260K.gguf", dir + "/stories260K.gguf"));
        QVERIFY(
            QFile::copy(testdata + "/vision/mmproj-tiny-gemma3-f32.gguf", dir + "/mmproj-model-f32.gguf"));
        QVERIFY(QDir(dir).mkdir("gemma"));
        QVERIFY(QFile::copy(testdata + "/vision/mmproj-tiny-gemma3-f16.gguf",
                            dir + "/gemma/mmproj-model-f16.gguf"));
        EngineConfig config;
        config.context_length = 256;

        const ModelEntry projector = readModelEntry(dir + "/mmproj-model-f32.gguf", config);
        QVERIFY(projector.imageProjector);
        QVERIFY2(projector.error.contains(QStringLiteral("image projector (mmproj)")),
                 qPrintable(projector.error));
        QVERIFY2(projector.error.startsWith(dir + "/mmproj-model-f32.gguf"), qPrintable(projector.error));
        QVERIFY(!readModelEntry(dir + "/stories260K.gguf", config).imageProjector);

        const QList<ModelEntry> entries =
            scanModels(dir, {dir + "/gemma/mmproj-model-f16.gguf", dir + "/stories260K.gguf"}, config);
        QCOMPARE(entries.size(), 1);
        QCOMPARE(entries[0].path, dir + "/stories260K.gguf");
        QVERIFY(entries[0].recent);
        QVERIFY2(entries[0].error.isEmpty(), qPrintable(entries[0].error));
    }

    // A projector is paired with the model its name names, without "mmproj" and weight types; a
    // projector named for no model goes with a folder's only one of its width.
    void projectorsArePairedByName_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QStringList>("projectors");
        QTest::addColumn<QString>("paired");
        QTest::newRow("named") << "gemma-3-4b-it-Q4_K_M.gguf"
                               << QStringList{"mmproj-gemma-3-12b-it-f16.gguf",
                                              "mmproj-gemma-3-4b-it-f16.gguf"}
                               << "mmproj-gemma-3-4b-it-f16.gguf";
        QTest::newRow("suffix") << "Qwen2.5-VL-7B-Instruct-q8_0.gguf"
                                << QStringList{"Qwen2.5-VL-7B-Instruct-mmproj-bf16.gguf"}
                                << "Qwen2.5-VL-7B-Instruct-mmproj-bf16.gguf";
        QTest::newRow("first of equals")
            << "tiny-gemma3.gguf" << QStringList{"mmproj-tiny-gemma3-f32.gguf", "mmproj-tiny-gemma3-f16.gguf"}
            << "mmproj-tiny-gemma3-f16.gguf";
        QTest::newRow("prefix") << "gemma-3-4b-it-qat-Q4_0.gguf" << QStringList{"mmproj-gemma-3-4b-it.gguf"}
                                << "mmproj-gemma-3-4b-it.gguf";
        QTest::newRow("the only one")
            << "model-Q4_K_M.gguf" << QStringList{"mmproj-F16.gguf"} << "mmproj-F16.gguf";
        QTest::newRow("another model's")
            << "llama-3.2-1b-Q4_K_M.gguf"
            << QStringList{"mmproj-gemma-3-4b-it-f16.gguf", "mmproj-smolvlm-f16.gguf"} << "";
        QTest::newRow("none") << "llama-3.2-1b-Q4_K_M.gguf" << QStringList{} << "";
    }
    void projectorsArePairedByName() {
        QFETCH(QString, model);
        QFETCH(QStringList, projectors);
        QFETCH(QString, paired);
        QCOMPARE(pairImageProjector(model, projectors), paired);
    }

    // The scan finds a vision model's projector beside it (the picker's "vision" badge), and
    // pairs none of another width with a model of the folder.
    void theScanFindsAVisionModelsProjector() {
        const QString dir = QString::fromStdString(hearth::test::make_temp_dir("hearth-scan-vision"));
        const QString testdata = QStringLiteral(HEARTH_TESTDATA_DIR);
        QVERIFY(QFile::copy(testdata + "/models/tiny-gemma3.gguf", dir + "/tiny-gemma3.gguf"));
        QVERIFY(QFile::copy(testdata + "/models/stories260K.gguf", dir + "/stories260K.gguf"));
        QVERIFY(
            QFile::copy(testdata + "/vision/mmproj-tiny-gemma3-f32.gguf", dir + "/mmproj-model-f32.gguf"));
        EngineConfig config;
        config.context_length = 256;
        const QList<ModelEntry> entries = scanModels(dir, {}, config);
        QCOMPARE(entries.size(), 2);
        for (const ModelEntry& entry : entries) {
            if (entry.path.endsWith(QStringLiteral("tiny-gemma3.gguf")))
                QCOMPARE(entry.visionProjector, dir + "/mmproj-model-f32.gguf");
            else
                QVERIFY2(entry.visionProjector.isEmpty(),
                         qPrintable(entry.visionProjector)); // width 64, not 128
        }
        // A projector the user chose replaces the one found beside it.
        const QList<ModelEntry> chosen =
            scanModels(dir, {}, config, {{dir + "/stories260K.gguf", "/elsewhere/vision.gguf"}});
        for (const ModelEntry& entry : chosen)
            if (entry.path.endsWith(QStringLiteral("stories260K.gguf")))
                QCOMPARE(entry.visionProjector, QString("/elsewhere/vision.gguf"));
        ModelListModel list;
        list.setEntries(entries);
        const int gemma = list.indexOf(dir + "/tiny-gemma3.gguf");
        QCOMPARE(list.data(list.index(gemma), ModelListModel::VisionProjectorRole).toString(),
                 dir + "/mmproj-model-f32.gguf");
    }

    void aTemplateWithoutSystemRoleIsNoted() {
        const std::string dir = hearth::test::make_temp_dir("hearth-scan-template-notes");
        const auto golden = [](const char* stem) {
            return hearth::test::read_file(
                hearth::test::testdata(std::string("templates/") + stem + ".jinja"));
        };
        EngineConfig config;
        const ModelEntry gemma = readModelEntry(QString::fromStdString(hearth::test::write_bpe_model(
                                                    dir, "gpt-2", golden("google-gemma-2-2b-it"), "gemma")),
                                                config);
        QVERIFY2(gemma.error.isEmpty(), qPrintable(gemma.error));
        QCOMPARE(gemma.warnings.size(), 1);
        QVERIFY2(gemma.warnings[0].contains(QStringLiteral("no system role")), qPrintable(gemma.warnings[0]));
        const ModelEntry qwen = readModelEntry(QString::fromStdString(hearth::test::write_bpe_model(
                                                   dir, "gpt-2", golden("Qwen-Qwen2.5-7B-Instruct"), "qwen")),
                                               config);
        QVERIFY2(qwen.error.isEmpty(), qPrintable(qwen.error));
        QVERIFY(qwen.hasChatTemplate);
        QVERIFY(qwen.warnings.isEmpty());
    }
};

QTEST_MAIN(TestModelScanWarnings)
#include "test_model_scan_warnings.moc"
