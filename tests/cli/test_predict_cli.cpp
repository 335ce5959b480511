// hearth-cli predict: exactly three lines, "decode <tok/s>", "prefill <tok/s>" and
// "memory <MiB>", computed from the file and the stored limits of this machine.
#include "engine/forward/inference.h"
#include "engine/gguf/gguf_file.h"
#include "engine/model/machine_limits.h"
#include "engine/model/memory_check.h"
#include "engine/model/model.h"
#include "engine/model/speed_prediction.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"
#include <QDir>
#include <QRegularExpression>
#include <QTest>
#include <fstream>

using namespace hearth;

class TestPredictCli : public QObject {
    Q_OBJECT

    std::string cache_;

private slots:
    void initTestCase() {
        // Limits stored for this CPU, the scalar tier and one thread: predict uses them and
        // measures nothing.
        cache_ = test::make_temp_dir("hearth-predict-cache");
        engine::MachineLimits limits;
        limits.cpu_name = engine::cpu_model_name();
        limits.isa = "scalar";
        limits.threads = 1;
        limits.bandwidth_gbps = 10;
        limits.peak_gflops = 20;
        limits.pool_job_microseconds = 2;
        for (kernels::TensorType type :
             {kernels::TensorType::Q4_K, kernels::TensorType::Q6_K, kernels::TensorType::F32,
              kernels::TensorType::Q5_0, kernels::TensorType::Q8_0})
            for (int64_t batch : engine::kGemmRateBatches)
                limits.gemm_rates.push_back({type, batch, 5.0 + batch / 64.0});
        const std::string dir = cache_ + "/hearth";
        QVERIFY(QDir().mkpath(QString::fromStdString(dir)));
        std::ofstream(dir + "/machine-limits.json") << engine::machine_limits_to_json({limits});
        qputenv("XDG_CACHE_HOME", QByteArray::fromStdString(cache_));
    }

    void prints_decode_prefill_and_memory() {
        const QString path = test::model("tiny-llama3-Q4_K_M.gguf");
        const test::CliRun r = test::run_cli({"predict", "-m", path, "-t", "1", "--isa", "scalar"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        const QRegularExpression number(QStringLiteral("^\\d+(\\.\\d+)?$"));
        const QStringList names{"decode", "prefill", "memory"};
        for (int i = 0; i < 3; ++i) {
            const QStringList words = lines[i].split(' ');
            QCOMPARE(words.size(), 2);
            QCOMPARE(words[0], names[i]);
            QVERIFY2(number.match(words[1]).hasMatch(), qPrintable(lines[i]));
        }
        // The same figures as the engine's, from the stored limits.
        const auto file = gguf::GgufFile::open(path.toStdString());
        const std::string stored = cache_ + "/hearth/machine-limits.json";
        std::ifstream in(stored);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const engine::MachineLimits limits = engine::machine_limits_from_json(text, stored).front();
        QCOMPARE(limits.bandwidth_gbps, 10.0); // not measured over
        engine::PredictionOptions options;
        options.prompt_batch = engine::InferenceOptions().n_batch; // hearth-cli's default
        const engine::SpeedPrediction p = engine::predict_speed(engine::model_cost(*file), limits, options);
        QCOMPARE(lines[0], QString::asprintf("decode %.1f", p.decode_tokens_per_second));
        const engine::MemoryNeed need = engine::memory_need(
            engine::Model::read_info(*file), 4096, kernels::TensorType::F16, kernels::TensorType::F16);
        QCOMPARE(lines[2], QStringLiteral("memory %1").arg((need.total() + (1 << 20) - 1) >> 20));
        QVERIFY(lines[1] != "prefill 0.0");
    }

    void needs_a_model() {
        const test::CliRun r = test::run_cli({"predict", "-t", "1"});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("-m"), qPrintable(r.err));
    }

    void refuses_a_missing_file() {
        const test::CliRun r =
            test::run_cli({"predict", "-m", "/nonexistent/model.gguf", "-t", "1", "--isa", "scalar"});
        QVERIFY(r.status != 0);
        QVERIFY2(r.err.contains("/nonexistent/model.gguf"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestPredictCli)
#include "test_predict_cli.moc"
