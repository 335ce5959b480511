// The KV cache's storage: each (layer, KV head) holds its positions in one run, and a
// position's whole row (KV head after KV head, the layout of the saved state files) goes in
// and out through write_row / read_row / at; discard moves every head's later positions down.
#include "engine/forward/kv_cache.h"
#include <QtTest>
#include <cstring>
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
};

QTEST_APPLESS_MAIN(TestKvCache)
#include "test_kv_cache.moc"
