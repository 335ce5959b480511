// The memory check before a load: what a model and its KV cache need (against the sizes a
// real model reports), MemAvailable read from /proc/meminfo text, and the refusal's message,
// which gives the numbers.
#include "engine/error.h"
#include "engine/gguf/gguf_file.h"
#include "engine/model/memory_check.h"
#include "tests/support/test_support.h"
#include <QTest>

using namespace hearth;
using kernels::TensorType;

class TestMemoryCheck : public QObject {
    Q_OBJECT

    static engine::ModelInfo stories() {
        return engine::Model::read_info(test::testdata("models/stories260K.gguf"));
    }

private slots:
    void needIsWeightsPlusTheCacheOfTheContext() {
        const engine::ModelInfo info = stories();
        const engine::MemoryNeed f16 = engine::memory_need(info, 256, TensorType::F16, TensorType::F16);
        QCOMPARE(f16.weight_bytes, info.file_bytes);
        // F16 keys and values: 2 bytes per element, n_layer x n_head_kv x head_dim each, per token.
        const int64_t perToken = int64_t{2} * 2 * info.n_layer * info.n_head_kv * info.head_dim;
        QCOMPARE(f16.kv_cache_bytes, perToken * 256);
        QCOMPARE(f16.total(), info.file_bytes + perToken * 256);
        QCOMPARE(engine::memory_need(info, 512, TensorType::F16, TensorType::F16).kv_cache_bytes,
                 2 * f16.kv_cache_bytes);
        QCOMPARE(f16.total(), info.estimated_bytes(256)); // the picker shows the same figure
    }

    // A mixture of experts holds every expert in memory, not only the few each token uses: the
    // estimate (the load's check and the picker's figure) counts all of their bytes.
    void moe_estimate_counts_every_expert() {
        const std::string path = test::testdata("models/tiny-qwen3moe.gguf");
        const auto file = gguf::GgufFile::open(path);
        QCOMPARE(file->get_int("qwen3moe.expert_used_count"), std::optional<int64_t>(2));
        QCOMPARE(file->get_int("qwen3moe.expert_count"), std::optional<int64_t>(8));
        int64_t expert_bytes = 0, all_bytes = 0;
        int expert_tensors = 0;
        for (const gguf::TensorInfo& t : file->tensors()) {
            all_bytes += static_cast<int64_t>(t.bytes);
            if (t.name.ends_with("_exps.weight") && t.name.find(".ffn_") != std::string::npos) {
                QCOMPARE(t.shape.size(), size_t{3});
                QCOMPARE(t.shape[2], int64_t{8}); // all 8 experts in the tensor
                expert_bytes += static_cast<int64_t>(t.bytes);
                ++expert_tensors;
            }
        }
        QCOMPARE(expert_tensors, 3 * 2); // gate, up and down in each of 2 layers

        const engine::ModelInfo info = engine::Model::read_info(path);
        const engine::MemoryNeed need = engine::memory_need(info, 256, TensorType::F16, TensorType::F16);
        QVERIFY2(need.weight_bytes >= expert_bytes,
                 qPrintable(QString("weights estimated at %1 bytes, the experts alone hold %2")
                                .arg(need.weight_bytes)
                                .arg(expert_bytes)));
        QVERIFY2(need.weight_bytes >= all_bytes,
                 qPrintable(QString("weights estimated at %1 bytes, the tensors hold %2")
                                .arg(need.weight_bytes)
                                .arg(all_bytes)));
        QCOMPARE(info.estimated_bytes(256), need.total()); // the picker shows the same figure
        QVERIFY(need.total() >= expert_bytes + need.kv_cache_bytes);
    }

    void quantizedCacheNeedsLessWhereTheHeadTakesIt() {
        const engine::ModelInfo llama = engine::Model::read_info(test::testdata("models/tiny-llama3.gguf"));
        QVERIFY(llama.head_dim % 32 == 0);
        const auto f16 = engine::memory_need(llama, 1024, TensorType::F16, TensorType::F16);
        const auto q8 = engine::memory_need(llama, 1024, TensorType::Q8_0, TensorType::Q8_0);
        QVERIFY2(q8.kv_cache_bytes * 32 == f16.kv_cache_bytes * 17, // 34 bytes per 32 against 64
                 qPrintable(QString("%1 vs %2").arg(q8.kv_cache_bytes).arg(f16.kv_cache_bytes)));
    }

    void readsMemAvailable() {
        const std::string meminfo = "MemTotal:       16318504 kB\n"
                                    "MemFree:          512000 kB\n"
                                    "MemAvailable:    8123456 kB\n"
                                    "Buffers:           12345 kB\n";
        QCOMPARE(engine::parse_mem_available(meminfo), std::optional<int64_t>(int64_t{8123456} * 1024));
        QVERIFY(!engine::parse_mem_available("MemTotal: 1 kB\n").has_value()); // old kernels lack it
        QVERIFY(!engine::parse_mem_available("MemAvailable: lots\n").has_value());
        QVERIFY(!engine::parse_mem_available("MemAvailable: 12 MB\n").has_value());
        QVERIFY(!engine::parse_mem_available("MemAvailable: 99999999999999999999 kB\n").has_value());
        QVERIFY(!engine::parse_mem_available("").has_value());
    }

    void readsThisMachinesMemory() {
        qunsetenv("HEARTH_AVAILABLE_MEMORY");
        const std::optional<int64_t> available = engine::available_memory_bytes();
        QVERIFY(available.has_value());
        QVERIFY(*available > 0);
        qputenv("HEARTH_AVAILABLE_MEMORY", "123456789");
        QCOMPARE(engine::available_memory_bytes(), std::optional<int64_t>(123456789));
        qputenv("HEARTH_AVAILABLE_MEMORY", "12x"); // not a number: the real figure
        QVERIFY(engine::available_memory_bytes() != std::optional<int64_t>(12));
        qunsetenv("HEARTH_AVAILABLE_MEMORY");
    }

    void formatsSizes() {
        QCOMPARE(engine::format_memory(int64_t{3} << 29), std::string("1.5 GiB"));
        QCOMPARE(engine::format_memory(int64_t{640} << 20), std::string("640.0 MiB"));
        QCOMPARE(engine::format_memory(int64_t{1} << 30), std::string("1.0 GiB"));
    }

    void refusesWithTheNumbers() {
        engine::MemoryNeed need;
        need.weight_bytes = int64_t{4} << 30;
        need.kv_cache_bytes = int64_t{512} << 20;
        need.n_ctx = 4096;
        engine::check_memory_fits("big.gguf", need, need.total()); // exactly enough passes
        engine::check_memory_fits("big.gguf", need, std::nullopt); // unknown passes
        try {
            engine::check_memory_fits("big.gguf", need, need.total() - 1);
            QFAIL("a model one byte too large must be refused");
        } catch (const Error& e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.startsWith("big.gguf: needs 4.5 GiB"), e.what());
            QVERIFY2(message.contains("4.0 GiB of weights"), e.what());
            QVERIFY2(message.contains("512.0 MiB of KV cache for 4096 tokens"), e.what());
            QVERIFY2(message.contains("only 4.5 GiB is available"), e.what());
            QVERIFY2(message.contains("shorter context"), e.what()); // the weights alone fit
        }
        try {
            engine::check_memory_fits("big.gguf", need, int64_t{3} << 30);
            QFAIL("weights larger than the memory must be refused");
        } catch (const Error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains("only 3.0 GiB is available"), e.what());
            QVERIFY2(!QString::fromUtf8(e.what()).contains("shorter context"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestMemoryCheck)
#include "test_memory_check.moc"
