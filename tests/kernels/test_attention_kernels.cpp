// Every attention candidate of the tiers this CPU runs (AttendFn), over the shapes its guard
// takes, against exact attention in float64 over the same keys and values: within 2e-6 of the
// values' scale at head sizes with and without a specialised path (and not multiples of 8) and
// key counts around the SIMD blocks of 8; a tile of one position bit for bit what a single query
// gives each row, and a tile of several positions and query heads bit for bit what a tile of two
// positions of one head gives each row (kernels may sum those in another order than single
// queries); keys whose score is -inf weighing nothing; scores large enough that the softmax is
// one-hot; rows without gaps (the cache's layout) bit for bit what the same rows with gaps give;
// Q8_0 and Q4_0 keys and values within the same 2e-6 of float64 attention over the dequantized
// cache. The tables pick the kernels the tiers promise; the AVX2 vector exp and the AVX-512
// vector 2^x (both widths, lane for lane the same) within 2 ulp. Each candidate against the
// scalar reference: test_kernel_ops.
#include "kernels/fp16.h"
#include "kernels/kernel_table.h"
#include "kernels/reference/reference_kernels.h"
#include "tests/support/kernel_candidates.h"
#if HEARTH_X86_KERNELS
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx512/avx512_kernels.h"
#endif

#include <QTest>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

using namespace hearth::kernels;

namespace {

// The attention candidates of the tiers this CPU and build run, each once (the others are
// skipped by unavailableTiers, with the reason).
const std::vector<Candidate<AttendFn>>& candidates() {
    static const auto all = hearth::test::distinct_candidates<AttendFn>(
        [](const KernelTable& k) -> auto& { return k.attention; });
    return all;
}

// The indices of the candidates that take tiles of n_positions at head_dim.
std::vector<int> taking(int n_positions, int head_dim, bool f16_cache = true) {
    std::vector<int> out;
    for (size_t i = 0; i < candidates().size(); ++i)
        if (candidates()[i].takes({.batch = n_positions, .width = head_dim, .f16_cache = f16_cache}))
            out.push_back(static_cast<int>(i));
    return out;
}

std::string label(int candidate) {
    return hearth::test::candidate_label(candidates()[static_cast<size_t>(candidate)]).toStdString();
}

void add_candidate_column() {
    QTest::addColumn<int>("candidate");
}

AttendFn kernel_of(int candidate) {
    return candidates()[static_cast<size_t>(candidate)].fn;
}

// Errors relative to the largest |value|. The F32 kernels land within 3e-7 of exact (2048 keys,
// head sizes up to 256) and within 1.2e-7 of each other; an F16 value accumulator, as in
// llama.cpp, lands ~1e-3 from exact.
constexpr double kExactTolerance = 2e-6;
constexpr double kScalarTolerance = 5e-7;
// n_keys rows of `stride` halves, the head at `offset` (another KV head before it, as in GQA).
struct Cache {
    int head_dim = 0;
    size_t stride = 0, offset = 0;
    std::vector<uint16_t> keys, values;
    const uint16_t* key_rows() const { return keys.data() + offset; }
    const uint16_t* value_rows() const { return values.data() + offset; }
    KvRows key_kv() const { return {key_rows(), TensorType::F16, stride * sizeof(uint16_t)}; }
    KvRows value_kv() const { return {value_rows(), TensorType::F16, stride * sizeof(uint16_t)}; }
    uint16_t& key(int j, int d) {
        return keys[offset + static_cast<size_t>(j) * stride + static_cast<size_t>(d)];
    }
    float value(int j, int d) const {
        return fp16_to_fp32(values[offset + static_cast<size_t>(j) * stride + static_cast<size_t>(d)]);
    }
    float key_at(int j, int d) const {
        return fp16_to_fp32(keys[offset + static_cast<size_t>(j) * stride + static_cast<size_t>(d)]);
    }
};

Cache make_cache(int head_dim, int n_keys, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    Cache c;
    c.head_dim = head_dim;
    c.offset = static_cast<size_t>(head_dim);
    c.stride = 3 * static_cast<size_t>(head_dim);
    c.keys.resize(c.stride * static_cast<size_t>(n_keys));
    c.values.resize(c.keys.size());
    for (auto& h : c.keys)
        h = fp32_to_fp16(normal(rng));
    for (auto& h : c.values)
        h = fp32_to_fp16(normal(rng));
    return c;
}

std::vector<float> random_floats(size_t n, float sigma, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, sigma);
    std::vector<float> v(n);
    for (float& x : v)
        x = normal(rng);
    return v;
}

float scale_for(int head_dim) {
    return 1.0f / std::sqrt(static_cast<float>(head_dim));
}

// Softmax attention of q over the first n_keys keys in float64; keys whose score is -inf take
// no part.
std::vector<double> exact_attention(const float* q, const Cache& c, int n_keys, float scale) {
    std::vector<double> scores(static_cast<size_t>(n_keys));
    double max_score = -INFINITY;
    for (int j = 0; j < n_keys; ++j) {
        double dot = 0.0;
        for (int d = 0; d < c.head_dim; ++d)
            dot += static_cast<double>(q[d]) * c.key_at(j, d);
        scores[static_cast<size_t>(j)] = dot * scale;
        max_score = std::max(max_score, scores[static_cast<size_t>(j)]);
    }
    std::vector<double> out(static_cast<size_t>(c.head_dim), 0.0);
    double sum = 0.0;
    for (int j = 0; j < n_keys; ++j) {
        if (scores[static_cast<size_t>(j)] == -INFINITY) continue;
        const double weight = std::exp(scores[static_cast<size_t>(j)] - max_score);
        sum += weight;
        for (int d = 0; d < c.head_dim; ++d)
            out[static_cast<size_t>(d)] += weight * c.value(j, d);
    }
    for (double& x : out)
        x /= sum;
    return out;
}

double value_scale(const Cache& c, int n_keys) {
    double largest = 0.0;
    for (int j = 0; j < n_keys; ++j)
        for (int d = 0; d < c.head_dim; ++d)
            largest = std::max(largest, std::fabs(static_cast<double>(c.value(j, d))));
    return largest;
}

// The AMX tier's prefill tiles (several positions) cut each softmax weight to its top 16
// significant bits and leave out weight low x value low (attention_amx.cpp): each term of the
// values' sums within 2^-15 of itself, so each output within 2^-15 of the values' scale more
// than the F32 sums' kExactTolerance (a piece product missing or misplaced is off by 2^-8 or
// more). Other tiers and single positions: kExactTolerance.
constexpr double kAmxTileTolerance = kExactTolerance + 0x1p-15;

double exact_tolerance(int candidate, int n_positions) {
    return candidates()[static_cast<size_t>(candidate)].backend == cpu(Isa::Amx) && n_positions > 1
               ? kAmxTileTolerance
               : kExactTolerance;
}

// One query row over the first n_keys keys: a tile of one head at one position.
std::vector<float> attend_one(AttendFn attend, const float* q, const Cache& c, int n_keys) {
    std::vector<float> out(static_cast<size_t>(c.head_dim), NAN);
    attend(q, out.data(), 0, 0, 1, 1, c.key_kv(), c.value_kv(), n_keys, c.head_dim, scale_for(c.head_dim),
           {});
    return out;
}

// The largest |got - want| over the elements, divided by `scale`; infinite if any is not finite.
template <class T>
double largest_error(const std::vector<float>& got, const std::vector<T>& want, double scale) {
    double worst = 0.0;
    for (size_t i = 0; i < got.size(); ++i) {
        if (!std::isfinite(got[i])) return INFINITY;
        worst =
            std::max(worst, std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i])) / scale);
    }
    return worst;
}

// n_keys rows of one KV head in a cache type, every row_bytes, the head at `offset` bytes (another
// head before it, as in GQA), with the exact floats each element stands for.
struct TypedCache {
    int head_dim = 0;
    TensorType key_type = TensorType::F16, value_type = TensorType::F16;
    size_t key_row_bytes = 0, value_row_bytes = 0;
    std::vector<unsigned char> keys, values;
    std::vector<float> key_floats, value_floats; // n_keys x head_dim, dequantized
    KvRows key_rows() const { return {keys.data() + key_row_bytes / 3, key_type, key_row_bytes}; }
    KvRows value_rows() const { return {values.data() + value_row_bytes / 3, value_type, value_row_bytes}; }
};

size_t row_bytes_of_head(TensorType type, int head_dim) {
    return row_bytes(type, head_dim);
}

// Rounds n_keys rows of normal floats to `type` with the reference quantizer and reads back what
// they stand for with the reference dequantizer.
void fill_typed(TensorType type, int head_dim, int n_keys, std::mt19937& rng,
                std::vector<unsigned char>& bytes, size_t& row_bytes, std::vector<float>& floats) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const size_t head_bytes = row_bytes_of_head(type, head_dim);
    row_bytes = 3 * head_bytes;
    bytes.assign(row_bytes * static_cast<size_t>(n_keys), 0);
    floats.resize(static_cast<size_t>(head_dim) * static_cast<size_t>(n_keys));
    std::vector<float> row(static_cast<size_t>(head_dim));
    const ReferenceOps kernels = reference_ops(type);
    for (int j = 0; j < n_keys; ++j) {
        for (float& x : row)
            x = normal(rng);
        unsigned char* at = bytes.data() + static_cast<size_t>(j) * row_bytes + head_bytes;
        kernels.quantize(row.data(), at, head_dim);
        kernels.dequantize(at, floats.data() + static_cast<size_t>(j) * static_cast<size_t>(head_dim),
                           head_dim);
    }
}

TypedCache make_typed_cache(TensorType key_type, TensorType value_type, int head_dim, int n_keys,
                            unsigned seed) {
    std::mt19937 rng(seed);
    TypedCache c;
    c.head_dim = head_dim;
    c.key_type = key_type;
    c.value_type = value_type;
    fill_typed(key_type, head_dim, n_keys, rng, c.keys, c.key_row_bytes, c.key_floats);
    fill_typed(value_type, head_dim, n_keys, rng, c.values, c.value_row_bytes, c.value_floats);
    return c;
}

std::vector<double> exact_typed_attention(const float* q, const TypedCache& c, int n_keys, float scale) {
    const auto d_of = [&c](int j, int d) {
        return static_cast<size_t>(j) * static_cast<size_t>(c.head_dim) + d;
    };
    std::vector<double> scores(static_cast<size_t>(n_keys));
    double max_score = -INFINITY;
    for (int j = 0; j < n_keys; ++j) {
        double dot = 0.0;
        for (int d = 0; d < c.head_dim; ++d)
            dot += static_cast<double>(q[d]) * c.key_floats[d_of(j, d)];
        scores[static_cast<size_t>(j)] = dot * scale;
        max_score = std::max(max_score, scores[static_cast<size_t>(j)]);
    }
    std::vector<double> out(static_cast<size_t>(c.head_dim), 0.0);
    double sum = 0.0;
    for (int j = 0; j < n_keys; ++j) {
        const double weight = std::exp(scores[static_cast<size_t>(j)] - max_score);
        sum += weight;
        for (int d = 0; d < c.head_dim; ++d)
            out[static_cast<size_t>(d)] += weight * c.value_floats[d_of(j, d)];
    }
    for (double& x : out)
        x /= sum;
    return out;
}

double typed_value_scale(const TypedCache& c, int n_keys) {
    double largest = 0.0;
    for (size_t i = 0; i < static_cast<size_t>(n_keys) * static_cast<size_t>(c.head_dim); ++i)
        largest = std::max(largest, std::fabs(static_cast<double>(c.value_floats[i])));
    return largest;
}

std::vector<float> attend_typed(AttendFn attend, const float* q, const TypedCache& c, int n_keys) {
    std::vector<float> out(static_cast<size_t>(c.head_dim), NAN);
    attend(q, out.data(), 0, 0, 1, 1, c.key_rows(), c.value_rows(), n_keys, c.head_dim, scale_for(c.head_dim),
           {});
    return out;
}

// Row (p, h) of a tile of n_positions positions, computed in a tile of two positions of head h
// alone (p and the next one, or the one before for the last): the shape a tile's rows must not
// depend on. n_positions >= 2.
std::vector<float> row_in_pair(AttendFn attend, const float* q, size_t head_stride, size_t position_stride,
                               int p, int h, int n_positions, int64_t n_keys, int64_t head_dim, float scale,
                               KvRows keys, KvRows values) {
    const int first = std::min(p, n_positions - 2);
    const size_t first_row =
        static_cast<size_t>(first) * position_stride + static_cast<size_t>(h) * head_stride;
    std::vector<float> out(2 * position_stride, NAN);
    attend(q + first_row, out.data(), head_stride, position_stride, 1, 2, keys, values, n_keys + first,
           head_dim, scale, {});
    const size_t at = static_cast<size_t>(p - first) * position_stride;
    return {out.begin() + static_cast<std::ptrdiff_t>(at),
            out.begin() + static_cast<std::ptrdiff_t>(at) + static_cast<std::ptrdiff_t>(head_dim)};
}

const char* short_name(TensorType t) {
    return t == TensorType::Q8_0 ? "q8_0" : t == TensorType::Q4_0 ? "q4_0" : "f16";
}

// Key and value types the quantized tests run: both quantized alike, and mixed with F16.
constexpr std::pair<TensorType, TensorType> kTypePairs[] = {{TensorType::Q8_0, TensorType::Q8_0},
                                                            {TensorType::Q4_0, TensorType::Q4_0},
                                                            {TensorType::Q8_0, TensorType::F16},
                                                            {TensorType::F16, TensorType::Q4_0},
                                                            {TensorType::Q4_0, TensorType::Q8_0}};

#if HEARTH_X86_KERNELS // the vector exp tests' inputs and measure
// Every 61st float from `from` to `to` (|from| < |to|, the same sign), and `to` itself.
void add_every_61st_float(std::vector<float>& inputs, float from, float to) {
    uint32_t a, b;
    std::memcpy(&a, &from, sizeof a);
    std::memcpy(&b, &to, sizeof b);
    for (uint32_t bits = a; bits <= b; bits += 61) {
        float x;
        std::memcpy(&x, &bits, sizeof x);
        inputs.push_back(x);
    }
    inputs.push_back(to);
}

// The largest error of got[i] against exact(inputs[i]), in ulps of the float nearest the
// exact value, and the input where it is.
struct UlpError {
    double ulps = 0.0;
    float at = 0.0f;
};
UlpError largest_ulp_error(const std::vector<float>& inputs, const std::vector<float>& got,
                           double (*exact_of)(double)) {
    UlpError worst;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const double exact = exact_of(static_cast<double>(inputs[i]));
        const float rounded = static_cast<float>(exact);
        const double ulp = static_cast<double>(std::nextafter(rounded, INFINITY)) - rounded;
        const double ulps = std::fabs(got[i] - exact) / ulp;
        if (ulps > worst.ulps) worst = {ulps, inputs[i]};
    }
    return worst;
}
#endif

} // namespace

class TestAttentionKernels : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(reference_kernels().attention.fn() == &attend_ref);
        for (const Candidate<AttendFn>& c : candidates())
            qInfo("candidate %s", qPrintable(hearth::test::candidate_label(c)));
    }

    void unavailableTiers() {
        const QString skipped = hearth::test::tiers_not_run();
        if (!skipped.isEmpty()) QSKIP(qPrintable("tiers not tested: " + skipped));
    }

    // Every candidate within kExactTolerance of exact math: head sizes with an unrolled AVX2 path (32,
    // 64, 96, 128), others that are multiples of 8 (8, 40, 72, 256) and some that are not (12,
    // 36, 100); key counts below, at and around the blocks of 8, and long runs.
    void matchesExactMath_data() {
        add_candidate_column();
        QTest::addColumn<int>("head_dim");
        QTest::addColumn<int>("n_keys");
        for (int head_dim : {8, 12, 32, 36, 40, 64, 72, 96, 100, 128, 256})
            for (int candidate : taking(1, head_dim))
                for (int n_keys : {1, 2, 7, 8, 9, 16, 33, 1000, 2048})
                    QTest::addRow("%s-d%d-n%d", label(candidate).c_str(), head_dim, n_keys)
                        << candidate << head_dim << n_keys;
    }
    void matchesExactMath() {
        QFETCH(int, candidate);
        QFETCH(int, head_dim);
        QFETCH(int, n_keys);
        const Cache c = make_cache(head_dim, n_keys, static_cast<unsigned>(head_dim * 7919 + n_keys));
        // Scores spread over ~±6: weights from 1 down to ~1e-5, a new maximum now and then.
        const std::vector<float> q = random_floats(static_cast<size_t>(head_dim), 2.0f, unsigned(n_keys));
        const std::vector<float> got = attend_one(kernel_of(candidate), q.data(), c, n_keys);
        const double error = largest_error(got, exact_attention(q.data(), c, n_keys, scale_for(head_dim)),
                                           value_scale(c, n_keys));
        QVERIFY2(error <= kExactTolerance, qPrintable(QString("error %1 of the values' scale").arg(error)));
    }

    // Tiles of several positions (prefill: the AMX tier's own kernel, the others' tile kernels)
    // within kExactTolerance of exact math and kScalarTolerance of the scalar kernel (or closer
    // to exact than the scalar kernel), the AMX tier's within its bound (exact_tolerance) of
    // both, every row:
    // head sizes that fill the 32-element pairs of a tile row and those that leave half of one
    // (80, 208), up to the largest the AMX kernel takes; keys in one block, around blocks of 32,
    // and long runs.
    void tileMatchesExactMath_data() {
        add_candidate_column();
        QTest::addColumn<int>("head_dim");
        QTest::addColumn<int>("n_keys");
        QTest::addColumn<int>("positions");
        for (int head_dim : {16, 40, 64, 72, 80, 128, 208, 256})
            for (int candidate : taking(3, head_dim))
                for (int n_keys : {1, 31, 33, 700, 2048})
                    QTest::addRow("%s-d%d-n%d", label(candidate).c_str(), head_dim, n_keys)
                        << candidate << head_dim << n_keys << 3;
        // Tall tiles of small heads: more groups of rows than a pass of the largest heads holds.
        for (int head_dim : {8, 72})
            for (int candidate : taking(48, head_dim))
                QTest::addRow("%s-d%d-n100-p48", label(candidate).c_str(), head_dim)
                    << candidate << head_dim << 100 << 48;
    }
    void tileMatchesExactMath() {
        QFETCH(int, candidate);
        QFETCH(int, head_dim);
        QFETCH(int, n_keys);
        QFETCH(int, positions);
        constexpr int kHeads = 7; // with 3 positions, 21 rows: a group of 16 and one of 5
        const int kPositions = positions;
        const Cache c =
            make_cache(head_dim, n_keys + kPositions - 1, static_cast<unsigned>(head_dim * 31 + n_keys));
        const size_t head_stride = static_cast<size_t>(head_dim);
        const size_t position_stride = head_stride * kHeads;
        const std::vector<float> q = random_floats(position_stride * kPositions, 2.0f, unsigned(n_keys + 5));
        std::vector<float> out(q.size(), NAN);
        const float scale = scale_for(head_dim);
        kernel_of(candidate)(q.data(), out.data(), head_stride, position_stride, kHeads, kPositions,
                             c.key_kv(), c.value_kv(), n_keys, head_dim, scale, {});
        for (int p = 0; p < kPositions; ++p)
            for (int h = 0; h < kHeads; ++h) {
                const size_t row =
                    static_cast<size_t>(p) * position_stride + static_cast<size_t>(h) * head_stride;
                const std::vector<float> got(out.begin() + static_cast<std::ptrdiff_t>(row),
                                             out.begin() + static_cast<std::ptrdiff_t>(row + head_stride));
                const std::vector<double> exact = exact_attention(q.data() + row, c, n_keys + p, scale);
                const double values_scale = value_scale(c, n_keys + p);
                const std::vector<float> scalar = attend_one(attend_ref, q.data() + row, c, n_keys + p);
                const double exact_error = largest_error(got, exact, values_scale);
                const double scalar_error = largest_error(got, scalar, values_scale);
                const double scalars_own = largest_error(scalar, exact, values_scale);
                // Farther from the scalar kernel only by being closer to exact math than it is.
                const double bound = exact_tolerance(candidate, kPositions);
                const double scalar_bound =
                    bound > kExactTolerance ? bound + kScalarTolerance : kScalarTolerance;
                QVERIFY2(exact_error <= bound && (scalar_error <= scalar_bound || exact_error <= scalars_own),
                         qPrintable(QString("position %1, head %2: error %3 of exact, %4 of the scalar "
                                            "kernel (which is %5 from exact)")
                                        .arg(p)
                                        .arg(h)
                                        .arg(exact_error)
                                        .arg(scalar_error)
                                        .arg(scalars_own)));
            }
    }

    // A tile of positions x query heads: every row bit for bit what a single query gives it over
    // the keys its position sees (n_keys + position), for every candidate; heads and positions in numbers
    // that pair up and that do not, key counts around the blocks of 8, and scores that are random, rise with
    // every key (each one a new maximum) or come in equal pairs that fall (ties).
    void tileMatchesSingleQuery_data() {
        add_candidate_column();
        QTest::addColumn<int>("head_dim");
        QTest::addColumn<int>("n_heads");
        QTest::addColumn<int>("n_positions");
        QTest::addColumn<int>("n_keys");
        QTest::addColumn<int>("pattern");
        for (int head_dim : {64, 40, 12})
            for (int n_positions : {1, 3, 4, 10})
                for (int candidate : taking(n_positions, head_dim))
                    for (int n_heads : {1, 2, 7})
                        for (int n_keys : {1, 8, 9, 37, 100})
                            for (int pattern : {0, 1, 2})
                                QTest::addRow("%s-d%d-h%d-p%d-k%d-%s", label(candidate).c_str(), head_dim,
                                              n_heads, n_positions, n_keys,
                                              pattern == 0   ? "random"
                                              : pattern == 1 ? "rising"
                                                             : "falling-ties")
                                    << candidate << head_dim << n_heads << n_positions << n_keys << pattern;
    }
    void tileMatchesSingleQuery() {
        QFETCH(int, candidate);
        QFETCH(int, head_dim);
        QFETCH(int, n_heads);
        QFETCH(int, n_positions);
        QFETCH(int, n_keys);
        QFETCH(int, pattern);
        const AttendFn attend = kernel_of(candidate);
        const int total_keys = n_keys + n_positions - 1;
        Cache c = make_cache(head_dim, total_keys, 11u * unsigned(head_dim) + unsigned(n_heads));
        if (pattern != 0) // every element of key j the same: scores proportional to its level
            for (int j = 0; j < total_keys; ++j) {
                const float level =
                    pattern == 1 ? static_cast<float>(j) / 16 : static_cast<float>(total_keys - j / 2) / 16;
                for (int d = 0; d < head_dim; ++d)
                    c.key(j, d) = fp32_to_fp16(level);
            }
        // Rows with gaps between them, as in a batch of (position, all heads) rows.
        const size_t head_stride = static_cast<size_t>(head_dim) + 8;
        const size_t position_stride = head_stride * static_cast<size_t>(n_heads) + 24;
        std::vector<float> q = random_floats(position_stride * static_cast<size_t>(n_positions), 2.0f, 5);
        if (pattern != 0)
            for (size_t i = 0; i < q.size(); ++i)
                q[i] = 1.0f + 0.25f * static_cast<float>(i % head_stride) / static_cast<float>(head_stride);
        std::vector<float> out(q.size(), NAN);
        const float scale = scale_for(head_dim);
        attend(q.data(), out.data(), head_stride, position_stride, n_heads, n_positions, c.key_kv(),
               c.value_kv(), n_keys, head_dim, scale, {});
        for (int p = 0; p < n_positions; ++p)
            for (int h = 0; h < n_heads; ++h) {
                const size_t row =
                    static_cast<size_t>(p) * position_stride + static_cast<size_t>(h) * head_stride;
                std::vector<float> want(static_cast<size_t>(head_dim), NAN);
                if (n_positions == 1)
                    want = attend_one(attend, q.data() + row, c, n_keys + p);
                else
                    want = row_in_pair(attend, q.data(), head_stride, position_stride, p, h, n_positions,
                                       n_keys, head_dim, scale, c.key_kv(), c.value_kv());
                QVERIFY2(std::memcmp(out.data() + row, want.data(), want.size() * sizeof(float)) == 0,
                         qPrintable(QString("position %1, head %2").arg(p).arg(h)));
                // Several positions sum in their own order: within the SIMD tiers' bound of the scalar
                // kernel on random data, as matchesScalar checks single queries (the AMX tiles within
                // theirs, and the scalar kernel's own distance from exact).
                if (n_positions == 1 || pattern != 0) continue;
                const std::vector<float> scalar = attend_one(attend_ref, q.data() + row, c, n_keys + p);
                const double error = largest_error(want, scalar, value_scale(c, n_keys + p));
                const double tile_bound = exact_tolerance(candidate, n_positions);
                const double bound =
                    tile_bound > kExactTolerance ? tile_bound + kScalarTolerance : kScalarTolerance;
                QVERIFY2(error <= bound,
                         qPrintable(QString("position %1, head %2: error %3 against the scalar kernel")
                                        .arg(p)
                                        .arg(h)
                                        .arg(error)));
            }
    }

    // Rows without gaps between them (the KV cache's own layout, which kernels may read in place)
    // give the same bits as the same rows with gaps, for every candidate: decode tiles of 1 to 16 heads
    // (more than one pass of rows) and a prefill tile, head sizes the kernels know in advance
    // (64, 128, 256) and others (80, 48, and 40, not a multiple of 16), key counts below, at and
    // past whole blocks of 16. With the gaps, tileMatchesSingleQuery and matchesExactMath hold.
    void gaplessRowsMatchRowsWithGaps_data() {
        add_candidate_column();
        QTest::addColumn<int>("head_dim");
        QTest::addColumn<int>("n_heads");
        QTest::addColumn<int>("n_positions");
        for (int head_dim : {64, 128, 256, 80, 48, 40})
            for (int n_positions : {1, 3})
                for (int candidate : taking(n_positions, head_dim))
                    for (int n_heads : {1, 2, 3, 4, 7, 8, 9, 16})
                        QTest::addRow("%s-d%d-h%d-p%d", label(candidate).c_str(), head_dim, n_heads,
                                      n_positions)
                            << candidate << head_dim << n_heads << n_positions;
    }
    void gaplessRowsMatchRowsWithGaps() {
        QFETCH(int, candidate);
        QFETCH(int, head_dim);
        QFETCH(int, n_heads);
        QFETCH(int, n_positions);
        const AttendFn attend = kernel_of(candidate);
        const size_t dim = static_cast<size_t>(head_dim);
        for (int n_keys : {1, 15, 16, 17, 100, 300}) {
            const int total_keys = n_keys + n_positions - 1;
            const Cache gaps = make_cache(head_dim, total_keys, 5u * unsigned(head_dim) + unsigned(n_keys));
            std::vector<uint16_t> keys(dim * static_cast<size_t>(total_keys)), values(keys.size());
            for (int j = 0; j < total_keys; ++j) {
                const size_t from = gaps.offset + static_cast<size_t>(j) * gaps.stride;
                std::copy_n(gaps.keys.begin() + static_cast<std::ptrdiff_t>(from), dim,
                            keys.begin() + static_cast<std::ptrdiff_t>(j * dim));
                std::copy_n(gaps.values.begin() + static_cast<std::ptrdiff_t>(from), dim,
                            values.begin() + static_cast<std::ptrdiff_t>(j * dim));
            }
            const size_t position_stride = dim * static_cast<size_t>(n_heads);
            const std::vector<float> q =
                random_floats(position_stride * static_cast<size_t>(n_positions), 2.0f, unsigned(n_keys));
            std::vector<float> want(q.size(), NAN), got(q.size(), NAN);
            const float scale = scale_for(head_dim);
            attend(q.data(), want.data(), dim, position_stride, n_heads, n_positions, gaps.key_kv(),
                   gaps.value_kv(), n_keys, head_dim, scale, {});
            const size_t row_bytes = dim * sizeof(uint16_t);
            attend(q.data(), got.data(), dim, position_stride, n_heads, n_positions,
                   {keys.data(), TensorType::F16, row_bytes}, {values.data(), TensorType::F16, row_bytes},
                   n_keys, head_dim, scale, {});
            QVERIFY2(std::all_of(want.begin(), want.end(), [](float x) { return std::isfinite(x); }),
                     qPrintable(QString("%1 keys: an output is not finite").arg(n_keys)));
            QVERIFY2(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0,
                     qPrintable(QString("%1 keys: rows without gaps give other bits").arg(n_keys)));
        }
    }

    // Keys whose score is -inf (an infinite key against a positive query) weigh nothing: first,
    // in the middle, a whole block of 8, or all keys but one (the output is then that value).
    void infiniteScoresWeighNothing_data() {
        add_candidate_column();
        QTest::addColumn<QList<int>>("masked");
        QTest::addColumn<int>("n_keys");
        for (int candidate : taking(1, 64)) {
            const std::string name = label(candidate);
            QTest::addRow("%s-first", name.c_str()) << candidate << QList<int>{0} << 20;
            QTest::addRow("%s-middle", name.c_str()) << candidate << QList<int>{5, 11} << 20;
            QTest::addRow("%s-first-block", name.c_str())
                << candidate << QList<int>{0, 1, 2, 3, 4, 5, 6, 7} << 20;
            QTest::addRow("%s-all-but-last", name.c_str())
                << candidate << QList<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10} << 12;
        }
    }
    void infiniteScoresWeighNothing() {
        QFETCH(int, candidate);
        QFETCH(QList<int>, masked);
        QFETCH(int, n_keys);
        constexpr int kHeadDim = 64;
        Cache c = make_cache(kHeadDim, n_keys, 99);
        for (int j : masked)
            for (int d = 0; d < kHeadDim; ++d)
                c.key(j, d) = fp32_to_fp16(-INFINITY);
        std::vector<float> q = random_floats(kHeadDim, 1.0f, 3);
        for (float& x : q)
            x = std::fabs(x) + 0.01f; // positive: every masked score is exactly -inf
        const std::vector<float> got = attend_one(kernel_of(candidate), q.data(), c, n_keys);
        const double error = largest_error(got, exact_attention(q.data(), c, n_keys, scale_for(kHeadDim)),
                                           value_scale(c, n_keys));
        QVERIFY2(error <= kExactTolerance, qPrintable(QString("error %1 of the values' scale").arg(error)));
    }

    // Scores in the thousands: the softmax is one-hot (every other weight underflows to 0), and
    // where the maximum rises by thousands the earlier sums are rescaled by exp(-thousands) = 0.
    void largeScores_data() {
        add_candidate_column();
        QTest::addColumn<bool>("rising");
        for (int candidate : taking(1, 64)) {
            QTest::addRow("%s-random", label(candidate).c_str()) << candidate << false;
            QTest::addRow("%s-rising", label(candidate).c_str()) << candidate << true;
        }
    }
    void largeScores() {
        QFETCH(int, candidate);
        QFETCH(bool, rising);
        constexpr int kHeadDim = 64, kKeys = 100;
        Cache c = make_cache(kHeadDim, kKeys, 7);
        if (rising)
            for (int j = 0; j < kKeys; ++j)
                for (int d = 0; d < kHeadDim; ++d)
                    c.key(j, d) = fp32_to_fp16(static_cast<float>(j) * 2.0f + 1.0f);
        std::vector<float> q = random_floats(kHeadDim, 300.0f, 8);
        if (rising) std::fill(q.begin(), q.end(), 50.0f);
        const std::vector<float> got = attend_one(kernel_of(candidate), q.data(), c, kKeys);
        const std::vector<double> exact = exact_attention(q.data(), c, kKeys, scale_for(kHeadDim));
        const double error = largest_error(got, exact, value_scale(c, kKeys));
        QVERIFY2(error <= kExactTolerance, qPrintable(QString("error %1 of the values' scale").arg(error)));
    }

    // A single key: the output is that key's value exactly (weight 1, sum 1).
    void singleKeyReturnsItsValue() {
        for (int head_dim : {12, 64, 128})
            for (int candidate : taking(1, head_dim)) {
                const Cache c = make_cache(head_dim, 1, 5);
                const std::vector<float> q = random_floats(static_cast<size_t>(head_dim), 2.0f, 6);
                const std::vector<float> got = attend_one(kernel_of(candidate), q.data(), c, 1);
                for (int d = 0; d < head_dim; ++d)
                    QCOMPARE(got[static_cast<size_t>(d)], c.value(0, d));
            }
    }

    // Quantized keys and values read directly: every candidate within kExactTolerance of float64
    // attention over what the cache stands for (the dequantized blocks), at the head sizes of
    // real models (multiples of 32) and key counts around the blocks of 8.
    void quantizedMatchesExactMath_data() {
        add_candidate_column();
        QTest::addColumn<int>("key_type");
        QTest::addColumn<int>("value_type");
        QTest::addColumn<int>("head_dim");
        QTest::addColumn<int>("n_keys");
        for (int head_dim : {32, 64, 96, 128, 160})
            for (int candidate : taking(1, head_dim, false))
                for (const auto& [key_type, value_type] : kTypePairs)
                    for (int n_keys : {1, 7, 9, 300, 2048})
                        QTest::addRow("%s-k%s-v%s-d%d-n%d", label(candidate).c_str(), short_name(key_type),
                                      short_name(value_type), head_dim, n_keys)
                            << candidate << static_cast<int>(key_type) << static_cast<int>(value_type)
                            << head_dim << n_keys;
    }
    void quantizedMatchesExactMath() {
        QFETCH(int, candidate);
        QFETCH(int, key_type);
        QFETCH(int, value_type);
        QFETCH(int, head_dim);
        QFETCH(int, n_keys);
        const TypedCache c =
            make_typed_cache(static_cast<TensorType>(key_type), static_cast<TensorType>(value_type), head_dim,
                             n_keys, static_cast<unsigned>(head_dim * 131 + n_keys));
        const std::vector<float> q = random_floats(static_cast<size_t>(head_dim), 2.0f, unsigned(n_keys + 3));
        const std::vector<float> got = attend_typed(kernel_of(candidate), q.data(), c, n_keys);
        const double error =
            largest_error(got, exact_typed_attention(q.data(), c, n_keys, scale_for(head_dim)),
                          typed_value_scale(c, n_keys));
        QVERIFY2(error <= kExactTolerance, qPrintable(QString("error %1 of the values' scale").arg(error)));
    }

    // Over a quantized cache, a tile of positions x heads bit for bit what each row gives in a
    // tile of two positions of one head.
    void quantizedTilesMatchPairs_data() {
        add_candidate_column();
        QTest::addColumn<int>("key_type");
        QTest::addColumn<int>("value_type");
        QTest::addColumn<int>("head_dim");
        for (int head_dim : {32, 64, 128, 160})
            for (int candidate : taking(6, head_dim, false))
                for (const auto& [key_type, value_type] : kTypePairs)
                    QTest::addRow("%s-k%s-v%s-d%d", label(candidate).c_str(), short_name(key_type),
                                  short_name(value_type), head_dim)
                        << candidate << static_cast<int>(key_type) << static_cast<int>(value_type)
                        << head_dim;
    }
    void quantizedTilesMatchPairs() {
        QFETCH(int, candidate);
        QFETCH(int, key_type);
        QFETCH(int, value_type);
        QFETCH(int, head_dim);
        const AttendFn attend = kernel_of(candidate);
        constexpr int kHeads = 3, kPositions = 6, kKeys = 37; // 18 rows: more than one vector of 16
        const TypedCache c =
            make_typed_cache(static_cast<TensorType>(key_type), static_cast<TensorType>(value_type), head_dim,
                             kKeys + kPositions - 1, static_cast<unsigned>(head_dim));
        const size_t head_stride = static_cast<size_t>(head_dim) + 8;
        const size_t position_stride = head_stride * kHeads + 16;
        const std::vector<float> q = random_floats(position_stride * kPositions, 2.0f, 21);
        std::vector<float> out(q.size(), NAN);
        const float scale = scale_for(head_dim);
        attend(q.data(), out.data(), head_stride, position_stride, kHeads, kPositions, c.key_rows(),
               c.value_rows(), kKeys, head_dim, scale, {});
        for (int p = 0; p < kPositions; ++p)
            for (int h = 0; h < kHeads; ++h) {
                const size_t row =
                    static_cast<size_t>(p) * position_stride + static_cast<size_t>(h) * head_stride;
                const std::vector<float> alone =
                    row_in_pair(attend, q.data(), head_stride, position_stride, p, h, kPositions, kKeys,
                                head_dim, scale, c.key_rows(), c.value_rows());
                QVERIFY2(std::memcmp(out.data() + row, alone.data(), alone.size() * sizeof(float)) == 0,
                         qPrintable(
                             QString("position %1, head %2: tile differs from the row in a pair of positions")
                                 .arg(p)
                                 .arg(h)));
            }
    }

    // The tables pick the kernels the tiers promise: AMX for prefill over F16 caches, AVX-512
    // for decode, quantized caches and head sizes of 8k, AVX2 for the others and for AVX-VNNI.
    void tablesPickTheTiersKernels() {
        const auto tier_of = [](const KernelTable& table, int positions, int head_dim, bool f16) {
            const Candidate<AttendFn>* c =
                table.attention.pick({.batch = positions, .width = head_dim, .f16_cache = f16});
            return c != nullptr ? c->backend : Backend{Device::Vulkan, Isa::Scalar};
        };
        QCOMPARE(tier_of(reference_kernels(), 5, 64, true), cpu(Isa::Scalar));
        if (const KernelTable* avx2 = kernels_for(Isa::Avx2))
            QCOMPARE(tier_of(*avx2, 5, 40, true), cpu(Isa::Avx2));
        if (const KernelTable* vnni = kernels_for(Isa::AvxVnni))
            QCOMPARE(tier_of(*vnni, 5, 64, true), cpu(Isa::Avx2));
        if (const KernelTable* avx512 = kernels_for(Isa::Avx512)) {
            QCOMPARE(tier_of(*avx512, 5, 64, true), cpu(Isa::Avx512));
            QCOMPARE(tier_of(*avx512, 1, 64, false), cpu(Isa::Avx512));
            QCOMPARE(tier_of(*avx512, 5, 40, true), cpu(Isa::Avx512));
            QCOMPARE(tier_of(*avx512, 1, 72, true), cpu(Isa::Avx512)); // the vision tower's heads
            QCOMPARE(tier_of(*avx512, 5, 36, true), cpu(Isa::Avx2));
        }
        if (const KernelTable* amx = kernels_for(Isa::Amx)) {
            QCOMPARE(tier_of(*amx, 5, 64, true), cpu(Isa::Amx));
            QCOMPARE(tier_of(*amx, 1, 64, true), cpu(Isa::Avx512));  // decode
            QCOMPARE(tier_of(*amx, 5, 64, false), cpu(Isa::Avx512)); // a quantized cache
            QCOMPARE(tier_of(*amx, 5, 512, true), cpu(Isa::Avx512)); // past the tiles' largest head
            QCOMPARE(tier_of(*amx, 5, 40, true), cpu(Isa::Avx512));
            QCOMPARE(tier_of(*amx, 5, 36, true), cpu(Isa::Avx2));
        }
    }

    // The AVX2 attention's vector exp against exp in double: within 2 ulp on every 61st float of
    // [-87.3, 88] (normal results); 1 at 0; 0 at -inf and below -88; NaN for NaN.
    void vectorExpWithin2Ulp() {
#if HEARTH_X86_KERNELS
        if (!kernels_for(Isa::Avx2))
            QSKIP(qPrintable("tier avx2 skipped: " +
                             QString::fromStdString(isa_unavailable_reason(Isa::Avx2))));
        std::vector<float> inputs;
        add_every_61st_float(inputs, 0.0f, 88.0f);
        add_every_61st_float(inputs, -0.0f, -87.33f);
        inputs.insert(inputs.end(), {1.0f, -1.0f, 0.5f, -0.5f, 0.34657359f, -0.34657359f});
        while (inputs.size() % 8 != 0)
            inputs.push_back(0.0f);
        std::vector<float> got(inputs.size());
        for (size_t i = 0; i < inputs.size(); i += 8)
            avx2::expf_8(&inputs[i], &got[i]);
        const UlpError worst = largest_ulp_error(inputs, got, [](double x) { return std::exp(x); });
        qInfo("vector exp: largest error %.3f ulp, at %a", worst.ulps, static_cast<double>(worst.at));
        QVERIFY2(worst.ulps <= 2.0,
                 qPrintable(QString("%1 ulp at %2").arg(worst.ulps).arg(double(worst.at), 0, 'a')));
        float special[8] = {0.0f, -INFINITY, -88.0f, -1000.0f, NAN, -0.0f, -87.0f, 1e-30f};
        float out[8];
        avx2::expf_8(special, out);
        QCOMPARE(out[0], 1.0f);
        QCOMPARE(out[1], 0.0f);
        QVERIFY(out[2] >= 0.0f && out[2] < 1e-37f);
        QCOMPARE(out[3], 0.0f);
        QVERIFY(std::isnan(out[4]));
        QCOMPARE(out[5], 1.0f);
        QVERIFY(std::fabs(out[6] / std::exp(-87.0) - 1.0) < 1e-6);
        QCOMPARE(out[7], 1.0f);
#else
        QSKIP("no x86 kernels in this build");
#endif
    }

    // The AVX-512 attention's 2^x against exp2 in double: within 2 ulp on every 61st float of
    // [-126, 127.9] (normal results), the 16- and 8-lane forms bit for bit the same; 1 at 0, 0 at
    // -inf and below -150, inf above 128, NaN for NaN.
    void vectorExp2Within2Ulp() {
#if HEARTH_X86_KERNELS
        if (!kernels_for(Isa::Avx512))
            QSKIP(qPrintable("tier avx512 skipped: " +
                             QString::fromStdString(isa_unavailable_reason(Isa::Avx512))));
        std::vector<float> inputs;
        add_every_61st_float(inputs, 0.0f, 127.9f);
        add_every_61st_float(inputs, -0.0f, -126.0f);
        inputs.insert(inputs.end(), {1.0f, -1.0f, 0.5f, -0.5f, 0.49999997f, -0.49999997f, 1.5f, -1.5f});
        while (inputs.size() % 16 != 0)
            inputs.push_back(0.0f);
        std::vector<float> got(inputs.size());
        for (size_t i = 0; i < inputs.size(); i += 16) {
            float half_width[16];
            avx512::exp2_16(&inputs[i], &got[i]);
            avx512::exp2_8(&inputs[i], half_width);
            avx512::exp2_8(&inputs[i + 8], half_width + 8);
            QVERIFY2(std::memcmp(&got[i], half_width, sizeof half_width) == 0, "the widths differ");
        }
        const UlpError worst = largest_ulp_error(inputs, got, [](double x) { return std::exp2(x); });
        qInfo("vector 2^x: largest error %.3f ulp, at %a", worst.ulps, static_cast<double>(worst.at));
        QVERIFY2(worst.ulps <= 2.0,
                 qPrintable(QString("%1 ulp at %2").arg(worst.ulps).arg(double(worst.at), 0, 'a')));
        float special[16] = {0.0f,     -INFINITY, -149.0f, -151.0f,  NAN,  -0.0f, -140.5f, 1e-30f,
                             INFINITY, 128.0f,    127.0f,  -1000.0f, 1.0f, -1.0f, 0.5f,    3.0f};
        float out[16];
        avx512::exp2_16(special, out);
        QCOMPARE(out[0], 1.0f);
        QCOMPARE(out[1], 0.0f);
        QCOMPARE(out[2], std::ldexp(1.0f, -149)); // the smallest subnormal
        QCOMPARE(out[3], 0.0f);
        QVERIFY(std::isnan(out[4]));
        QCOMPARE(out[5], 1.0f);
        QVERIFY(std::fabs(out[6] / std::exp2(-140.5) - 1.0) < 1e-3); // subnormal: 9 bits left
        QCOMPARE(out[7], 1.0f);
        QCOMPARE(out[8], INFINITY);
        QCOMPARE(out[9], INFINITY);
        QCOMPARE(out[10], std::ldexp(1.0f, 127));
        QCOMPARE(out[11], 0.0f);
        QCOMPARE(out[12], 2.0f);
        QCOMPARE(out[13], 0.5f);
        QCOMPARE(out[15], 8.0f);
#else
        QSKIP("no x86 kernels in this build");
#endif
    }
};

QTEST_MAIN(TestAttentionKernels)
#include "test_attention_kernels.moc"
