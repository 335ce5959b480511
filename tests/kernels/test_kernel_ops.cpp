// Every candidate of every kernel table this CPU runs, against the scalar reference, in the manner
// of llama.cpp's test-backend-ops: one data row per (operation, type, candidate), each run over the
// shapes its guard takes. A kernel is tested by registering it.
// - matmul: every batch its guard takes from 1 to 40 (and its edges), row ranges that start and
//   end inside the matrix, row lengths of one and several blocks (and spans), realistic and
//   adversarial blocks; each output within float rounding of exact math over the bytes it was
//   given (BF16 tiles: and the rounding of each weight to BF16), nothing written outside;
// - row conversions (quantize, the activation quantizers, dequantize): the reference's bytes or
//   bits, with ties, huge, tiny, denormal and (for the float formats) special values;
// - attention: head sizes, positions, heads, keys, every cache type and limit its guard takes,
//   within the reference's and its own bounds of exact math;
// - SwiGLU: the reference's bits.
// Tiers this CPU lacks are reported skipped (tiersNotRun), with the reason.
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include "kernels/reference/reference_kernels.h"

#include "tests/support/block_patterns.h"
#include "tests/support/gemm_output.h"
#include "tests/support/kernel_candidates.h"

#include <QTest>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace hearth::kernels;
using hearth::test::BlockPattern;
using hearth::test::Bytes;
using hearth::test::candidate_label;
using hearth::test::distinct_candidates;
using hearth::test::gemm_output_failure;
using hearth::test::is_float_type;
using hearth::test::pattern_name;

namespace {

constexpr TensorType kWeightTypes[] = {TensorType::F32,  TensorType::F16,  TensorType::BF16, TensorType::Q4_0,
                                       TensorType::Q4_1, TensorType::Q5_0, TensorType::Q5_1, TensorType::Q8_0,
                                       TensorType::Q2_K, TensorType::Q3_K, TensorType::Q4_K, TensorType::Q5_K,
                                       TensorType::Q6_K, TensorType::Q8_K};
constexpr double kUnitRoundoff = 0x1p-24;

QString type_name(TensorType t) {
    return QString::fromUtf8(type_traits(t).name.data());
}

// A row's label: "q4_K avx512 gemm_q4_K_q8_K_panels [batch 16+, repacked]".
template <class Fn> QString row_label(TensorType type, const Candidate<Fn>& c) {
    QString guard;
    const Guard& g = c.guard;
    if (g.min_batch > 1 || g.max_batch != kNoLimit)
        guard += g.max_batch == kNoLimit      ? QString("batch %1+").arg(g.min_batch)
                 : g.max_batch == g.min_batch ? QString("batch %1").arg(g.min_batch)
                                              : QString("batch %1-%2").arg(g.min_batch).arg(g.max_batch);
    const auto add = [&guard](const QString& part) { guard += (guard.isEmpty() ? "" : ", ") + part; };
    if (g.layout == RowLayout::Interleaved16) add("repacked");
    if (g.row_multiple > 1) add(QString("rows %1k").arg(g.row_multiple));
    if (g.width_multiple > 1) add(QString("width %1k").arg(g.width_multiple));
    if (g.max_width != kNoLimit) add(QString("width <= %1").arg(g.max_width));
    if (g.f16_cache_only) add("f16 cache");
    return type_name(type) + " " + candidate_label(c) + (guard.isEmpty() ? "" : " [" + guard + "]");
}

void add_columns() {
    QTest::addColumn<int>("type");
    QTest::addColumn<bool>("activations"); // the activation quantizer rather than the row quantizer
    QTest::addColumn<int>("index");
}

// One data row per candidate: the type, whether it is an activation quantizer (quantize), its
// index among the type's candidates.
template <class Fn>
void add_rows(TensorType t, const std::vector<Candidate<Fn>>& candidates, bool activations = false) {
    for (size_t i = 0; i < candidates.size(); ++i)
        QTest::newRow(qPrintable((activations ? "activations " : "") + row_label(t, candidates[i])))
            << int(t) << activations << int(i);
}

// ---- Matmul ------------------------------------------------------------------------------------

// A type's distinct candidates for one operation (a list of TypeCandidates).
template <class Fn, Candidates<Fn> TypeCandidates::*kList>
const std::vector<Candidate<Fn>>& candidates_of(TensorType t) {
    static const auto all = [] {
        std::vector<std::vector<Candidate<Fn>>> by_type(kTensorTypeSlots);
        for (TensorType type : kWeightTypes)
            by_type[static_cast<uint32_t>(type)] =
                distinct_candidates<Fn>([type](const KernelTable& k) -> auto& { return k.of(type).*kList; });
        return by_type;
    }();
    return all[static_cast<uint32_t>(t)];
}

const std::vector<Candidate<GemmFn>>& matmul_candidates(TensorType t) {
    return candidates_of<GemmFn, &TypeCandidates::matmul>(t);
}

// Row lengths: one block and several (the K-quants' and 32-element formats' longest cross the BF16
// tiles' spans of 512, the float formats' longest the F16/BF16 tiles' chunks of 512 columns, with
// a tail); repacked Q8_0 rows are whole pairs of blocks.
std::vector<int64_t> widths_for(TensorType t, const Guard& g) {
    std::vector<int64_t> widths;
    if (is_float_type(t))
        widths = {101, 264, 1100};
    else if (type_traits(t).block_elements == QK_K)
        widths = {256, 3 * 256, 5 * 256};
    else if (g.layout == RowLayout::Interleaved16)
        widths = {64, 448, 1152};
    else
        widths = {32, 224, 1120};
    std::erase_if(widths, [&g](int64_t n) { return n % g.width_multiple != 0; });
    return widths;
}

std::vector<int64_t> batches_for(const Guard& g) {
    std::vector<int64_t> batches;
    for (int64_t b : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{5}, int64_t{8}, int64_t{9}, int64_t{15},
                      int64_t{16}, int64_t{17}, int64_t{31}, int64_t{32}, int64_t{33}, int64_t{40},
                      g.min_batch, g.min_batch + 1, g.max_batch})
        if (b >= g.min_batch && b <= g.max_batch && b <= 40 &&
            std::find(batches.begin(), batches.end(), b) == batches.end())
            batches.push_back(b);
    // A kernel that pays only from larger batches than the test multiplies (the repacked panels
    // from 64 or 1024 rows: a choice of speed) is tested at the largest ones it affords.
    if (batches.empty() && g.min_batch > 40) batches = {16, 17, 33, 40};
    std::sort(batches.begin(), batches.end());
    return batches;
}

// The exact products of every (row, activation row) pair, in double over the values the bytes
// stand for, and the bound on a float evaluation's error.
struct Oracle {
    std::vector<double> exact, allowed; // [b * rows + r]
};

Oracle oracle_of(TensorType t, TensorType activation, const Bytes& weights, const Bytes& activations,
                 int64_t n, int rows, int batch) {
    std::vector<float> w(static_cast<size_t>(rows * n)), a(static_cast<size_t>(batch * n));
    reference_ops(t).dequantize(weights.data(), w.data(), rows * n);
    if (activation == TensorType::F32)
        std::memcpy(a.data(), activations.data(), a.size() * sizeof(float));
    else
        reference_ops(activation).dequantize(activations.data(), a.data(), batch * n);
    // BF16 tile kernels round each weight once to BF16 (2^-8 of itself); every kernel sums in float,
    // in its own order, terms that may be rounded once or twice each: a relative bound on the
    // magnitude of the terms, those of a block's minimum (max |w| times sum |a|) included.
    const double weight_rounding = activation == TensorType::BF16 && t != TensorType::BF16 ? 0x1p-8 : 0.0;
    const double sum_rounding = std::max(1e-5, 2.0 * static_cast<double>(n + 64) * kUnitRoundoff);
    Oracle o;
    o.exact.resize(static_cast<size_t>(rows * batch));
    o.allowed.resize(o.exact.size());
    for (int r = 0; r < rows; ++r) {
        double largest = 0;
        for (int64_t c = 0; c < n; ++c)
            largest = std::max(largest, std::fabs(double(w[static_cast<size_t>(r * n + c)])));
        for (int b = 0; b < batch; ++b) {
            double sum = 0, magnitude = 0, activation_sum = 0;
            for (int64_t c = 0; c < n; ++c) {
                const double x = a[static_cast<size_t>(b * n + c)];
                const double product = double(w[static_cast<size_t>(r * n + c)]) * x;
                sum += product;
                magnitude += std::fabs(product);
                activation_sum += std::fabs(x);
            }
            o.exact[static_cast<size_t>(b * rows + r)] = sum;
            o.allowed[static_cast<size_t>(b * rows + r)] =
                (weight_rounding + sum_rounding) * magnitude + 1e-5 * largest * activation_sum + 1e-30;
        }
    }
    return o;
}

// ---- Row conversions --------------------------------------------------------------------------

const std::vector<Candidate<QuantizeRowFn>>& quantize_candidates(TensorType t, bool activations) {
    return activations ? candidates_of<QuantizeRowFn, &TypeCandidates::quantize_activations>(t)
                       : candidates_of<QuantizeRowFn, &TypeCandidates::quantize>(t);
}

const std::vector<Candidate<DequantizeRowFn>>& dequantize_candidates(TensorType t) {
    return candidates_of<DequantizeRowFn, &TypeCandidates::dequantize>(t);
}

// Inputs for the quantizers, by kind: normal, huge, ties at amax 127 (the inverse scale 1: exact .5
// ties test the rounding rule), every other block zero and the rest tiny, scales in the fp16
// denormals, one huge value per 17; for the float formats, special values too (ties both ways,
// subnormals, infinities, the largest finite values, NaNs).
constexpr int kQuantizeKinds = 7;
std::vector<float> quantizer_input(TensorType t, int64_t n, int kind, std::mt19937& rng) {
    const int64_t block = type_traits(t).block_elements;
    std::vector<float> x = hearth::test::normal_floats(n, rng);
    for (int64_t i = 0; i < n; ++i) {
        switch (kind) {
        case 1:
            x[i] *= 1e4f;
            break;
        case 2:
            x[i] = i % 32 == 0 ? 127.0f : float(int(rng() % 200) - 100) + (rng() % 2 ? 0.5f : 0.0f);
            break;
        case 3:
            x[i] = (i / block) % 2 == 0 ? 0.0f : x[i] * 1e-20f;
            break;
        case 4:
            x[i] *= 1e-5f;
            break;
        case 5:
            if (i % 17 == 0) x[i] = 200.0f;
            break;
        case 6: {
            static constexpr uint32_t kSpecial[] = {
                0x3f808000u, 0x3f818000u, 0xbf808000u, 0x3f807fffu, 0x00000001u, 0x00008000u, 0x80018000u,
                0x007fffffu, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u,
                0xffbfffffu, 0x00000000u, 0x80000000u, 0x477fe000u, 0x477ff000u, 0x38800000u, 0x33800000u};
            const uint32_t high = static_cast<uint32_t>(rng()) & 0xffff0000u;
            const uint32_t low = (rng() & 1u) != 0 ? 0x8000u : static_cast<uint32_t>(rng()) & 0xffffu;
            x[i] = i % 3 == 0 ? std::bit_cast<float>(kSpecial[(i / 3) % std::size(kSpecial)])
                              : std::bit_cast<float>(high | low);
            break;
        }
        default:
            break;
        }
    }
    return x;
}

// ---- Attention --------------------------------------------------------------------------------

const std::vector<Candidate<AttendFn>>& attention_candidates() {
    static const auto all =
        distinct_candidates<AttendFn>([](const KernelTable& k) -> auto& { return k.attention; });
    return all;
}

// Of the largest |value| the rows see: each kernel within 2e-6 of exact math (test_attention_kernels
// and test_attention_limits hold them to it, soft-capped scores through each kernel's own tanh),
// the reference within 5e-7 of it; the AMX tiles cut each softmax weight to 16 significant bits
// (attention_amx.cpp): 2^-15 of it more.
constexpr double kAttentionTolerance = 2e-6 + 5e-7;
constexpr double kAmxWeightsCut = 0x1p-15;

// One KV head of n rows of `type`, rows with a gap after them (another head's, as in the cache).
struct KvHead {
    std::vector<uint8_t> bytes;
    size_t row_bytes = 0;
    TensorType type = TensorType::F16;
    float largest = 0; // the largest |value| it stands for
    KvRows rows() const { return {bytes.data(), type, row_bytes}; }
};

KvHead make_kv_head(TensorType type, int64_t head_dim, int64_t n, std::mt19937& rng) {
    KvHead h;
    h.type = type;
    h.row_bytes = row_bytes(type, head_dim) + 64;
    h.bytes.assign(h.row_bytes * static_cast<size_t>(n), 0);
    std::vector<float> row(static_cast<size_t>(head_dim)), back(row.size());
    for (int64_t j = 0; j < n; ++j) {
        for (float& x : row)
            x = std::normal_distribution<float>(0.0f, 1.0f)(rng);
        uint8_t* at = h.bytes.data() + static_cast<size_t>(j) * h.row_bytes;
        reference_ops(type).quantize(row.data(), at, head_dim);
        reference_ops(type).dequantize(at, back.data(), head_dim);
        for (float v : back)
            h.largest = std::max(h.largest, std::fabs(v));
    }
    return h;
}

} // namespace

class TestKernelOps : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        for (Isa isa : kIsaTiers)
            qInfo("tier %s: %s", isa_name(isa).data(),
                  kernels_for(isa) ? "tested" : ("not run here: " + isa_unavailable_reason(isa)).c_str());
    }

    void tiersNotRun() {
        const QString skipped = hearth::test::tiers_not_run();
        if (!skipped.isEmpty()) QSKIP(qPrintable("tiers not tested: " + skipped));
    }

    // ---- Matmul.

    void matmul_data() {
        add_columns();
        for (TensorType t : kWeightTypes)
            add_rows(t, matmul_candidates(t));
    }
    void matmul() {
        QFETCH(int, type);
        QFETCH(int, index);
        const auto t = static_cast<TensorType>(type);
        const Candidate<GemmFn>& c = matmul_candidates(t)[static_cast<size_t>(index)];
        const bool repacked = c.guard.layout == RowLayout::Interleaved16;
        constexpr int kRows = 48, kMaxBatch = 40;
        constexpr int64_t kStride = kRows + 3; // untouched columns past the last row
        const std::vector<int64_t> batches = batches_for(c.guard);
        QVERIFY(!batches.empty());
        const std::vector<std::pair<int, int>> ranges =
            repacked ? std::vector<std::pair<int, int>>{{0, 48}, {16, 32}}
                     : std::vector<std::pair<int, int>>{{0, 48}, {3, 20}};
        std::vector<BlockPattern> patterns = {BlockPattern::Quantized, BlockPattern::MaxActivation};
        // Edge patterns where the scales are fp16 fields (Q8_K's is a float: an activation format).
        if (!hearth::test::fp16_fields(t).empty())
            patterns.insert(patterns.end(), {BlockPattern::RawBytes, BlockPattern::AllOnes,
                                             BlockPattern::AllHighBit, BlockPattern::ZeroScales});
        if (c.activation_type == TensorType::Q8_0) patterns.push_back(BlockPattern::RawActivations);
        const std::vector<int64_t> widths = widths_for(t, c.guard);
        QVERIFY(!widths.empty());
        int calls = 0;
        for (BlockPattern p : patterns)
            for (int64_t n : widths) {
                // Realistic blocks over every shape; the edge patterns over the shortest rows.
                if (p != BlockPattern::Quantized && n != widths.front()) continue;
                std::mt19937 rng(static_cast<uint32_t>(1000 * type + 17 * index + n + 7919 * int(p)));
                Bytes weights, activations;
                for (int r = 0; r < kRows; ++r) {
                    const Bytes row = hearth::test::make_weight_row(t, n, p, rng);
                    weights.insert(weights.end(), row.begin(), row.end());
                }
                for (int b = 0; b < kMaxBatch; ++b) {
                    const Bytes row = hearth::test::make_activation_row(c.activation_type, n, p, rng);
                    activations.insert(activations.end(), row.begin(), row.end());
                }
                const Oracle oracle =
                    oracle_of(t, c.activation_type, weights, activations, n, kRows, kMaxBatch);
                Bytes packed;
                if (repacked) {
                    QVERIFY(interleaves_rows16(t, kRows, n));
                    packed.resize(interleaved_rows16_bytes(t, kRows, n));
                    interleave_rows16(t, weights.data(), kRows, n, packed.data());
                }
                const size_t w_bytes = row_bytes(t, n);
                const size_t a_bytes = activations.size() / kMaxBatch;
                std::vector<float> y;
                for (const auto& [first, end] : ranges)
                    for (int64_t batch : batches) {
                        if (p != BlockPattern::Quantized && first != 0) continue;
                        y.assign(static_cast<size_t>(kStride * kMaxBatch),
                                 std::numeric_limits<float>::quiet_NaN());
                        c.fn(n, repacked ? packed.data() : weights.data(), w_bytes, first, end,
                             activations.data(), a_bytes, batch, y.data(), kStride);
                        ++calls;
                        const QString failure = gemm_output_failure(
                            y, kStride, kMaxBatch, first, end - first, static_cast<int>(batch),
                            [&](int b, int r, float got) {
                                const double exact = oracle.exact[static_cast<size_t>(b * kRows + r)];
                                const double allowed = oracle.allowed[static_cast<size_t>(b * kRows + r)];
                                if (std::fabs(double(got) - exact) <= allowed) return QString();
                                return QString("%1 against exact %2, allowed %3")
                                    .arg(got)
                                    .arg(exact)
                                    .arg(allowed);
                            });
                        if (!failure.isEmpty())
                            QFAIL(qPrintable(QString("%1 blocks, %2 columns: ").arg(pattern_name(p)).arg(n) +
                                             failure));
                    }
            }
        QVERIFY(calls > 0);
    }

    // ---- Row conversions.

    void quantize_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<bool>("activations"); // the activation quantizer rather than the row quantizer
        QTest::addColumn<int>("index");
        for (bool activations : {false, true})
            for (TensorType t : kWeightTypes) {
                const auto& candidates = quantize_candidates(t, activations);
                for (size_t i = 0; i < candidates.size(); ++i)
                    QTest::newRow(
                        qPrintable((activations ? "activations " : "") + row_label(t, candidates[i])))
                        << int(t) << activations << int(i);
            }
    }
    void quantize() {
        QFETCH(int, type);
        QFETCH(bool, activations);
        QFETCH(int, index);
        const auto t = static_cast<TensorType>(type);
        const Candidate<QuantizeRowFn>& c = quantize_candidates(t, activations)[static_cast<size_t>(index)];
        const QuantizeRowFn reference =
            activations ? reference_ops(t).quantize_activations : reference_ops(t).quantize;
        const int64_t block = type_traits(t).block_elements;
        const std::vector<int64_t> counts = block == 1 ? std::vector<int64_t>{1, 15, 17, 31, 2000}
                                                       : std::vector<int64_t>{1, 2, 3, 7, 13, 31, 37};
        // Special values only where they stand for themselves: the float formats.
        const int kinds = is_float_type(t) ? kQuantizeKinds : kQuantizeKinds - 1;
        for (int kind = 0; kind < kinds; ++kind)
            for (int64_t blocks : counts) {
                const int64_t n = blocks * block;
                std::mt19937 rng(static_cast<uint32_t>(100 * type + 10 * kind + blocks));
                const std::vector<float> x = quantizer_input(t, n, kind, rng);
                Bytes want(row_bytes(t, n) + 16, 0xAB), got(want.size(), 0xAB);
                reference(x.data(), want.data(), n);
                c.fn(x.data(), got.data(), n);
                for (size_t i = 0; i < got.size(); ++i)
                    if (got[i] != want[i])
                        QFAIL(
                            qPrintable(QString("input kind %1, %2 blocks: byte %3 is %4, the reference's %5")
                                           .arg(kind)
                                           .arg(blocks)
                                           .arg(i)
                                           .arg(got[i])
                                           .arg(want[i])));
            }
    }

    void dequantize_data() {
        add_columns();
        for (TensorType t : kWeightTypes)
            add_rows(t, dequantize_candidates(t));
    }
    void dequantize() {
        QFETCH(int, type);
        QFETCH(int, index);
        const auto t = static_cast<TensorType>(type);
        const Candidate<DequantizeRowFn>& c = dequantize_candidates(t)[static_cast<size_t>(index)];
        for (BlockPattern p : {BlockPattern::Quantized, BlockPattern::RawBytes, BlockPattern::AllOnes,
                               BlockPattern::AllHighBit})
            for (int64_t blocks : {1, 2, 3, 7, 13, 31}) {
                const int64_t n = blocks * type_traits(t).block_elements * (is_float_type(t) ? 9 : 1);
                std::mt19937 rng(static_cast<uint32_t>(7 * type + blocks + 1000 * int(p)));
                const Bytes row = hearth::test::make_weight_row(t, n, p, rng);
                std::vector<float> want(static_cast<size_t>(n) + 4, -1.0f), got(want.size(), -1.0f);
                reference_ops(t).dequantize(row.data(), want.data(), n);
                c.fn(row.data(), got.data(), n);
                QVERIFY2(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0,
                         qPrintable(QString("%1 blocks, %2 of them").arg(pattern_name(p)).arg(blocks)));
            }
    }

    // ---- Attention.

    void attention_data() {
        QTest::addColumn<int>("index");
        const auto& candidates = attention_candidates();
        for (size_t i = 0; i < candidates.size(); ++i)
            QTest::newRow(qPrintable(row_label(TensorType::F16, candidates[i]).mid(4))) << int(i);
    }
    void attention() {
        QFETCH(int, index);
        const Candidate<AttendFn>& c = attention_candidates()[static_cast<size_t>(index)];
        const double amx_cut = c.backend == cpu(Isa::Amx) ? kAmxWeightsCut : 0.0;
        constexpr std::pair<TensorType, TensorType> kCaches[] = {{TensorType::F16, TensorType::F16},
                                                                 {TensorType::Q8_0, TensorType::Q8_0},
                                                                 {TensorType::Q4_0, TensorType::Q4_0},
                                                                 {TensorType::Q8_0, TensorType::F16}};
        constexpr AttentionLimits kLimits[] = {{}, {7, 0.0f}, {0, 20.0f}, {50, 5.0f}};
        constexpr int kHeads = 3;
        int calls = 0;
        for (int64_t head_dim : {32, 40, 64, 80, 128, 256})
            for (const auto& [key_type, value_type] : kCaches)
                for (const AttentionLimits& limits : kLimits)
                    for (int64_t positions : {1, 2, 5})
                        for (int64_t n_keys : {9, 300}) {
                            const bool f16 = key_type == TensorType::F16 && value_type == TensorType::F16;
                            if (!f16 && head_dim % 32 != 0) continue; // blocks of 32 along the head
                            if (!c.takes({.batch = positions, .width = head_dim, .f16_cache = f16})) continue;
                            std::mt19937 rng(static_cast<uint32_t>(head_dim * 131 + n_keys + 7 * positions));
                            const KvHead keys = make_kv_head(key_type, head_dim, n_keys + positions, rng);
                            const KvHead values = make_kv_head(value_type, head_dim, n_keys + positions, rng);
                            const size_t head_stride = static_cast<size_t>(head_dim) + 8;
                            const size_t position_stride = head_stride * kHeads + 16;
                            std::vector<float> q(position_stride * static_cast<size_t>(positions));
                            for (float& x : q)
                                x = std::normal_distribution<float>(0.0f, 2.0f)(rng);
                            const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
                            std::vector<float> got(q.size(), NAN), want(q.size(), NAN);
                            c.fn(q.data(), got.data(), head_stride, position_stride, kHeads, positions,
                                 keys.rows(), values.rows(), n_keys, head_dim, scale, limits);
                            attend_ref(q.data(), want.data(), head_stride, position_stride, kHeads, positions,
                                       keys.rows(), values.rows(), n_keys, head_dim, scale, limits);
                            ++calls;
                            const double tolerance = kAttentionTolerance + amx_cut;
                            for (size_t i = 0; i < got.size(); ++i) {
                                const size_t in_row = i % position_stride % head_stride;
                                const bool output = i % position_stride < head_stride * kHeads &&
                                                    in_row < static_cast<size_t>(head_dim);
                                if (!output) {
                                    QVERIFY2(std::isnan(got[i]), "wrote between the rows");
                                    continue;
                                }
                                if (!(std::fabs(got[i] - want[i]) <= tolerance * values.largest))
                                    QFAIL(qPrintable(QString("head %1, keys %2/%3, values %4, window %5, cap "
                                                             "%6, %7 positions, "
                                                             "%8 keys: %9, the reference's %10")
                                                         .arg(head_dim)
                                                         .arg(type_name(key_type))
                                                         .arg(n_keys)
                                                         .arg(type_name(value_type))
                                                         .arg(limits.window)
                                                         .arg(limits.softcap)
                                                         .arg(positions)
                                                         .arg(n_keys)
                                                         .arg(got[i])
                                                         .arg(want[i])));
                            }
                        }
        QVERIFY(calls > 0);
    }

    // ---- SwiGLU: bit for bit, at lengths with and without a tail, and with gates large enough
    // (|g| > 87) to take the vector exp's overflow and underflow paths.

    void swiglu_data() {
        QTest::addColumn<int>("index");
        const auto candidates =
            distinct_candidates<SwigluFn>([](const KernelTable& k) -> auto& { return k.swiglu; });
        for (size_t i = 0; i < candidates.size(); ++i)
            QTest::newRow(qPrintable(candidate_label(candidates[i]))) << int(i);
    }
    void swiglu() {
        QFETCH(int, index);
        const auto candidates =
            distinct_candidates<SwigluFn>([](const KernelTable& k) -> auto& { return k.swiglu; });
        const SwigluFn kernel = candidates[static_cast<size_t>(index)].fn;
        for (int n : {1, 7, 8, 9, 31, 4864, 4867})
            for (float spread : {4.0f, 200.0f}) {
                std::mt19937 rng{static_cast<uint32_t>(n)};
                std::uniform_real_distribution<float> dist(-spread, spread);
                std::vector<float> gate(static_cast<size_t>(n)), up(static_cast<size_t>(n));
                for (int i = 0; i < n; ++i) {
                    gate[size_t(i)] = dist(rng);
                    up[size_t(i)] = dist(rng);
                }
                std::vector<float> want = gate, got = gate;
                swiglu_ref(want.data(), up.data(), n);
                kernel(got.data(), up.data(), n);
                QVERIFY2(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0,
                         qPrintable(QString("n %1, |gate| <= %2").arg(n).arg(spread)));
            }
    }

    // ---- GELU and a row's softmax: every tier bit for bit the reference, at lengths with and
    // without a tail; the reference within a few float roundings of the exact functions.

    void gelu_data() {
        QTest::addColumn<int>("index");
        const auto candidates =
            distinct_candidates<GeluFn>([](const KernelTable& k) -> auto& { return k.gelu; });
        for (size_t i = 0; i < candidates.size(); ++i)
            QTest::newRow(qPrintable(candidate_label(candidates[i]))) << int(i);
    }
    void gelu() {
        QFETCH(int, index);
        const auto candidates =
            distinct_candidates<GeluFn>([](const KernelTable& k) -> auto& { return k.gelu; });
        const GeluFn kernel = candidates[static_cast<size_t>(index)].fn;
        for (int n : {1, 7, 8, 9, 31, 4304, 4307})
            for (float spread : {3.0f, 60.0f}) {
                std::mt19937 rng{static_cast<uint32_t>(n)};
                std::uniform_real_distribution<float> dist(-spread, spread);
                std::vector<float> x(static_cast<size_t>(n));
                for (float& v : x)
                    v = dist(rng);
                std::vector<float> want = x, got = x;
                gelu_ref(want.data(), n);
                kernel(got.data(), n);
                QVERIFY2(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0,
                         qPrintable(QString("n %1, |x| <= %2").arg(n).arg(spread)));
                for (size_t i = 0; i < x.size(); ++i) {
                    const double v = x[i];
                    // 0.5 (1 + tanh u) = 1 / (1 + e^-2u): in double without tanh's cancellation at -1.
                    const double exact =
                        v / (1 + std::exp(-2 * std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
                    // Float rounding of the exponent's argument a = 2u (four operations) moves e^a by
                    // about 2 |a| ulps.
                    const double argument = 2 * std::sqrt(2 / M_PI) * std::abs(v + 0.044715 * v * v * v);
                    QVERIFY2(std::abs(want[i] - exact) <= 2.4e-7 * (4 + argument) * std::abs(exact) + 1e-36,
                             qPrintable(QString("gelu(%1) = %2, exactly %3").arg(v).arg(want[i]).arg(exact)));
                }
            }
    }

    void softmax_data() {
        QTest::addColumn<int>("index");
        const auto candidates =
            distinct_candidates<SoftmaxFn>([](const KernelTable& k) -> auto& { return k.softmax; });
        for (size_t i = 0; i < candidates.size(); ++i)
            QTest::newRow(qPrintable(candidate_label(candidates[i]))) << int(i);
    }
    void softmax() {
        QFETCH(int, index);
        const auto candidates =
            distinct_candidates<SoftmaxFn>([](const KernelTable& k) -> auto& { return k.softmax; });
        const SoftmaxFn kernel = candidates[static_cast<size_t>(index)].fn;
        for (int n : {1, 7, 8, 9, 31, 4096, 4101})
            for (float spread : {3.0f, 300.0f}) {
                std::mt19937 rng{static_cast<uint32_t>(n + 17)};
                std::uniform_real_distribution<float> dist(-spread, spread);
                std::vector<float> x(static_cast<size_t>(n));
                for (float& v : x)
                    v = dist(rng);
                const float scale = 0.117851130f; // 1/sqrt(72)
                std::vector<float> want = x, got = x;
                softmax_ref(want.data(), n, scale);
                kernel(got.data(), n, scale);
                QVERIFY2(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0,
                         qPrintable(QString("n %1, |x| <= %2").arg(n).arg(spread)));
                // Exact from the scaled values as floats: their rounding is the input's, not the
                // kernel's (an error of |v - max| ulps of v in the exponent).
                double most = -INFINITY, sum = 0;
                for (float v : x)
                    most = std::max(most, double(v * scale));
                for (float v : x)
                    sum += std::exp(double(v * scale) - most);
                for (size_t i = 0; i < x.size(); ++i) {
                    const double exact = std::exp(double(x[i] * scale) - most) / sum;
                    const double below_max = most - double(x[i] * scale); // rounded in float: ulps of e^-d
                    QVERIFY2(
                        std::abs(want[i] - exact) <= 1.2e-7 * (8 + below_max) * exact + 1e-38,
                        qPrintable(
                            QString("n %1: p[%2] = %3, exactly %4").arg(n).arg(i).arg(want[i]).arg(exact)));
                }
            }
    }
};

QTEST_GUILESS_MAIN(TestKernelOps)
#include "test_kernel_ops.moc"
