// The model catalog is untrusted input (it can be refreshed from a URL): a good
// catalog is read whole; a bad or hostile one is refused whole, with an error that
// names the entry and the field. Also the built-in catalog, and the runnable and
// memory marks of its rows.
#include "app/models/catalog_list_model.h"
#include "app/models/image_projector_pairing.h"
#include "app/models/model_catalog.h"
#include "app/models/model_fit.h"
#include "app/models/speed_predictor.h"
#include "engine/model/machine_limits.h"
#include "kernels/kernel_table.h"
#include "tests/support/test_support.h"
#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTest>
#include <QTranslator>
#include <fstream>

using namespace hearth::app;
namespace engine = hearth::engine;
namespace kernels = hearth::kernels;
namespace test = hearth::test;

namespace {

QJsonObject goodEntry(const QString& id = QStringLiteral("qwen2.5-0.5b-instruct-q4_k_m")) {
    return QJsonObject{
        {"id", id},
        {"name", "Qwen2.5 0.5B Instruct"},
        {"architecture", "qwen2"},
        {"parameters", 494000000},
        {"quantization", "Q4_K_M"},
        {"licence", "Apache-2.0"},
        {"fileBytes", 398000000},
        {"memoryBytes", 600000000},
        {"url", "https://huggingface.co/bartowski/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/" + id + ".gguf"},
        {"sha256", ""},
    };
}

QByteArray catalogOf(const QJsonArray& models) {
    return QJsonDocument(QJsonObject{{"version", 1}, {"models", models}}).toJson();
}

QByteArray catalogWith(const char* field, const QJsonValue& value) {
    QJsonObject entry = goodEntry();
    if (value.isUndefined())
        entry.remove(QLatin1String(field));
    else
        entry[QLatin1String(field)] = value;
    return catalogOf({entry});
}

} // namespace

class TestModelCatalog : public QObject {
    Q_OBJECT

private slots:
    void reads_a_good_catalog() {
        QJsonObject second = goodEntry("llama-3.2-1b");
        second["architecture"] = "llama";
        second["sha256"] = QString(64, QLatin1Char('A'));
        const CatalogParseResult result = parseModelCatalog(catalogOf({goodEntry(), second}));
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.entries.size(), 2);
        QCOMPARE(result.entries[0].fileName(), QString("qwen2.5-0.5b-instruct-q4_k_m.gguf"));
        QCOMPARE(result.entries[0].parameters, 494000000);
        QVERIFY(result.entries[0].sha256Hex.isEmpty());
        QCOMPARE(result.entries[1].sha256Hex, QByteArray(64, 'a')); // lowercased
    }

    void refuses_bad_and_hostile_catalogs_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("problem");
        QTest::newRow("not json") << QByteArray("{\"version\": 1, \"models\": [") << "not valid JSON";
        QTest::newRow("empty") << QByteArray() << "not valid JSON";
        QTest::newRow("array at the top") << QByteArray("[]") << "not a JSON object";
        QTest::newRow("no version") << QByteArray("{\"models\": []}") << "\"version\"";
        QTest::newRow("future version") << QByteArray("{\"version\": 2, \"models\": []}") << "\"version\"";
        QTest::newRow("models not a list")
            << QByteArray("{\"version\": 1, \"models\": {}}") << "no \"models\" list";
        QTest::newRow("entry not an object") << catalogOf({42}) << "entry 1: not an object";
        QTest::newRow("missing name")
            << catalogWith("name", QJsonValue::Undefined) << "field \"name\": missing";
        QTest::newRow("name a number") << catalogWith("name", 7) << "field \"name\": missing or not a string";
        QTest::newRow("empty name") << catalogWith("name", "") << "field \"name\": empty";
        QTest::newRow("huge name") << catalogWith("name", QString(5000, QLatin1Char('x'))) << "longer than";
        QTest::newRow("control characters") << catalogWith("name", "Qwen\x1b[2J") << "control characters";
        QTest::newRow("bidi override")
            << catalogWith("licence", QString::fromUtf8("MIT\u202e")) << "control characters";
        QTest::newRow("id with a slash") << catalogWith("id", "../evil") << "only lowercase";
        QTest::newRow("negative size") << catalogWith("fileBytes", -1) << "whole number";
        QTest::newRow("fractional size") << catalogWith("fileBytes", 1.5) << "whole number";
        QTest::newRow("absurd size") << catalogWith("fileBytes", 1e300) << "whole number";
        QTest::newRow("size as text") << catalogWith("fileBytes", "398000000") << "not a number";
        QTest::newRow("memory below file") << catalogWith("memoryBytes", 1000) << "smaller than the file";
        QTest::newRow("plain http") << catalogWith("url", "http://huggingface.co/a/b/resolve/main/m.gguf")
                                    << "https://";
        QTest::newRow("other host") << catalogWith("url", "https://evil.example/m.gguf") << "https://";
        QTest::newRow("look-alike host")
            << catalogWith("url", "https://huggingface.co.evil.example/m.gguf") << "https://";
        QTest::newRow("user info") << catalogWith("url", "https://huggingface.co@evil.example/m.gguf")
                                   << "https://";
        QTest::newRow("file url") << catalogWith("url", "file:///etc/passwd") << "https://";
        QTest::newRow("not gguf") << catalogWith("url", "https://huggingface.co/a/b/resolve/main/run.sh")
                                  << "not name a .gguf";
        QTest::newRow("path traversal")
            << catalogWith("url", "https://huggingface.co/a/%2E%2E%2Fx.gguf") << "field \"url\"";
        QTest::newRow("no file") << catalogWith("url", "https://huggingface.co/a/") << "names no file";
        QTest::newRow("short sha") << catalogWith("sha256", "abc123") << "64 hexadecimal";
        QTest::newRow("sha not hex") << catalogWith("sha256", QString(64, QLatin1Char('z')))
                                     << "64 hexadecimal";
        QTest::newRow("duplicate id") << catalogOf({goodEntry(), goodEntry()}) << "listed twice";
        QJsonObject sameFile = goodEntry("other-id");
        sameFile["url"] = goodEntry()["url"];
        QTest::newRow("duplicate file") << catalogOf({goodEntry(), sameFile}) << "is listed twice";
        QJsonArray many;
        for (int i = 0; i < 501; ++i)
            many.append(goodEntry(QStringLiteral("m%1").arg(i)));
        QTest::newRow("too many entries") << catalogOf(many) << "more than 500";
        QTest::newRow("too large") << QByteArray(2 << 20, ' ') << "larger than";
        QByteArray deep = QByteArray(100000, '[') + QByteArray(100000, ']');
        QTest::newRow("deep nesting") << deep << "";
    }
    void refuses_bad_and_hostile_catalogs() {
        QFETCH(QByteArray, json);
        QFETCH(QString, problem);
        const CatalogParseResult result = parseModelCatalog(json);
        QVERIFY(result.entries.isEmpty());
        QVERIFY(!result.error.isEmpty());
        QVERIFY2(result.error.contains(problem), qPrintable(result.error));
    }

    // The error says which entry: the third one here.
    void names_the_bad_entry() {
        QJsonObject bad = goodEntry("third");
        bad["parameters"] = 0;
        const CatalogParseResult result =
            parseModelCatalog(catalogOf({goodEntry("first"), goodEntry("second"), bad}));
        QVERIFY(result.entries.isEmpty());
        QVERIFY2(result.error.startsWith("entry 3 (third), field \"parameters\""), qPrintable(result.error));
    }

    // The errors reach the user when a refreshed catalog is refused: they speak the app's
    // language, the JSON field names inside them as the file spells them.
    void errors_are_translated() {
        QTranslator german;
        QVERIFY(german.load(QStringLiteral("hearth_de"), QStringLiteral(":/i18n")));
        QVERIFY(QCoreApplication::installTranslator(&german));
        const auto removeGerman = qScopeGuard([&german] { QCoreApplication::removeTranslator(&german); });

        QCOMPARE(parseModelCatalog(catalogWith("sha256", "abc123")).error,
                 QString("Eintrag 1 (qwen2.5-0.5b-instruct-q4_k_m), Feld „sha256“: muss leer sein oder aus "
                         "64 Hexadezimalziffern bestehen"));
        QJsonObject bad = goodEntry("third");
        bad["parameters"] = 0;
        QCOMPARE(parseModelCatalog(catalogOf({goodEntry("first"), goodEntry("second"), bad})).error,
                 QString("Eintrag 3 (third), Feld „parameters“: muss eine ganze Zahl von 1 bis %1 sein")
                     .arg(qint64(1) << 44));
        QCOMPARE(parseModelCatalog(catalogOf({QJsonValue(7)})).error, QString("Eintrag 1: kein Objekt"));
        QCOMPARE(
            parseModelCatalog(QJsonDocument(QJsonObject{{"version", 2}, {"models", QJsonArray{}}}).toJson())
                .error,
            QString(
                "das Feld „version“ des Katalogs ist nicht 1 (eine neuere App kann ihn vielleicht lesen)"));
        QCOMPARE(parseModelCatalog(QJsonDocument(QJsonObject{{"version", 1}}).toJson()).error,
                 QString("der Katalog hat keine Liste „models“"));
        QVERIFY(parseModelCatalog(QByteArray("{")).error.startsWith("der Katalog ist kein gültiges JSON ("));
        // The file name's rules come from the downloader (hearth::download), translated as well.
        QCOMPARE(parseModelCatalog(catalogWith("url", "https://huggingface.co/a/b/resolve/main/.hidden.gguf"))
                     .error,
                 QString("Eintrag 1 (qwen2.5-0.5b-instruct-q4_k_m), Feld „url“: „.hidden.gguf“ ist kein "
                         "verwendbarer Dateiname"));
        QCOMPARE(parseModelCatalog(catalogOf({goodEntry(), goodEntry()})).error,
                 QString("Eintrag 2 (qwen2.5-0.5b-instruct-q4_k_m), Feld „id“: doppelt aufgeführt"));

        // Without the translator, English again.
        QCoreApplication::removeTranslator(&german);
        QCOMPARE(parseModelCatalog(catalogOf({QJsonValue(7)})).error, QString("entry 1: not an object"));
    }

    void the_built_in_catalog_is_valid() {
        const CatalogParseResult result = builtInModelCatalog();
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QVERIFY(result.entries.size() >= 8);
        qsizetype runnable = 0;
        for (const CatalogEntry& entry : result.entries) {
            QVERIFY(entry.url.toString().startsWith("https://huggingface.co/"));
            runnable += isRunnableArchitecture(entry.architecture) ? 1 : 0;
        }
        // Every recommended model is one this engine runs (the marks are checked below).
        QCOMPARE(runnable, result.entries.size());
        // Each pins its file's SHA-256 and names who published the digest.
        for (const CatalogEntry& entry : result.entries) {
            QVERIFY2(entry.sha256Hex.size() == 64, qPrintable(entry.id));
            QVERIFY2(entry.sha256Source.contains("commit"), qPrintable(entry.id));
        }
        // The larger Qwen3 and Llama 3.2 models name their drafts (checked by the parser).
        int paired = 0;
        for (const CatalogEntry& entry : result.entries)
            paired += entry.draftId.isEmpty() ? 0 : 1;
        QVERIFY(paired >= 3);
    }

    // A vision model's projector, downloaded with it: read, its fields checked like the entry's
    // (errors name "<id> projector"), and the built-in Gemma 3 4B's saved under a name the model
    // picker pairs with the model's file.
    void projectors_are_read_and_checked() {
        const QJsonObject projector{
            {"url", "https://huggingface.co/ggml-org/gemma-3-4b-it-GGUF/resolve/main/mmproj-model-f16.gguf"},
            {"sha256", QString(64, QLatin1Char('B'))},
            {"fileBytes", 851251104},
            {"fileName", "mmproj-qwen2.5-0.5b-instruct-f16.gguf"}};
        CatalogParseResult result = parseModelCatalog(catalogWith("projector", projector));
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QVERIFY(result.entries[0].projector.has_value());
        QCOMPARE(result.entries[0].projector->sha256Hex, QByteArray(64, 'b'));
        QCOMPARE(result.entries[0].projector->fileName, QString("mmproj-qwen2.5-0.5b-instruct-f16.gguf"));
        QCOMPARE(result.entries[0].projector->fileBytes, 851251104);
        QVERIFY(!parseModelCatalog(catalogOf({goodEntry()})).entries[0].projector.has_value());

        const auto refused = [&](const char* field, const QJsonValue& value) {
            QJsonObject bad = projector;
            if (value.isUndefined())
                bad.remove(QLatin1String(field));
            else
                bad[QLatin1String(field)] = value;
            return parseModelCatalog(catalogWith("projector", bad)).error;
        };
        QString error = refused("sha256", QJsonValue::Undefined);
        QVERIFY2(error.contains("projector), field \"sha256\""), qPrintable(error));
        error = refused("sha256", "");
        QVERIFY2(error.contains("sha256"), qPrintable(error));
        error = refused("url", "https://evil.example/mmproj.gguf");
        QVERIFY2(error.contains("field \"url\": must be an https://"), qPrintable(error));
        error = refused("fileName", "../mmproj.gguf");
        QVERIFY2(error.contains("field \"fileName\""), qPrintable(error));
        error = refused("fileName", "mmproj.bin");
        QVERIFY2(error.contains(".gguf"), qPrintable(error));
        error = parseModelCatalog(catalogWith("projector", 5)).error;
        QVERIFY2(error.contains("field \"projector\": not an object"), qPrintable(error));

        const CatalogParseResult builtIn = builtInModelCatalog();
        int projectors = 0;
        for (const CatalogEntry& entry : builtIn.entries) {
            if (!entry.projector) continue;
            ++projectors;
            QCOMPARE(entry.projector->sha256Hex.size(), 64);
            QVERIFY2(pairImageProjector(entry.fileName(), {entry.projector->fileName}) ==
                         entry.projector->fileName,
                     qPrintable(entry.projector->fileName));
            // Not paired with another entry's file, were both in one folder.
            for (const CatalogEntry& other : builtIn.entries)
                if (other.id != entry.id && other.architecture == entry.architecture)
                    QVERIFY2(
                        pairImageProjector(other.fileName(), {entry.projector->fileName, "mmproj-x-f16.gguf"})
                            .isEmpty(),
                        qPrintable(other.fileName()));
        }
        QVERIFY(projectors >= 1);
    }

    void runnable_architectures_are_the_engines() {
        QVERIFY(isRunnableArchitecture("llama"));
        QVERIFY(isRunnableArchitecture("qwen2"));
        QVERIFY(isRunnableArchitecture("qwen3"));
        for (const char* architecture : {"gemma2", "gemma3", "phi3", "gpt2", "qwen3moe"})
            QVERIFY2(isRunnableArchitecture(architecture), architecture);
        QVERIFY(!isRunnableArchitecture("mamba"));
        QVERIFY(!isRunnableArchitecture("Qwen2"));
    }

    void memory_is_checked_against_this_machine() {
        const qint64 ram = physicalMemoryBytes();
        QVERIFY(ram > (qint64(256) << 20)); // sysconf found the machine's memory
        QCOMPARE(memoryFit(ram / 10, ram), MemoryFit::Fits);
        QCOMPARE(memoryFit(ram / 10 * 9, ram), MemoryFit::Tight);
        QCOMPARE(memoryFit(ram + 1, ram), MemoryFit::TooLarge);
        QCOMPARE(memoryFit(100, 0), MemoryFit::Unknown);
    }

    void the_list_model_marks_rows() {
        QJsonObject other = goodEntry("mamba");
        other["architecture"] = "mamba";
        QJsonObject huge = goodEntry("huge");
        huge["fileBytes"] = double(qint64(1) << 41);
        huge["memoryBytes"] = double(qint64(1) << 41);
        const CatalogParseResult result = parseModelCatalog(catalogOf({goodEntry(), other, huge}));
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        CatalogListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setEntries(result.entries, qint64(16) << 30);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.data(model.index(0), CatalogListModel::RunnableRole).toBool(), true);
        QCOMPARE(model.data(model.index(0), CatalogListModel::MemoryFitRole).toString(), QString("fits"));
        QCOMPARE(model.data(model.index(0), CatalogListModel::ChecksumKnownRole).toBool(), false);
        QCOMPARE(model.data(model.index(1), CatalogListModel::RunnableRole).toBool(), false);
        QCOMPARE(model.data(model.index(2), CatalogListModel::MemoryFitRole).toString(), QString("tooLarge"));
        QCOMPARE(model.data(model.index(0), CatalogListModel::DownloadStateRole).toString(), QString("none"));

        CatalogDownloadStatus status;
        status.state = "running";
        status.receivedBytes = 250;
        status.totalBytes = 1000;
        status.bytesPerSecond = 2e6;
        status.secondsLeft = 75;
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setStatus("mamba", status);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed[0][0].value<QModelIndex>().row(), 1);
        QCOMPARE(model.data(model.index(1), CatalogListModel::ProgressRole).toDouble(), 0.25);
        QCOMPARE(model.data(model.index(1), CatalogListModel::SpeedRole).toString(), QString("2.0 MB/s"));
        QCOMPARE(model.data(model.index(1), CatalogListModel::TimeLeftRole).toString(),
                 QString("1 min 15 s"));
        QCOMPARE(model.data(model.index(1), CatalogListModel::TransferRole).toString(),
                 QString("250 bytes of 1.0 KB (25%)"));
    }

    // A model names its draft for speculative decoding: another entry of its family, smaller;
    // anything else refuses the catalog, naming the entry and the field. The rows show the
    // draft's name and its download state, which follows the draft's own row.
    void drafts_pair_with_their_targets() {
        QJsonObject target = goodEntry("big");
        target["parameters"] = 7000000000.0;
        target["draft"] = "small";
        const QJsonObject draft = goodEntry("small");
        CatalogParseResult result = parseModelCatalog(catalogOf({target, draft}));
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.entries[0].draftId, QString("small"));
        QVERIFY(result.entries[1].draftId.isEmpty());

        CatalogListModel model;
        model.setEntries(result.entries, qint64(16) << 30);
        QCOMPARE(model.data(model.index(0), CatalogListModel::DraftNameRole).toString(),
                 draft["name"].toString());
        QCOMPARE(model.data(model.index(0), CatalogListModel::DraftStateRole).toString(), QString("none"));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        CatalogDownloadStatus done;
        done.state = "done";
        model.setStatus("small", done);
        QCOMPARE(changed.size(), 2); // the draft's row, and the row it drafts for
        QCOMPARE(model.data(model.index(0), CatalogListModel::DraftStateRole).toString(), QString("done"));
        QVERIFY(model.data(model.index(1), CatalogListModel::DraftNameRole).toString().isEmpty());

        const auto refused = [&](const QJsonObject& changedTarget, const QJsonObject& changedDraft,
                                 const char* why) {
            const CatalogParseResult bad = parseModelCatalog(catalogOf({changedTarget, changedDraft}));
            QVERIFY2(bad.entries.isEmpty() && bad.error.contains("draft") && bad.error.contains("big") &&
                         bad.error.contains(why),
                     qPrintable(bad.error));
        };
        QJsonObject unknown = target;
        unknown["draft"] = "absent";
        refused(unknown, draft, "names no entry");
        QJsonObject itself = target;
        itself["draft"] = "big";
        refused(itself, draft, "names itself");
        QJsonObject otherFamily = draft;
        otherFamily["architecture"] = "gemma3";
        refused(target, otherFamily, "gemma3");
        QJsonObject larger = draft;
        larger["parameters"] = 9000000000.0;
        refused(target, larger, "not smaller");
    }

    // A mixture of experts says how many of its parameters a token multiplies; no more than it has.
    void active_parameters_are_read_and_checked() {
        QJsonObject moe = goodEntry();
        moe["activeParameters"] = 100000000;
        CatalogParseResult result = parseModelCatalog(catalogOf({moe}));
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.entries[0].activeParameters, qint64(100000000));
        moe["activeParameters"] = moe["parameters"].toDouble() * 2;
        result = parseModelCatalog(catalogOf({moe}));
        QVERIFY2(result.error.contains("activeParameters"), qPrintable(result.error));
    }

    // With this machine's limits stored, every row predicts its speed from its size and
    // quantization; fewer active parameters (a mixture) stream fewer bytes, so it is faster.
    void rows_predict_their_speed_from_the_stored_limits() {
        const QString dir = QString::fromStdString(test::make_temp_dir("hearth-catalog-speed"));
        const QString file = dir + "/machine-limits.json";
        engine::MachineLimits limits;
        limits.cpu_name = engine::cpu_model_name();
        limits.isa = std::string(kernels::isa_name(kernels::active_kernels().isa));
        limits.threads = 2;
        limits.bandwidth_gbps = 4; // 398 MB: about 10 tokens a second
        limits.peak_gflops = 50;
        limits.gemm_rates = {{kernels::TensorType::Q4_K, 64, 100}};
        std::ofstream(file.toStdString()) << engine::machine_limits_to_json({limits});
        SpeedPredictor speed(file, 2);
        QSignalSpy measured(&speed, &SpeedPredictor::limitsChanged);
        speed.start();
        QVERIFY(QTest::qWaitFor([&] { return !speed.measuring(); }, 10000));
        QVERIFY(speed.limits());
        QCOMPARE(speed.limits()->bandwidth_gbps, 4.0); // the stored measurement, not a new one
        QVERIFY(speed.summary().contains("4.0 GB/s"));

        QJsonObject moe = goodEntry("moe");
        moe["activeParameters"] = moe["parameters"].toDouble() / 4;
        const CatalogParseResult result = parseModelCatalog(catalogOf({goodEntry(), moe}));
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        CatalogListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setEntries(result.entries, qint64(16) << 30);
        QCOMPARE(model.data(model.index(0), CatalogListModel::PredictionRole).toString(), QString());
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setSpeedPredictor(&speed);
        emit speed.limitsChanged();
        QCOMPARE(changed.size(), 1);
        const QString dense = model.data(model.index(0), CatalogListModel::PredictionRole).toString();
        QVERIFY2(dense.startsWith(QString::fromUtf8("≈ ")) &&
                     dense.endsWith("tok/s on this computer, fits in memory"),
                 qPrintable(dense));
        const double denseRate = dense.section(' ', 1, 1).toDouble();
        const double moeRate = model.data(model.index(1), CatalogListModel::PredictionRole)
                                   .toString()
                                   .section(' ', 1, 1)
                                   .toDouble();
        QVERIFY2(denseRate > 5 && denseRate < 15, qPrintable(dense));
        QVERIFY(moeRate > 3 * denseRate);
    }
};

QTEST_GUILESS_MAIN(TestModelCatalog)
#include "test_model_catalog.moc"
