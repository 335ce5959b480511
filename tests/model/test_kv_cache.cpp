// The KV cache's storage: each (layer, KV head) holds its positions in one run, and a
// position's whole row (KV head after KV head, the layout of the saved state files) goes in
// and out through write_row / read_row / at; discard moves every head's later positions down.
// Q8_0 and Q4_0 parts take their blocks' bytes and round rows to their types; the model
// picker's estimate is the file plus exactly those bytes.
#include "engine/error.h"
#include "engine/forward/kv_cache.h"
#include "engine/model/model.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

using namespace hearth;
using Part = engine::KvCache::Part;

namespace {

constexpr int32_t kLayers = 2, kHeads = 3, kHeadDim = 4, kCtx = 16;

engine::HyperParams shape() {
    engine::HyperParams hp;
    hp.n_layer = kLayers;
    hp.n_head = 2 * kHeads;
    hp.n_head_kv = kHeads;
    hp.head_dim = kHeadDim;
    return hp;
}

// A value no other (part, layer, position, element) shares.
kernels::fp16_bits value_of(Part part, int32_t layer, int32_t pos, int32_t i) {
    return static_cast<kernels::fp16_bits>((part == Part::Keys ? 0 : 0x4000) + layer * 0x1000 + pos * 0x40 +
                                           i);
}

std::vector<kernels::fp16_bits> row_of(Part part, int32_t layer, int32_t pos) {
    std::vector<kernels::fp16_bits> row(kHeads * kHeadDim);
    for (int32_t i = 0; i < kHeads * kHeadDim; ++i)
        row[static_cast<size_t>(i)] = value_of(part, layer, pos, i);
    return row;
}

void fill(engine::KvCache& cache, int32_t positions) {
    for (int32_t layer = 0; layer < kLayers; ++layer)
        for (int32_t pos = 0; pos < positions; ++pos)
            for (const Part part : {Part::Keys, Part::Values})
                cache.write_row(part, layer, pos, row_of(part, layer, pos).data());
    std::vector<int32_t> tokens(static_cast<size_t>(positions));
    for (int32_t t = 0; t < positions; ++t)
        tokens[static_cast<size_t>(t)] = 100 + t;
    cache.append_tokens(tokens);
}

} // namespace

class TestKvCache : public QObject {
    Q_OBJECT

private slots:
    void rowsScatterIntoRunsPerHead() {
        engine::KvCache cache(shape(), kCtx);
        fill(cache, 5);
        for (int32_t layer = 0; layer < kLayers; ++layer)
            for (const Part part : {Part::Keys, Part::Values})
                for (int32_t h = 0; h < kHeads; ++h) {
                    const kernels::fp16_bits* run = cache.head(part, layer, h);
                    for (int32_t pos = 0; pos < 5; ++pos) {
                        QCOMPARE(cache.head(part, layer, h, pos), run + pos * kHeadDim); // one run
                        for (int32_t d = 0; d < kHeadDim; ++d)
                            QCOMPARE(run[pos * kHeadDim + d], value_of(part, layer, pos, h * kHeadDim + d));
                    }
                }
    }

    void rowsReadBackAsWritten() {
        engine::KvCache cache(shape(), kCtx);
        fill(cache, 5);
        std::vector<kernels::fp16_bits> row(kHeads * kHeadDim);
        for (int32_t layer = 0; layer < kLayers; ++layer)
            for (int32_t pos = 0; pos < 5; ++pos)
                for (const Part part : {Part::Keys, Part::Values}) {
                    cache.read_row(part, layer, pos, row.data());
                    QVERIFY(row == row_of(part, layer, pos));
                    for (int32_t i = 0; i < kHeads * kHeadDim; ++i)
                        QCOMPARE(cache.at(part, layer, pos, i), value_of(part, layer, pos, i));
                }
    }

    void writeRowTakesUnalignedBytes() {
        engine::KvCache cache(shape(), kCtx);
        const std::vector<kernels::fp16_bits> row = row_of(Part::Values, 1, 3);
        std::vector<char> bytes(row.size() * sizeof(kernels::fp16_bits) + 1);
        std::memcpy(bytes.data() + 1, row.data(), row.size() * sizeof(kernels::fp16_bits)); // odd address
        cache.write_row(Part::Values, 1, 3, bytes.data() + 1);
        std::vector<kernels::fp16_bits> back(row.size());
        cache.read_row(Part::Values, 1, 3, back.data());
        QVERIFY(back == row);
    }

    void discardMovesEveryHeadsLaterPositionsDown() {
        engine::KvCache cache(shape(), kCtx);
        fill(cache, 9);
        cache.discard(2, 3); // positions 5..8 move to 2..5
        QCOMPARE(cache.size(), 6);
        QCOMPARE(cache.tokens(), (std::vector<int32_t>{100, 101, 105, 106, 107, 108}));
        for (int32_t layer = 0; layer < kLayers; ++layer)
            for (const Part part : {Part::Keys, Part::Values})
                for (int32_t pos = 0; pos < 6; ++pos) {
                    const int32_t from = pos < 2 ? pos : pos + 3;
                    for (int32_t i = 0; i < kHeads * kHeadDim; ++i)
                        QCOMPARE(cache.at(part, layer, pos, i), value_of(part, layer, from, i));
                }
    }

    // Quantized parts: sized by their blocks (Q8_0 34 bytes and Q4_0 18 per 32 elements, F16 64),
    // one aligned run per (layer, KV head); rows go in as floats rounded to the type and come
    // back as the type's exact values; discard moves the blocks; a head size that is not a
    // multiple of 32 or an unsupported type is refused with a hearth::Error.
    void quantizedPartsAreSizedAndMovedByBlocks() {
        engine::HyperParams hp = shape();
        hp.head_dim = 64;
        const engine::KvCacheTypes types{kernels::TensorType::Q8_0, kernels::TensorType::Q4_0};
        engine::KvCache cache(hp, kCtx, types);
        QCOMPARE(cache.head_row_bytes(Part::Keys), size_t{2 * 34});
        QCOMPARE(cache.head_row_bytes(Part::Values), size_t{2 * 18});
        QCOMPARE(cache.bytes(), size_t{kLayers} * kCtx * kHeads * (2 * 34 + 2 * 18));
        QCOMPARE(engine::kv_bytes_per_token(hp, types) * kCtx, cache.bytes());
        QCOMPARE(engine::KvCache(hp, kCtx).bytes(), size_t{kLayers} * kCtx * kHeads * 64 * 2 * 2);
        QVERIFY(reinterpret_cast<uintptr_t>(cache.data(Part::Values, 0, 0)) % 64 == 0);
        QCOMPARE(static_cast<const char*>(cache.data(Part::Keys, 1, 2, 5)) -
                     static_cast<const char*>(cache.data(Part::Keys, 1, 2)),
                 std::ptrdiff_t{5 * 2 * 34});

        const int32_t width = cache.kv_width();
        const auto row_for = [width](int32_t layer, int32_t pos) {
            std::vector<float> row(static_cast<size_t>(width));
            for (int32_t i = 0; i < width; ++i)
                row[static_cast<size_t>(i)] = std::sin(0.37f * static_cast<float>(i + 7 * pos + 101 * layer));
            return row;
        };
        std::vector<std::vector<float>> stored; // what each (layer, pos) row reads back as
        for (int32_t layer = 0; layer < kLayers; ++layer)
            for (int32_t pos = 0; pos < 9; ++pos)
                for (const Part part : {Part::Keys, Part::Values}) {
                    const std::vector<float> row = row_for(layer, pos);
                    cache.write_row_f32(part, layer, pos, row.data());
                    std::vector<float> back(row.size());
                    cache.read_row_f32(part, layer, pos, back.data());
                    const float step = part == Part::Keys ? 1.0f / 127 : 1.0f / 7; // of the block's max
                    for (size_t i = 0; i < row.size(); ++i)
                        QVERIFY(std::fabs(back[i] - row[i]) <= step);
                    stored.push_back(back);
                }
        std::vector<int32_t> tokens(9);
        cache.append_tokens(tokens);
        cache.discard(2, 3);
        for (int32_t layer = 0; layer < kLayers; ++layer)
            for (int32_t pos = 0; pos < 6; ++pos)
                for (int p = 0; p < 2; ++p) {
                    const int32_t from = pos < 2 ? pos : pos + 3;
                    std::vector<float> back(static_cast<size_t>(width));
                    cache.read_row_f32(p == 0 ? Part::Keys : Part::Values, layer, pos, back.data());
                    QVERIFY(back == stored[static_cast<size_t>((layer * 9 + from) * 2 + p)]);
                }

        engine::HyperParams odd = shape(); // head size 4
        try {
            engine::KvCache refused(odd, kCtx, {kernels::TensorType::F16, kernels::TensorType::Q8_0});
            QFAIL("a head size of 4 took a Q8_0 cache");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("multiple of 32") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(
            Error, engine::KvCache(hp, kCtx, {kernels::TensorType::Q4_K, kernels::TensorType::F16}));
    }

    // The model picker's estimate: the file plus exactly what a KvCache of those types takes
    // (a head size that cannot take blocks of 32 is counted as the F16 it would have to use).
    void pickerEstimateIsTheCachesRealSize() {
        using kernels::TensorType;
        for (const char* name : {"tiny-qwen3.gguf", "stories260K.gguf"}) {
            const std::string path = test::testdata(std::string("models/") + name);
            const engine::ModelInfo info = engine::Model::read_info(path);
            const auto model = engine::Model::load(path);
            const bool blocks_fit = model->hparams().head_dim % 32 == 0;
            for (const auto& [k, v] :
                 {std::pair{TensorType::F16, TensorType::F16}, std::pair{TensorType::Q8_0, TensorType::Q8_0},
                  std::pair{TensorType::Q4_0, TensorType::F16}}) {
                const engine::KvCacheTypes types =
                    blocks_fit ? engine::KvCacheTypes{k, v} : engine::KvCacheTypes{};
                const engine::KvCache cache(model->hparams(), 100, types);
                QCOMPARE(info.estimated_bytes(100, k, v),
                         info.file_bytes + static_cast<int64_t>(cache.bytes()));
            }
        }
    }

    void cacheTypeNames() {
        QCOMPARE(engine::kv_cache_type_from_name("Q8_0"), std::optional{kernels::TensorType::Q8_0});
        QCOMPARE(engine::kv_cache_type_from_name("q4_0"), std::optional{kernels::TensorType::Q4_0});
        QCOMPARE(engine::kv_cache_type_from_name("f16"), std::optional{kernels::TensorType::F16});
        QVERIFY(!engine::kv_cache_type_from_name("q4_1"));
        QVERIFY(!engine::kv_cache_type_from_name(""));
    }
};

QTEST_APPLESS_MAIN(TestKvCache)
#include "test_kv_cache.moc"
