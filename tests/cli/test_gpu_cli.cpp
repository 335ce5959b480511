// hearth-cli on a Vulkan device, run as a user would: `devices` lists what the engine sees,
// `logits --device vulkan` meets the reference rule (the whole model and a split), and a device
// that does not exist is a clear error with exit status 2. The validation layer is on
// (HEARTH_VULKAN_VALIDATION=1) for every run.
#include "engine/forward/compute_device.h"
#include "engine/model/model.h"
#include "tests/support/cli_run.h"
#include "tests/support/printed_logits.h"
#include "tests/support/reference_logits.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <cmath>

namespace {

using Run = hearth::test::CliRun;
using hearth::test::run_cli;

using hearth::test::joined;
using hearth::test::model;

bool have_device() {
    return !hearth::engine::gpu_devices().empty();
}

} // namespace

class TestGpuCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qputenv("HEARTH_VULKAN_VALIDATION", "1"); }

    // Every device the engine sees, with its properties; or a line saying there is none.
    void devices_lists_the_vulkan_devices() {
        const Run r = run_cli({"devices"});
        QCOMPARE(r.status, 0);
        const std::vector<hearth::engine::GpuDeviceInfo> devices = hearth::engine::gpu_devices();
        if (devices.empty()) {
            QVERIFY2(r.out.startsWith("no Vulkan devices"), qPrintable(r.out));
            return;
        }
        for (const hearth::engine::GpuDeviceInfo& d : devices) {
            QVERIFY2(
                r.out.contains(QString("vulkan:%1  %2").arg(d.index).arg(QString::fromStdString(d.name))),
                qPrintable(r.out));
            QVERIFY(r.out.contains(QString("type: %1").arg(QString::fromStdString(d.type))));
        }
        for (const char* property :
             {"vendor: ", "driver: ", "device memory: ", "subgroup size: ", "features: "})
            QVERIFY2(r.out.count(property) == static_cast<qsizetype>(devices.size()), property);
        // This machine's and CI's Vulkan device is Mesa's lavapipe, on the CPU.
        qInfo("%s", qPrintable(r.out));
    }

    // `logits --device vulkan` on stories260K along every reference line meets the README's rule,
    // with the whole model on the device and with two of its five layers there.
    void logits_on_the_device_meet_the_reference_rule_data() {
        QTest::addColumn<QString>("layers");
        QTest::newRow("whole model") << "-1";
        QTest::newRow("2 of 5 layers") << "2";
    }
    void logits_on_the_device_meet_the_reference_rule() {
        QFETCH(QString, layers);
        if (!hearth::engine::vulkan_built()) QSKIP("this build has no Vulkan backend");
        if (!have_device()) QSKIP("no Vulkan device on this machine");
        const std::string name = "stories260K";
        const QString path = model("stories260K.gguf");
        const int n_vocab = hearth::engine::Model::read_info(path.toStdString()).n_vocab;
        hearth::test::TopFiveError error;
        for (const hearth::test::ReferenceLine& line : hearth::test::read_reference(name)) {
            const int from = static_cast<int>(line.first_predicting_row());
            const Run r =
                run_cli({"logits", "-m", path, "--tokens", joined(line.teacher_forced_sequence()), "--from",
                         QString::number(from), "-t", "2", "--device", "vulkan", "-ngl", layers});
            QVERIFY2(r.status == 0, qPrintable(r.err));
            QVERIFY2(r.err.contains("Vulkan: "), qPrintable(r.err)); // it says where it ran
            QVERIFY2(!r.err.contains("validation errors"), qPrintable(r.err));
            hearth::test::add_printed_logits(r.out, line, n_vocab, error);
            if (QTest::currentTestFailed()) return;
        }
        const hearth::test::LlamaCppError llama_cpp = hearth::test::llama_cpp_error(name);
        qInfo("%s on the device (-ngl %s): RMS %.3g (%.2fx llama.cpp's), max %.3g (%.2fx llama.cpp's)",
              name.c_str(), qPrintable(layers), error.rms(), error.rms() / llama_cpp.rms, error.max_abs(),
              error.max_abs() / llama_cpp.max_abs);
        QCOMPARE(error.steps(), llama_cpp.steps);
        QVERIFY(error.rms() <= hearth::test::kRmsRatioLimit * llama_cpp.rms);
        QVERIFY2(error.max_abs() <= hearth::test::kMaxRatioLimit * llama_cpp.max_abs,
                 qPrintable(QString::fromStdString(error.worst_at())));
    }

    // A device that does not exist, or a device option that does not parse: exit status 2 and
    // a message that says what is wrong, nothing on stdout.
    void bad_devices_are_refused_data() {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("message");
        QTest::newRow("vulkan:9") << QStringList{"--device", "vulkan:9"}
                                  << (hearth::engine::vulkan_built()
                                          ? (have_device() ? "no Vulkan device vulkan:9"
                                                           : "no Vulkan device found")
                                          : "no Vulkan backend");
        QTest::newRow("gpu") << QStringList{"--device", "gpu"} << "--device expects cpu, vulkan or vulkan:N";
        QTest::newRow("vulkan:x") << QStringList{"--device", "vulkan:x"} << "--device expects";
        QTest::newRow("-ngl -5") << QStringList{"--device", "vulkan", "-ngl", "-5"} << "-ngl expects";
    }
    void bad_devices_are_refused() {
        QFETCH(QStringList, options);
        QFETCH(QString, message);
        const Run r = run_cli(
            QStringList{"logits", "-m", model("stories260K.gguf"), "--tokens", "1 2 3", "--from", "0"} +
            options);
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestGpuCli)
#include "test_gpu_cli.moc"
