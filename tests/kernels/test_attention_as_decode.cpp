// A verify pass's attention (KernelTable::attention_as_decode) on every tier this CPU runs: each
// row of a tile of several positions bit for bit what decoding that position alone gives it (the
// tier's attention kernel for a tile of one position), as the engine calls both: every head size
// the kernels take apart (8, 32, 64, 72, 128), groups of 1, 4, 7 and 8 heads, 2 to 9 positions,
// key counts around the blocks of 8 and 16, F16, Q8_0 and mixed caches, with no limits, sliding
// windows that some rows reach past and others do not, and soft-capping; and a part of the tile
// (later positions, fewer heads: the engine's split across threads) the same bits again.
#include "kernels/kernel_table.h"
#include "tests/support/block_patterns.h"

#include <QTest>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace hearth::kernels;

namespace {

// One KV head of rows in a cache type, the head between two others (as in GQA).
struct KvHead {
    TensorType key_type = TensorType::F16, value_type = TensorType::F16;
    size_t key_row_bytes = 0, value_row_bytes = 0;
    std::vector<unsigned char> keys, values;
    KvRows key_rows() const { return {keys.data() + key_row_bytes / 3, key_type, key_row_bytes}; }
    KvRows value_rows() const { return {values.data() + value_row_bytes / 3, value_type, value_row_bytes}; }
};

// n_rows rows of one head in `type` (normal floats through the reference quantizer), between
// two other heads' rows.
void fill_rows(TensorType type, int head_dim, int n_rows, std::mt19937& rng,
               std::vector<unsigned char>& bytes, size_t& row_stride) {
    const size_t head_bytes = row_bytes(type, head_dim);
    row_stride = 3 * head_bytes;
    bytes.assign(row_stride * static_cast<size_t>(n_rows), 0);
    for (int j = 0; j < n_rows; ++j) {
        const std::vector<uint8_t> row =
            hearth::test::make_weight_row(type, head_dim, hearth::test::BlockPattern::Quantized, rng);
        std::memcpy(bytes.data() + static_cast<size_t>(j) * row_stride + head_bytes, row.data(), head_bytes);
    }
}

KvHead make_head(TensorType key_type, TensorType value_type, int head_dim, int n_rows, unsigned seed) {
    std::mt19937 rng(seed);
    KvHead h;
    h.key_type = key_type;
    h.value_type = value_type;
    fill_rows(key_type, head_dim, n_rows, rng, h.keys, h.key_row_bytes);
    fill_rows(value_type, head_dim, n_rows, rng, h.values, h.value_row_bytes);
    return h;
}

// The engine's rule (transformer_ops.cpp): a window no row of the call reaches past is none.
AttentionLimits for_call(AttentionLimits limits, int64_t last_row_keys) {
    if (limits.window > 0 && last_row_keys <= limits.window) limits.window = 0;
    return limits;
}

struct Limits {
    const char* name;
    AttentionLimits limits;
};
constexpr Limits kLimits[] = {{"none", {}},
                              {"window-12", {.window = 12}},
                              {"window-40", {.window = 40}},
                              {"capped", {.softcap = 30.0f}},
                              {"window-12-capped", {.window = 12, .softcap = 30.0f}}};

} // namespace

class TestAttentionAsDecode : public QObject {
    Q_OBJECT

private slots:
    void verifyRowsHaveDecodeBits_data() {
        QTest::addColumn<int>("isa");
        QTest::addColumn<int>("head_dim");
        QTest::addColumn<int>("key_type");
        QTest::addColumn<int>("value_type");
        const std::pair<TensorType, TensorType> types[] = {{TensorType::F16, TensorType::F16},
                                                           {TensorType::Q8_0, TensorType::Q8_0},
                                                           {TensorType::Q4_0, TensorType::F16}};
        for (Isa isa : kIsaTiers)
            for (int head_dim : {8, 32, 64, 72, 128})
                for (const auto& [keys, values] : types) {
                    if (keys != TensorType::F16 && head_dim % 32 != 0)
                        continue; // quantized rows hold blocks of 32
                    QTest::addRow("%s-d%d-%s-%s", isa_name(isa).data(), head_dim,
                                  type_traits(keys).name.data(), type_traits(values).name.data())
                        << int(isa) << head_dim << int(keys) << int(values);
                }
    }
    void verifyRowsHaveDecodeBits() {
        QFETCH(int, isa);
        QFETCH(int, head_dim);
        QFETCH(int, key_type);
        QFETCH(int, value_type);
        const KernelTable* table = kernels_for(static_cast<Isa>(isa));
        if (table == nullptr)
            QSKIP(qPrintable(QString::fromStdString(isa_unavailable_reason(static_cast<Isa>(isa)))));
        const bool f16 = key_type == int(TensorType::F16) && value_type == int(TensorType::F16);
        const Candidate<AttendFn>* decode =
            table->attention.pick({.batch = 1, .width = head_dim, .f16_cache = f16});
        QVERIFY(decode != nullptr);
        const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
        int checked = 0;
        for (int group : {1, 4, 7, 8})
            for (int positions : {2, 5, 9})
                for (int n_keys : {1, 16, 17, 100}) { // seen by the first position
                    const Candidate<AttendFn>* verify = table->attention_as_decode.pick(
                        {.batch = positions, .width = head_dim, .f16_cache = f16});
                    QVERIFY(verify != nullptr);
                    const KvHead kv = make_head(
                        static_cast<TensorType>(key_type), static_cast<TensorType>(value_type), head_dim,
                        n_keys + positions - 1, unsigned(head_dim * 131 + group * 17 + n_keys));
                    // Rows with gaps, as the engine's (positions of all the model's heads).
                    const size_t head_stride = static_cast<size_t>(head_dim);
                    const size_t position_stride = head_stride * static_cast<size_t>(group) + 24;
                    std::mt19937 rng(unsigned(positions * 7 + n_keys));
                    const std::vector<float> q = hearth::test::normal_floats(
                        static_cast<int64_t>(position_stride) * positions, rng, 2.0f);
                    for (const Limits& l : kLimits) {
                        std::vector<float> tile(q.size(), NAN), part(q.size(), NAN);
                        verify->fn(q.data(), tile.data(), head_stride, position_stride, group, positions,
                                   kv.key_rows(), kv.value_rows(), n_keys, head_dim, scale,
                                   for_call(l.limits, n_keys + positions - 1));
                        // Positions 1.. and heads 1.. of the same pass, as another thread takes them.
                        const int part_heads = group > 1 ? group - 1 : 1, first_head = group - part_heads;
                        const size_t part_at =
                            position_stride + static_cast<size_t>(first_head) * head_stride;
                        verify->fn(q.data() + part_at, part.data() + part_at, head_stride, position_stride,
                                   part_heads, positions - 1, kv.key_rows(), kv.value_rows(), n_keys + 1,
                                   head_dim, scale, for_call(l.limits, n_keys + positions - 1));
                        for (int p = 0; p < positions; ++p) {
                            const size_t at = static_cast<size_t>(p) * position_stride;
                            std::vector<float> want(position_stride, NAN);
                            decode->fn(q.data() + at, want.data(), head_stride, position_stride, group, 1,
                                       kv.key_rows(), kv.value_rows(), n_keys + p, head_dim, scale,
                                       for_call(l.limits, n_keys + p));
                            for (int h = 0; h < group; ++h) {
                                const size_t row = static_cast<size_t>(h) * head_stride;
                                const QString where =
                                    QString("%1: %2 heads, %3 positions, %4 keys: position %5, head %6")
                                        .arg(l.name)
                                        .arg(group)
                                        .arg(positions)
                                        .arg(n_keys)
                                        .arg(p)
                                        .arg(h);
                                QVERIFY2(std::memcmp(tile.data() + at + row, want.data() + row,
                                                     sizeof(float) * head_stride) == 0,
                                         qPrintable(where));
                                if (p >= 1 && h >= first_head)
                                    QVERIFY2(std::memcmp(part.data() + at + row, want.data() + row,
                                                         sizeof(float) * head_stride) == 0,
                                             qPrintable(where + " (a part of the tile)"));
                                ++checked;
                            }
                        }
                    }
                }
        QVERIFY(checked > 0);
    }
};

QTEST_GUILESS_MAIN(TestAttentionAsDecode)
#include "test_attention_as_decode.moc"
