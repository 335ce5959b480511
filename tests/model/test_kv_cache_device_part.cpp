// A KV cache whose first layers a device holds (KvCacheDevicePart), with a part in host memory
// standing for the device's: rows cross only when the host reads or writes a device layer's
// rows (saved states, context shift) or before the device's next pass after the host wrote, and
// never for the host's own layers. Also the device memory plan (device_plan.h) that decides how
// many layers a device takes. No device needed.
#include "engine/forward/device_plan.h"
#include "engine/forward/kv_cache.h"
#include "engine/model/hparams.h"
#include "engine/model/model.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <cstring>
#include <vector>

using namespace hearth;
using Part = engine::KvCache::Part;

namespace {

engine::HyperParams shape() {
    engine::HyperParams hp;
    hp.n_layer = 3;
    hp.n_head_kv = 2;
    hp.head_dim = 32;
    hp.n_head = 4;
    hp.n_embd = 128;
    return hp;
}

// What crossed, counted where the test can read it after the part is gone.
struct Crossings {
    int downloads = 0, uploads = 0, last_positions = -1;
};

// The "device": each held layer's keys and values in the host cache's layout.
class HostPart final : public engine::KvCacheDevicePart {
public:
    HostPart(const engine::KvCache& cache, int32_t n_layers, Crossings& crossed)
        : n_layers_(n_layers), crossed_(crossed) {
        for (int32_t l = 0; l < n_layers; ++l)
            for (const Part part : {Part::Keys, Part::Values})
                memory_.emplace_back(layer_bytes(cache, part));
    }
    int32_t n_layers() const override { return n_layers_; }
    void download(engine::KvCache& cache, int32_t n_positions) override {
        ++crossed_.downloads;
        crossed_.last_positions = n_positions;
        for_each_run(cache, n_positions,
                     [&](unsigned char* device, int32_t layer, Part part, int32_t h, size_t bytes) {
                         std::memcpy(cache.data(part, layer, h), device, bytes);
                     });
    }
    void upload(const engine::KvCache& cache, int32_t n_positions) override {
        ++crossed_.uploads;
        crossed_.last_positions = n_positions;
        for_each_run(cache, n_positions,
                     [&](unsigned char* device, int32_t layer, Part part, int32_t h, size_t bytes) {
                         std::memcpy(device, cache.data(part, layer, h), bytes);
                     });
    }
    // A byte of the device's copy of (layer, part, head, position).
    unsigned char& at(const engine::KvCache& cache, int32_t layer, Part part, int32_t h, int32_t pos) {
        const size_t row = cache.head_row_bytes(part);
        return memory_[static_cast<size_t>(2 * layer + (part == Part::Values))]
                      [(static_cast<size_t>(h) * cache.capacity() + pos) * row];
    }

private:
    static size_t layer_bytes(const engine::KvCache& cache, Part part) {
        return static_cast<size_t>(cache.n_head_kv()) * cache.capacity() * cache.head_row_bytes(part);
    }
    template <class Fn> void for_each_run(const engine::KvCache& cache, int32_t n_positions, Fn&& fn) {
        for (int32_t l = 0; l < n_layers_; ++l)
            for (const Part part : {Part::Keys, Part::Values})
                for (int32_t h = 0; h < cache.n_head_kv(); ++h)
                    fn(&at(cache, l, part, h, 0), l, part, h,
                       static_cast<size_t>(n_positions) * cache.head_row_bytes(part));
    }
    int32_t n_layers_;
    Crossings& crossed_;
    std::vector<std::vector<unsigned char>> memory_;
};

// Fills every row of positions [0, n) with bytes that tell them apart.
void fill(engine::KvCache& cache, int32_t n, unsigned char seed) {
    for (int32_t layer = 0; layer < cache.n_layer(); ++layer)
        for (const Part part : {Part::Keys, Part::Values})
            for (int32_t pos = 0; pos < n; ++pos) {
                std::vector<unsigned char> row(cache.row_bytes(part));
                for (size_t i = 0; i < row.size(); ++i)
                    row[i] = static_cast<unsigned char>(seed + 7 * layer + 3 * pos + i);
                cache.write_row(part, layer, pos, row.data());
            }
}

unsigned char first_byte(const engine::KvCache& cache, Part part, int32_t layer, int32_t pos) {
    std::vector<unsigned char> row(cache.row_bytes(part));
    cache.read_row(part, layer, pos, row.data());
    return row[0];
}

} // namespace

class TestKvCacheDevicePart : public QObject {
    Q_OBJECT

private slots:
    // Attached to a cache that holds rows: they go up once, before the device's next pass.
    void attaching_sends_the_rows_up_once() {
        engine::KvCache cache(shape(), 16);
        Crossings crossed;
        fill(cache, 5, 1);
        cache.append_tokens(std::vector<int32_t>{1, 2, 3, 4, 5});
        auto owned = std::make_unique<HostPart>(cache, 2, crossed);
        HostPart& part = *owned;
        cache.attach_device(std::move(owned));
        QCOMPARE(crossed.uploads, 0);
        cache.sync_device();
        QCOMPARE(crossed.uploads, 1);
        QCOMPARE(crossed.last_positions, 5);
        QCOMPARE(part.at(cache, 1, Part::Values, 0, 4), first_byte(cache, Part::Values, 1, 4));
        cache.sync_device(); // nothing new
        QCOMPARE(crossed.uploads, 1);
    }

    // Rows the device wrote come down when the host reads a device layer, once; the host's own
    // layers never bring anything down.
    void reads_bring_device_rows_down_once() {
        engine::KvCache cache(shape(), 16);
        Crossings crossed;
        auto owned = std::make_unique<HostPart>(cache, 2, crossed);
        HostPart& part = *owned;
        cache.attach_device(std::move(owned));
        cache.append_tokens(std::vector<int32_t>{1, 2, 3});
        part.at(cache, 0, Part::Keys, 1, 2) = 0xAB; // the device's pass wrote position 2
        cache.note_device_wrote();
        QVERIFY(cache.on_device(1) && !cache.on_device(2));
        first_byte(cache, Part::Keys, 2, 2); // a host layer
        QCOMPARE(crossed.downloads, 0);
        std::vector<unsigned char> row(cache.row_bytes(Part::Keys));
        cache.read_row(Part::Keys, 0, 2, row.data());
        QCOMPARE(crossed.downloads, 1);
        QCOMPARE(crossed.last_positions, 3);
        QCOMPARE(row[cache.head_row_bytes(Part::Keys)], 0xAB); // head 1's first byte
        std::vector<float> widened(static_cast<size_t>(cache.kv_width()));
        cache.read_row_f32(Part::Values, 1, 0, widened.data());
        QCOMPARE(crossed.downloads, 1);
    }

    // The host writing a device layer's rows (restore, context shift) brings the device's rows
    // down first and sends all back up before the next pass.
    void writes_go_up_before_the_next_pass() {
        engine::KvCache cache(shape(), 16);
        Crossings crossed;
        auto owned = std::make_unique<HostPart>(cache, 2, crossed);
        HostPart& part = *owned;
        cache.attach_device(std::move(owned));
        cache.append_tokens(std::vector<int32_t>{1, 2, 3, 4});
        part.at(cache, 1, Part::Keys, 0, 3) = 0x5C;
        cache.note_device_wrote();
        std::vector<float> row(static_cast<size_t>(cache.kv_width()), 0.5f);
        cache.write_row_f32(Part::Keys, 1, 1, row.data());
        QCOMPARE(crossed.downloads, 1); // first the device's rows
        QCOMPARE(crossed.uploads, 0);
        cache.sync_device();
        QCOMPARE(crossed.uploads, 1);
        QCOMPARE(part.at(cache, 1, Part::Keys, 0, 3), 0x5C); // kept through the round trip
        QCOMPARE(part.at(cache, 1, Part::Keys, 0, 1), first_byte(cache, Part::Keys, 1, 1));
        QCOMPARE(crossed.downloads, 1);
    }

    // A context shift's discard moves the device's rows on the host and sends them back.
    void discard_moves_the_device_rows() {
        engine::KvCache cache(shape(), 16);
        Crossings crossed;
        auto owned = std::make_unique<HostPart>(cache, 3, crossed);
        HostPart& part = *owned;
        cache.attach_device(std::move(owned));
        cache.append_tokens(std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8});
        for (int32_t pos = 0; pos < 8; ++pos)
            part.at(cache, 2, Part::Values, 1, pos) = static_cast<unsigned char>(100 + pos);
        cache.note_device_wrote();
        cache.discard(2, 3); // positions 5..7 move to 2..4
        QCOMPARE(crossed.downloads, 1);
        cache.sync_device();
        QCOMPARE(crossed.uploads, 1);
        QCOMPARE(crossed.last_positions, 5);
        QCOMPARE(part.at(cache, 2, Part::Values, 1, 2), 105);
        QCOMPARE(part.at(cache, 2, Part::Values, 1, 4), 107);
        QCOMPARE(part.at(cache, 2, Part::Values, 1, 1), 101);
    }

    // Detaching brings the rows home; dropping (a lost device) forgets the tokens instead.
    void detach_and_drop() {
        engine::KvCache cache(shape(), 16);
        Crossings crossed;
        auto owned = std::make_unique<HostPart>(cache, 1, crossed);
        HostPart* part = owned.get();
        cache.attach_device(std::move(owned));
        cache.append_tokens(std::vector<int32_t>{1, 2});
        part->at(cache, 0, Part::Keys, 0, 1) = 0x42;
        cache.note_device_wrote();
        std::unique_ptr<engine::KvCacheDevicePart> back = cache.detach_device();
        QCOMPARE(back.get(), part);
        QCOMPARE(crossed.downloads, 1);
        QVERIFY(cache.device_part() == nullptr);
        QCOMPARE(first_byte(cache, Part::Keys, 0, 1), 0x42);

        Crossings lost_crossed;
        cache.attach_device(std::make_unique<HostPart>(cache, 1, lost_crossed));
        cache.note_device_wrote();
        cache.drop_device();
        QCOMPARE(lost_crossed.downloads, 0);
        QCOMPARE(cache.size(), 0);
        QVERIFY(cache.device_part() == nullptr);
    }

    // The plan: more layers take more memory, the output only with every layer, the KV cache in
    // proportion to the context; layers_that_fit gives back the count a budget holds.
    void device_memory_plan() {
        const auto model = engine::Model::load(test::testdata("models/tiny-llama3.gguf"));
        const int32_t n_layer = model->hparams().n_layer;
        const engine::DeviceMemoryPlan plan = engine::plan_device_memory(*model, 32, 256, {});
        const engine::DeviceMemoryPlan longer = engine::plan_device_memory(*model, 32, 512, {});
        QCOMPARE(longer.kv_bytes_per_layer, 2 * plan.kv_bytes_per_layer);
        QCOMPARE(plan.kv_bytes_per_layer * static_cast<uint64_t>(n_layer),
                 static_cast<uint64_t>(engine::kv_bytes_per_token(model->hparams(), {})) * 256);
        QVERIFY(plan.output_bytes > 0); // a separate output matrix
        QCOMPARE(plan.bytes_for(0), uint64_t{0});
        for (int32_t n = 1; n < n_layer; ++n) {
            QCOMPARE(plan.bytes_for(n) - plan.bytes_for(n - 1 > 0 ? n - 1 : 0) -
                         (n == 1 ? plan.input_bytes + plan.scratch_bytes : 0),
                     plan.layer_bytes[static_cast<size_t>(n - 1)] + plan.kv_bytes_per_layer);
            QCOMPARE(engine::layers_that_fit(plan, plan.bytes_for(n)), n);
            QCOMPARE(engine::layers_that_fit(plan, plan.bytes_for(n) - 1), n - 1);
        }
        QCOMPARE(plan.bytes_for(n_layer) - plan.bytes_for(n_layer - 1),
                 plan.layer_bytes.back() + plan.kv_bytes_per_layer + plan.output_bytes);
        QCOMPARE(engine::layers_that_fit(plan, plan.bytes_for(n_layer)), n_layer);
        QCOMPARE(engine::layers_that_fit(plan, 0), 0);
        // A head size the quantized cache cannot take: planned as F16, as the info reports it.
        const auto small = engine::Model::load(test::testdata("models/stories260K.gguf"));
        const engine::DeviceMemoryPlan q8 =
            engine::plan_device_memory(*small, 8, 64, {kernels::TensorType::Q8_0, kernels::TensorType::Q8_0});
        QCOMPARE(q8.kv_bytes_per_layer, engine::plan_device_memory(*small, 8, 64, {}).kv_bytes_per_layer);
    }

    // The memory "as many layers as fit" plans with: 90% of the device-local heap, and no more than
    // the driver's budget left to this process where it reports one (VK_EXT_memory_budget).
    void usable_memory_from_the_heap_and_its_budget() {
        constexpr uint64_t kGiB = uint64_t{1} << 30;
        QCOMPARE(engine::usable_device_bytes(10 * kGiB), 9 * kGiB);
        QCOMPARE(engine::usable_device_bytes(10 * kGiB, std::nullopt), 9 * kGiB);
        QCOMPARE(engine::usable_device_bytes(10 * kGiB, 5 * kGiB), 5 * kGiB); // other programs use the rest
        QCOMPARE(engine::usable_device_bytes(10 * kGiB, 10 * kGiB),
                 9 * kGiB); // a whole heap free: the tenth stays
        QCOMPARE(engine::usable_device_bytes(10 * kGiB, 0), uint64_t{0});
        // The layers of a plan that fit follow the budget.
        const auto model = engine::Model::load(test::testdata("models/tiny-llama3.gguf"));
        const engine::DeviceMemoryPlan plan = engine::plan_device_memory(*model, 32, 256, {});
        const int32_t n_layer = model->hparams().n_layer;
        QVERIFY(n_layer >= 2);
        const uint64_t heap = plan.bytes_for(n_layer) * 2; // every layer fits the heap rule
        QCOMPARE(engine::layers_that_fit(plan, engine::usable_device_bytes(heap)), n_layer);
        QCOMPARE(engine::layers_that_fit(plan, engine::usable_device_bytes(heap, plan.bytes_for(1))), 1);
        QCOMPARE(engine::layers_that_fit(plan, engine::usable_device_bytes(heap, plan.bytes_for(2) - 1)), 1);
        QCOMPARE(engine::layers_that_fit(plan, engine::usable_device_bytes(heap, plan.bytes_for(1) - 1)), 0);
    }

    // The picker's plan, from the file before a load, is the loaded model's: a separate output
    // matrix (tiny-llama3) and a tied one (stories260K).
    void device_memory_plan_from_the_file() {
        for (const char* name : {"models/tiny-llama3.gguf", "models/stories260K.gguf"}) {
            const std::string path = test::testdata(name);
            const auto model = engine::Model::load(path);
            const engine::DeviceMemoryPlan loaded = engine::plan_device_memory(*model, 16, 128, {});
            const engine::DeviceMemoryPlan read =
                engine::plan_device_memory(*gguf::GgufFile::open(path), 16, 128, {});
            QCOMPARE(read.layer_bytes, loaded.layer_bytes);
            QCOMPARE(read.input_bytes, loaded.input_bytes);
            QCOMPARE(read.output_bytes, loaded.output_bytes);
            QCOMPARE(read.kv_bytes_per_layer, loaded.kv_bytes_per_layer);
            QCOMPARE(read.scratch_bytes, loaded.scratch_bytes);
        }
    }
};

QTEST_GUILESS_MAIN(TestKvCacheDevicePart)
#include "test_kv_cache_device_part.moc"
