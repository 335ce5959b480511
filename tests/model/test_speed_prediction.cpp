// The speed prediction's arithmetic with given limits, what a file's tensors say one token
// costs, and the stored measurements (engine/model/speed_prediction.h, machine_limits.h).
#include "engine/error.h"
#include "engine/gguf/gguf_file.h"
#include "engine/model/hparams.h"
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
    l.product_overhead_microseconds = 30; // only where a cost has dense products
    l.decode_product_overhead_microseconds = 4;
    l.swiglu_gvalues = 4;
    l.gelu_gvalues = 2;
    l.gemm_rates = {{TensorType::Q4_K, 1, 300},  {TensorType::Q4_K, 2, 50},    {TensorType::Q4_K, 16, 200},
                    {TensorType::Q4_K, 64, 400}, {TensorType::Q4_K, 512, 500}, {TensorType::Q6_K, 64, 300},
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
        cost.prompt_work = {{TensorType::Q4_K, 1'000'000'000}};
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
        cost.prompt_work = {{TensorType::Q4_K, 3'000'000}, {TensorType::Q6_K, 1'000'000}};
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

    // A pass multiplies each expert once, over the rows that chose it: with 4 rows that each
    // choose 2 of 4 experts, an expert gets r rows with chance C(4, r) / 16, each count at its
    // own rate (one row: 300, two: 50, three and four: between 2 and 16 on a log scale).
    void experts_run_once_a_pass_over_the_rows_that_chose_them() {
        engine::ModelCost cost;
        cost.decode_weight_bytes = 1;
        cost.prompt_work = {{TensorType::Q4_K, 2'000'000, 4, 2}}; // 2 experts of 1M weights a token
        engine::PredictionOptions options;
        options.prompt_tokens = 8;
        options.prompt_batch = 4;
        const engine::SpeedPrediction p = engine::predict_speed(cost, limits_for_test(), options);
        const double rate_of_3 = 50 + std::log(1.5) / std::log(8.0) * (200 - 50);
        const double rate_of_4 = 50 + std::log(2.0) / std::log(8.0) * (200 - 50);
        // An expert of r rows: its products at the rate of r rows, or the read of its 1M Q4_K
        // weights (144 bytes per 256) at 20 GB/s, whichever is longer, and half the shorter (a
        // small matrix's read and arithmetic overlap only in part).
        const auto expert = [](double r, double gflops) {
            const double compute = 2 * 1e6 * r / (gflops * 1e9), read = 1e6 * 144.0 / 256.0 / 20e9;
            return std::max(compute, read) + 0.5 * std::min(compute, read);
        };
        const double expert_seconds = 4.0 / 16 * expert(1, 300) + 6.0 / 16 * expert(2, 50) +
                                      4.0 / 16 * expert(3, rate_of_3) + 1.0 / 16 * expert(4, rate_of_4);
        QVERIFY(expert(1, 300) > 2 * 1e6 / 300e9); // one row waits on memory, not on the products
        const double pass = 4 * expert_seconds;    // every expert, 2 passes of 4 rows
        QVERIFY2(close(p.prefill_tokens_per_second, 8 / (2 * pass)),
                 qPrintable(QString::number(p.prefill_tokens_per_second)));
        // At one rate for every batch, fast enough that every expert's weights are the limit:
        // each expert read once a pass (15 of 16 passes reach it), its arithmetic half hidden.
        engine::MachineLimits flat = limits_for_test();
        flat.gemm_rates = {{TensorType::Q4_K, 1, 10000}, {TensorType::Q4_K, 512, 10000}};
        const double read_pass = 4 * (4.0 / 16 * expert(1, 10000) + 6.0 / 16 * expert(2, 10000) +
                                      4.0 / 16 * expert(3, 10000) + 1.0 / 16 * expert(4, 10000));
        QVERIFY(read_pass < 4 * 15.0 / 16 * expert(1, 10000) * 1.05); // the reads, nearly all of it
        QVERIFY2(
            close(engine::predict_speed(cost, flat, options).prefill_tokens_per_second, 8 / (2 * read_pass)),
            qPrintable(
                QString::number(engine::predict_speed(cost, flat, options).prefill_tokens_per_second)));
    }

    // A mixture's decode: its chosen experts' read, half their one-row arithmetic more (a small
    // matrix's product is over before the two overlap as on a long stream), and a pool job more
    // per layer for each chosen expert's down product and the router.
    void a_mixtures_decode_pays_for_its_small_products() {
        engine::ModelCost cost;
        cost.n_layer = 10;
        cost.decode_weight_bytes = 562'500'000; // the chosen experts' 1 G Q4_K weights
        cost.prompt_work = {{TensorType::Q4_K, 1'000'000'000, 128, 8}};
        cost.extra_decode_jobs_per_layer = 9;
        const double read = 562.5e6 / 20e9, compute = 2 * 1e9 / 300e9; // one row at 300 GFLOP/s
        const double seconds = read + 0.5 * compute + 10 * (engine::kPoolJobsPerLayer + 9) * 5e-6;
        const double predicted = engine::predict_speed(cost, limits_for_test(), {}).decode_tokens_per_second;
        QVERIFY2(close(predicted, 1 / seconds), qPrintable(QString::number(predicted)));
    }

    // Decode reads every weight once a token, or, where a type's one-row kernel is slower than
    // that read, takes its products' time: 1 G Q4_K weights (0.5625 GB) at 20 GB/s take 28 ms;
    // at 300 GFLOP/s their products take less; at 10, 200 ms.
    void decode_takes_the_longer_of_read_and_products() {
        engine::ModelCost cost;
        cost.decode_weight_bytes = 562'500'000;
        cost.prompt_work = {{TensorType::Q4_K, 1'000'000'000}};
        QVERIFY(close(engine::predict_speed(cost, limits_for_test(), {}).decode_tokens_per_second,
                      20e9 / 562.5e6));
        engine::MachineLimits slow = limits_for_test();
        slow.gemm_rates = {{TensorType::Q4_K, 1, 10}, {TensorType::Q4_K, 512, 500}};
        QVERIFY(close(engine::predict_speed(cost, slow, {}).decode_tokens_per_second, 1 / 0.2));
    }

    // The last pass of a prompt takes what is left, and never a single row: 129 rows in passes
    // of 64 run as 64, 63 and 2 (not 64, 64, 1), each at its own rate.
    void a_prompt_runs_in_the_engines_passes() {
        engine::ModelCost cost;
        cost.decode_weight_bytes = 1;
        cost.prompt_work = {{TensorType::Q4_K, 1'000'000}};
        engine::PredictionOptions options;
        options.prompt_tokens = 129;
        options.prompt_batch = 64;
        const engine::SpeedPrediction p = engine::predict_speed(cost, limits_for_test(), options);
        const double rate_of_63 = 200 + std::log(63.0 / 16) / std::log(4.0) * (400 - 200);
        const double seconds = 64 * 2 * 1e6 / 400e9 + 63 * 2 * 1e6 / (rate_of_63 * 1e9) + 2 * 2 * 1e6 / 50e9;
        QVERIFY2(close(p.prefill_tokens_per_second, 129 / seconds),
                 qPrintable(QString::number(p.prefill_tokens_per_second)));
    }

    // Each pass pays each dense product's fixed overhead: 8 passes of 512 rows by 64, 7 products;
    // decode pays its own per product and for the output.
    void each_pass_pays_each_products_overhead() {
        engine::ModelCost cost;
        cost.decode_weight_bytes = 1;
        cost.prompt_work = {{TensorType::Q4_K, 1'000'000}};
        cost.dense_products = 7;
        cost.decode_products = 8;
        engine::PredictionOptions options;
        options.prompt_tokens = 512;
        options.prompt_batch = 64;
        const engine::MachineLimits limits = limits_for_test();
        const double matrices = 512 * 2 * 1e6 / 400e9;
        QVERIFY(close(engine::predict_speed(cost, limits, options).prefill_tokens_per_second,
                      512 / (matrices + 8 * 7 * 30e-6)));
        // Decode: its byte at 20 GB/s (the products read faster than they multiply), and the 7
        // products and the output at 4 us each.
        QVERIFY(close(engine::predict_speed(cost, limits, options).decode_tokens_per_second,
                      1 / (1 / 20e9 + 8 * 4e-6)));
    }

    // The FFN's activation runs over its gate values at its kernel's measured rate.
    void the_activation_costs_its_values_over_its_rate() {
        engine::ModelCost cost;
        cost.decode_weight_bytes = 1;
        cost.prompt_work = {{TensorType::Q4_K, 1'000'000}};
        cost.activation_values = 100'000;
        engine::PredictionOptions options;
        options.prompt_batch = 64;
        const double matrices = 2 * 1e6 / 400e9;
        const engine::MachineLimits limits = limits_for_test();
        QVERIFY(close(engine::predict_speed(cost, limits, options).prefill_tokens_per_second,
                      1 / (matrices + 1e5 / 4e9)));
        cost.activation = engine::Activation::Gelu;
        QVERIFY(close(engine::predict_speed(cost, limits, options).prefill_tokens_per_second,
                      1 / (matrices + 1e5 / 2e9)));
    }

    void rates_between_measured_batches_follow_a_log_scale() {
        const engine::MachineLimits l = limits_for_test();
        QVERIFY(close(l.gemm_gflops(TensorType::Q4_K, 32), 300)); // halfway from 16 to 64
        QVERIFY(close(l.gemm_gflops(TensorType::Q4_K, 4), 100));  // a third of the way from 2 to 16
        QVERIFY(close(l.gemm_gflops(TensorType::Q6_K, 4), 300));  // below the smallest: its rate
        QVERIFY(close(l.gemm_gflops(TensorType::Q4_K, 4096), 500));
        QCOMPARE(l.gemm_gflops(TensorType::Q8_0, 64), 0.0);
    }

    void an_unmeasured_type_predicts_no_prefill() {
        engine::ModelCost cost;
        cost.decode_weight_bytes = 1'000'000;
        cost.prompt_work = {{TensorType::Q8_0, 1'000'000}};
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
            QCOMPARE(w.experts, 1);
        // SwiGLU over n_ff gate values a layer.
        const engine::HyperParams hp = engine::read_hyperparams(*file);
        QCOMPARE(cost.activation, engine::Activation::Swiglu);
        QCOMPARE(cost.activation_values, int64_t{hp.n_ff} * hp.n_layer);
        // Seven products a layer (Q, K, V, output, gate, up, down); decode also the output's.
        QCOMPARE(cost.dense_products, int64_t{7} * hp.n_layer);
        QCOMPARE(cost.decode_products, int64_t{7} * hp.n_layer + 1);
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
            shared = shared || (w.experts == count && w.chosen == used);
        QVERIFY(shared);
        // Each chosen expert's SwiGLU.
        const engine::HyperParams hp = engine::read_hyperparams(*file);
        QCOMPARE(cost.activation_values, int64_t{hp.n_ff_expert} * used * hp.n_layer);
        // A down product per chosen expert, and the router, in each layer of a decoded token.
        QCOMPARE(cost.extra_decode_jobs_per_layer, static_cast<int32_t>(used) + 1);
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
        QCOMPARE(back[0].swiglu_gvalues, l.swiglu_gvalues);
        QCOMPARE(back[0].gelu_gvalues, l.gelu_gvalues);
        QCOMPARE(back[0].product_overhead_microseconds, l.product_overhead_microseconds);
        QCOMPARE(back[0].decode_product_overhead_microseconds, l.decode_product_overhead_microseconds);
    }

    // A list of an earlier version (1: before the activation rates and the one- and two-row
    // batches; 2: kernel rates timed over single calls, read short; 3: before the products'
    // overhead) is not used: it is measured again.
    void a_list_of_an_earlier_version_is_refused() {
        for (const char* earlier : {"\"version\": 1", "\"version\": 2", "\"version\": 3"}) {
            std::string json = engine::machine_limits_to_json({limits_for_test()});
            const size_t version = json.find("\"version\": 4");
            QVERIFY(version != std::string::npos);
            json.replace(version, 12, earlier);
            QVERIFY_THROWS_EXCEPTION(Error, engine::machine_limits_from_json(json, "limits.json"));
        }
    }

    void damaged_json_is_refused_naming_the_file() {
        try {
            engine::machine_limits_from_json("{\"version\": 3, \"measurements\": [{}]}", "/x/limits.json");
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
