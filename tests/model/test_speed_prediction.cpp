// The speed prediction's arithmetic with given limits, what a file's tensors say one token
// costs, and the stored measurements (engine/model/speed_prediction.h, machine_limits.h).
#include "engine/error.h"
#include "engine/gguf/gguf_file.h"
#include "engine/model/machine_limits.h"
#include "engine/model/model.h"
#include "engine/model/speed_prediction.h"
#include "kernels/kernel_table.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>

using namespace hearth;
using kernels::TensorType;

namespace {

engine::MachineLimits limits_for_test() {
    engine::MachineLimits l;
    l.cpu_name = "Test CPU";
    l.isa = "avx2";
    l.threads = 4;
    l.bandwidth_gbps = 20;
    l.peak_gflops = 100;
    l.pool_job_microseconds = 5;
    l.gemm_rates = {{TensorType::Q4_K, 16, 200},
                    {TensorType::Q4_K, 64, 400},
                    {TensorType::Q4_K, 512, 500},
                    {TensorType::Q6_K, 64, 300},
                    {TensorType::Q6_K, 512, 300}};
    return l;
}

bool close(double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

int64_t file_bytes_of(const gguf::GgufFile& file, bool (*counted)(const gguf::TensorInfo&)) {
    int64_t bytes = 0;
    for (const gguf::TensorInfo& t : file.tensors())
        if (counted(t)) bytes += static_cast<int64_t>(t.bytes);
    return bytes;
}

} // namespace

class TestSpeedPrediction : public QObject {
    Q_OBJECT

private slots:
    void decode_is_bytes_over_bandwidth_plus_the_pool() {
        engine::ModelCost cost;
        cost.n_layer = 10;
        cost.decode_weight_bytes = 2'000'000'000;
        cost.kv_bytes_per_token = 100'000;
        cost.prompt_work = {{TensorType::Q4_K, 1'000'000'000, 1}};
        engine::PredictionOptions options;
        options.context_tokens = 1000;
        const engine::SpeedPrediction p = engine::predict_speed(cost, limits_for_test(), options);
        // 2.1 GB at 20 GB/s, and 10 layers of kPoolJobsPerLayer jobs of 5 us.
        const double seconds = 2.1e9 / 20e9 + 10 * engine::kPoolJobsPerLayer * 5e-6;
        QVERIFY2(close(p.decode_tokens_per_second, 1 / seconds),
                 qPrintable(QString::number(p.decode_tokens_per_second)));
    }

    void prefill_is_operations_over_each_types_rate() {
        engine::ModelCost cost;
        cost.n_layer = 2;
        cost.decode_weight_bytes = 1;
        cost.attention_multiply_adds = 1000;
        cost.prompt_work = {{TensorType::Q4_K, 3'000'000, 1}, {TensorType::Q6_K, 1'000'000, 1}};
        engine::PredictionOptions options;
        options.prompt_tokens = 512;
        options.prompt_batch = 64;
        const engine::SpeedPrediction p = engine::predict_speed(cost, limits_for_test(), options);
        const double per_token = 2 * 3e6 / 400e9 + 2 * 1e6 / 300e9 // the matrices at batch 64
                                 + 2 * 1000 * 256 / 100e9          // attention over half the prompt
                                 + 8 * (2 * engine::kPoolJobsPerLayer * 5e-6) / 512; // 8 batches
        QVERIFY2(close(p.prefill_tokens_per_second, 1 / per_token),
                 qPrintable(QString::number(p.prefill_tokens_per_second)));
    }

    void experts_run_at_the_rate_of_their_share_of_the_batch() {
        engine::ModelCost cost;
        cost.decode_weight_bytes = 1;
        cost.prompt_work = {{TensorType::Q4_K, 1'000'000, 4}}; // one row in 4 reaches them
        engine::PredictionOptions options;
        options.prompt_batch = 64;
        const engine::SpeedPrediction p = engine::predict_speed(cost, limits_for_test(), options);
        QVERIFY(close(p.prefill_tokens_per_second, 1 / (2 * 1e6 / 200e9))); // the rate at batch 16
    }

    void rates_between_measured_batches_follow_a_log_scale() {
        const engine::MachineLimits l = limits_for_test();
        QVERIFY(close(l.gemm_gflops(TensorType::Q4_K, 32), 300)); // halfway from 16 to 64
        QVERIFY(close(l.gemm_gflops(TensorType::Q4_K, 4), 200));  // below the smallest: its rate
        QVERIFY(close(l.gemm_gflops(TensorType::Q4_K, 4096), 500));
        QCOMPARE(l.gemm_gflops(TensorType::Q8_0, 64), 0.0);
    }

    void an_unmeasured_type_predicts_no_prefill() {
        engine::ModelCost cost;
        cost.decode_weight_bytes = 1'000'000;
        cost.prompt_work = {{TensorType::Q8_0, 1'000'000, 1}};
        const engine::SpeedPrediction p = engine::predict_speed(cost, limits_for_test());
        QCOMPARE(p.prefill_tokens_per_second, 0.0);
        QVERIFY(p.decode_tokens_per_second > 0);
    }

    void a_dense_file_streams_its_layers_and_output() {
        const auto file = gguf::GgufFile::open(test::testdata("models/tiny-llama3-Q4_K_M.gguf"));
        const engine::ModelCost cost = engine::model_cost(*file);
        const int64_t layers = file_bytes_of(*file, [](const gguf::TensorInfo& t) {
            return t.name.starts_with("blk.") && t.shape.size() == 2;
        });
        const gguf::TensorInfo* output = file->find_tensor("output.weight");
        if (!output) output = file->find_tensor("token_embd.weight"); // tied
        QVERIFY(output);
        QCOMPARE(cost.decode_weight_bytes, layers + static_cast<int64_t>(output->bytes));
        QCOMPARE(cost.n_layer, engine::Model::read_info(*file).n_layer);
        QVERIFY(!cost.prompt_work.empty());
        for (const engine::TypedWork& w : cost.prompt_work)
            QCOMPARE(w.batch_share, int64_t{1});
    }

    void a_mixture_streams_only_its_chosen_experts() {
        const auto file = gguf::GgufFile::open(test::testdata("models/tiny-qwen3moe-Q8_0.gguf"));
        const engine::ModelCost cost = engine::model_cost(*file);
        const int64_t count = *file->get_int("qwen3moe.expert_count");
        const int64_t used = *file->get_int("qwen3moe.expert_used_count");
        QVERIFY(used < count);
        int64_t experts = 0, rest = 0;
        for (const gguf::TensorInfo& t : file->tensors()) {
            if (t.name.starts_with("blk.") && t.shape.size() == 3)
                experts += static_cast<int64_t>(t.bytes) * used / count;
            if (t.name.starts_with("blk.") && t.shape.size() == 2) rest += static_cast<int64_t>(t.bytes);
        }
        const gguf::TensorInfo* output = file->find_tensor("output.weight");
        if (!output) output = file->find_tensor("token_embd.weight");
        QVERIFY(experts > 0);
        // Per tensor, rounded down as the cost rounds: within one byte per expert tensor.
        QVERIFY(std::abs(cost.decode_weight_bytes - (experts + rest + static_cast<int64_t>(output->bytes))) <=
                64);
        bool shared = false;
        for (const engine::TypedWork& w : cost.prompt_work)
            shared = shared || w.batch_share == count / used;
        QVERIFY(shared);
    }

    void a_size_alone_gives_an_approximate_cost() {
        const engine::ModelCost cost = engine::approximate_model_cost(1000, 200, 50, TensorType::Q4_K);
        QVERIFY(cost.approximate);
        QCOMPARE(cost.decode_weight_bytes, int64_t{250});
        QCOMPARE(cost.prompt_work.size(), size_t{1});
        QCOMPARE(cost.prompt_work[0].multiply_adds, int64_t{50});
    }

    void measurements_survive_json() {
        const engine::MachineLimits l = limits_for_test();
        const auto back =
            engine::machine_limits_from_json(engine::machine_limits_to_json({l}), "limits.json");
        QCOMPARE(back.size(), size_t{1});
        QCOMPARE(back[0].cpu_name, l.cpu_name);
        QCOMPARE(back[0].bandwidth_gbps, l.bandwidth_gbps);
        QCOMPARE(back[0].gemm_rates.size(), l.gemm_rates.size());
        QCOMPARE(back[0].gemm_gflops(TensorType::Q4_K, 32), l.gemm_gflops(TensorType::Q4_K, 32));
    }

    void damaged_json_is_refused_naming_the_file() {
        try {
            engine::machine_limits_from_json("{\"version\": 1, \"measurements\": [{}]}", "/x/limits.json");
            QFAIL("accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).starts_with("/x/limits.json: "), e.what());
        }
    }

    void a_stored_measurement_of_this_cpu_is_used_as_it_is() {
        const std::string dir = test::make_temp_dir("hearth-limits");
        const std::string path = dir + "/machine-limits.json";
        engine::MachineLimits stored = limits_for_test();
        stored.cpu_name = engine::cpu_model_name();
        stored.isa = std::string(kernels::isa_name(kernels::active_kernels().isa));
        stored.threads = 3;
        stored.bandwidth_gbps = 12.5; // no measurement gives exactly this
        std::ofstream(path) << engine::machine_limits_to_json({stored});
        const engine::MachineLimits found = engine::cached_machine_limits(path, 3, false);
        QCOMPARE(found.bandwidth_gbps, 12.5);
        QCOMPARE(found.gemm_rates.size(), stored.gemm_rates.size());
    }

    // An app that quits cancels the measurement it started: it ends with an error at once, and
    // nothing half measured is stored.
    void a_cancelled_measurement_throws_and_stores_nothing() {
        const std::string dir = test::make_temp_dir("hearth-limits");
        const std::string path = dir + "/machine-limits.json";
        const std::atomic<bool> cancelled{true};
        QVERIFY_THROWS_EXCEPTION(Error, engine::cached_machine_limits(path, 1, false, &cancelled));
        QVERIFY(!std::filesystem::exists(path));
    }
};

QTEST_GUILESS_MAIN(TestSpeedPrediction)
#include "test_speed_prediction.moc"
