// The attention kernels' limits (a sliding window and logit soft-capping, as Gemma 2 and 3 need)
// for every attention candidate of the tiers this CPU runs, against float64 attention over the
// same F16 keys and values: within 2e-6 of the values' scale (the AMX tiles 2^-15 more, as they
// cut the softmax weights to 16 bits) for windows shorter than, across and longer than the
// blocks of 8 keys, with and without soft-capping, over tiles of several positions and heads;
// and a window longer than every row's keys bit for bit no window at all.
#include "kernels/fp16.h"
#include "kernels/kernel_table.h"
#include "kernels/reference/reference_kernels.h"
#include "tests/support/kernel_candidates.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace hearth::kernels;

namespace {

constexpr double kExactTolerance = 2e-6; // of the largest |value|
// The AMX tier's tiles of several positions cut each softmax weight to 16 significant bits
// (attention_amx.cpp, test_attention_kernels): 2^-15 of the values' scale more.
constexpr double kAmxWeightsCut = 0x1p-15;

const std::vector<Candidate<AttendFn>>& candidates() {
    static const auto all = hearth::test::distinct_candidates<AttendFn>(
        [](const KernelTable& k) -> auto& { return k.attention; });
    return all;
}

double exact_tolerance(const Candidate<AttendFn>& c) {
    return kExactTolerance + (c.backend == cpu(Isa::Amx) ? kAmxWeightsCut : 0.0);
}

// One KV head of n_keys F16 rows, and a tile of n_positions x n_heads query rows.
struct Case {
    int head_dim, n_heads, n_positions, n_keys; // n_keys: seen by position 0
    std::vector<uint16_t> keys, values;
    std::vector<float> q;
    float value_scale = 0;

    Case(int head_dim_, int n_heads_, int n_positions_, int n_keys_, uint32_t seed, float q_spread)
        : head_dim(head_dim_), n_heads(n_heads_), n_positions(n_positions_), n_keys(n_keys_) {
        std::mt19937 rng(seed);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        const size_t rows = static_cast<size_t>(n_keys + n_positions - 1);
        keys.resize(rows * head_dim);
        values.resize(rows * head_dim);
        for (auto& k : keys)
            k = fp32_to_fp16(normal(rng));
        for (auto& v : values) {
            v = fp32_to_fp16(normal(rng));
            value_scale = std::max(value_scale, std::abs(fp16_to_fp32(v)));
        }
        q.resize(static_cast<size_t>(n_positions) * n_heads * head_dim);
        for (auto& x : q)
            x = q_spread * normal(rng);
    }
    KvRows key_rows() const { return {keys.data(), TensorType::F16, sizeof(uint16_t) * head_dim}; }
    KvRows value_rows() const { return {values.data(), TensorType::F16, sizeof(uint16_t) * head_dim}; }
    size_t head_stride() const { return static_cast<size_t>(head_dim); }
    size_t position_stride() const { return static_cast<size_t>(n_heads) * head_dim; }
    float scale() const { return 1.0f / std::sqrt(static_cast<float>(head_dim)); }

    std::vector<float> run(AttendFn attend, AttentionLimits limits) const {
        std::vector<float> out(q.size(), NAN);
        attend(q.data(), out.data(), head_stride(), position_stride(), n_heads, n_positions, key_rows(),
               value_rows(), n_keys, head_dim, scale(), limits);
        return out;
    }

    // Float64 attention: position p sees keys [max(0, n_keys + p - window), n_keys + p).
    std::vector<double> exact(AttentionLimits limits) const {
        std::vector<double> out(q.size());
        for (int p = 0; p < n_positions; ++p)
            for (int h = 0; h < n_heads; ++h) {
                const size_t row =
                    static_cast<size_t>(p) * position_stride() + static_cast<size_t>(h) * head_dim;
                const int end = n_keys + p;
                const int begin =
                    limits.window > 0 ? std::max<int>(0, end - static_cast<int>(limits.window)) : 0;
                std::vector<double> scores;
                for (int j = begin; j < end; ++j) {
                    double dot = 0;
                    for (int d = 0; d < head_dim; ++d)
                        dot += double(q[row + d]) * fp16_to_fp32(keys[static_cast<size_t>(j) * head_dim + d]);
                    double s = dot * double(scale());
                    if (limits.softcap > 0) s = limits.softcap * std::tanh(s / limits.softcap);
                    scores.push_back(s);
                }
                const double max = *std::max_element(scores.begin(), scores.end());
                double sum = 0;
                for (double& s : scores)
                    sum += (s = std::exp(s - max));
                for (int d = 0; d < head_dim; ++d) {
                    double acc = 0;
                    for (int j = begin; j < end; ++j)
                        acc += scores[static_cast<size_t>(j - begin)] *
                               fp16_to_fp32(values[static_cast<size_t>(j) * head_dim + d]);
                    out[row + d] = acc / sum;
                }
            }
        return out;
    }
};

double worst_error(const std::vector<float>& got, const std::vector<double>& want) {
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i)
        worst = std::max(worst, std::isfinite(got[i]) ? std::abs(got[i] - want[i]) : INFINITY);
    return worst;
}

} // namespace

class TestAttentionLimits : public QObject {
    Q_OBJECT

private slots:
    void within_exact_attention_data() {
        QTest::addColumn<int>("candidate");
        QTest::addColumn<int>("head_dim");
        QTest::addColumn<int>("n_keys");
        QTest::addColumn<int>("window");
        QTest::addColumn<float>("softcap");
        for (size_t i = 0; i < candidates().size(); ++i)
            for (int head_dim : {48, 64, 40}) {
                if (!candidates()[i].takes({.batch = 6, .width = head_dim})) continue;
                for (int n_keys : {1, 7, 30, 77})
                    for (int window : {0, 1, 5, 8, 13, 4096})
                        for (float softcap : {0.0f, 5.0f}) {
                            if (window == 0 && softcap == 0) continue;
                            QTest::addRow("%s/d%d/k%d/w%d/cap%g",
                                          qPrintable(hearth::test::candidate_label(candidates()[i])),
                                          head_dim, n_keys, window, double(softcap))
                                << int(i) << head_dim << n_keys << window << softcap;
                        }
            }
    }
    // A tile of 6 positions x 3 heads, each row within its tier's bound of float64 attention over its window,
    // scores soft-capped; large queries so that the capping changes the weights.
    void within_exact_attention() {
        QFETCH(int, candidate);
        QFETCH(int, head_dim);
        QFETCH(int, n_keys);
        QFETCH(int, window);
        QFETCH(float, softcap);
        const Candidate<AttendFn>& kernel = candidates()[static_cast<size_t>(candidate)];
        const Case c(head_dim, 3, 6, n_keys, 1234u + head_dim + n_keys, 2.0f);
        const AttentionLimits limits{window, softcap};
        const double error = worst_error(c.run(kernel.fn, limits), c.exact(limits));
        const double limit = exact_tolerance(kernel) * c.value_scale;
        QVERIFY2(error <= limit, qPrintable(QString("error %1, limit %2").arg(error).arg(limit)));
    }

    // The window and the cap do change the result (the test above would not see a kernel that
    // ignored them on these shapes otherwise).
    void limits_change_the_result() {
        const Case c(64, 2, 4, 40, 99u, 2.0f);
        const std::vector<double> plain = c.exact({}), windowed = c.exact({8, 0}), capped = c.exact({0, 5});
        double window_change = 0, cap_change = 0;
        for (size_t i = 0; i < plain.size(); ++i) {
            window_change = std::max(window_change, std::abs(plain[i] - windowed[i]));
            cap_change = std::max(cap_change, std::abs(plain[i] - capped[i]));
        }
        QVERIFY(window_change > 1e-2);
        QVERIFY(cap_change > 1e-2);
    }

    void window_past_every_key_is_no_window_data() {
        QTest::addColumn<int>("candidate");
        for (size_t i = 0; i < candidates().size(); ++i)
            QTest::newRow(qPrintable(hearth::test::candidate_label(candidates()[i]))) << int(i);
    }
    // A window longer than any row's keys: the same bits as no limits.
    void window_past_every_key_is_no_window() {
        QFETCH(int, candidate);
        const Candidate<AttendFn>& kernel = candidates()[static_cast<size_t>(candidate)];
        int tested = 0;
        for (int head_dim : {32, 64, 96, 128, 40}) {
            if (!kernel.takes({.batch = 5, .width = head_dim})) continue;
            const Case c(head_dim, 4, 5, 37, 7u + head_dim, 1.0f);
            QCOMPARE(c.run(kernel.fn, {1000, 0}), c.run(kernel.fn, {}));
            ++tested;
        }
        QVERIFY(tested > 0);
    }
};

QTEST_GUILESS_MAIN(TestAttentionLimits)
#include "test_attention_limits.moc"
