// The AVX2 attention kernel against the scalar reference: bit for bit, at odd head sizes and
// key counts, both where the score's dot product is exact in any summation order and on
// random data (both sum in ggml's order, so every rounding must agree).
#include "kernels/fp16.h"
#include "kernels/kernel_table.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/x86_avx2/avx2_kernels.h"

#include <QTest>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace hearth::kernels;

namespace {

struct Case {
    std::vector<float> q;
    std::vector<uint16_t> keys, values; // n_keys rows of `stride` halves, the head at `offset`
    size_t stride = 0, offset = 0;
};

// exact: q and keys are small integers (all partial sums exact in float), values random.
Case make_case(int head_dim, int n_keys, bool exact, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> small(-3, 3);
    Case c;
    c.offset = static_cast<size_t>(head_dim); // a second KV head before ours, as with GQA
    c.stride = 3 * static_cast<size_t>(head_dim);
    c.q.resize(static_cast<size_t>(head_dim));
    for (float& x : c.q)
        x = exact ? static_cast<float>(small(rng)) : 2.0f * normal(rng);
    c.keys.resize(c.stride * n_keys);
    c.values.resize(c.stride * n_keys);
    for (auto& h : c.keys)
        h = fp32_to_fp16(exact ? static_cast<float>(small(rng)) : normal(rng));
    for (auto& h : c.values)
        h = fp32_to_fp16(normal(rng));
    return c;
}

std::vector<float> run(AttendF16Fn fn, const Case& c, int head_dim, int n_keys) {
    std::vector<float> out(static_cast<size_t>(head_dim), NAN);
    fn(c.q.data(), c.keys.data() + c.offset, c.values.data() + c.offset, c.stride, n_keys, head_dim,
       1.0f / std::sqrt(static_cast<float>(head_dim)), out.data());
    return out;
}

} // namespace

class TestAttentionKernels : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (!kernels_for(Isa::Avx2)) QSKIP("this CPU has no AVX2/FMA/F16C: the AVX2 kernels cannot run here");
        QVERIFY(kernels_for(Isa::Avx2) != nullptr);
        QVERIFY(kernels_for(Isa::Avx2)->attend_f16 == &avx2::attend_f16);
        QVERIFY(reference_kernels().attend_f16 == &attend_f16_ref);
    }

    void matchesReference_data() {
        QTest::addColumn<int>("head_dim");
        QTest::addColumn<int>("n_keys");
        QTest::addColumn<bool>("exact");
        // 64 and 128 take the unrolled paths; 8, 40, 72, 96 the generic one (40 and 72 with a
        // tail after the steps of 32); 12 and 36 (not multiples of 8) fall back to the reference.
        for (int head_dim : {8, 12, 36, 40, 64, 72, 96, 128})
            for (int n_keys : {1, 2, 7, 33, 301, 2048})
                for (bool exact : {true, false})
                    QTest::addRow("d%d-n%d-%s", head_dim, n_keys, exact ? "exact" : "random")
                        << head_dim << n_keys << exact;
    }

    void matchesReference() {
        QFETCH(int, head_dim);
        QFETCH(int, n_keys);
        QFETCH(bool, exact);
        const Case c = make_case(head_dim, n_keys, exact, static_cast<unsigned>(head_dim * 7919 + n_keys));
        const std::vector<float> want = run(attend_f16_ref, c, head_dim, n_keys);
        const std::vector<float> got = run(avx2::attend_f16, c, head_dim, n_keys);
        for (int d = 0; d < head_dim; ++d) {
            QVERIFY2(std::isfinite(got[d]), qPrintable(QString("element %1 is not finite").arg(d)));
            QVERIFY2(got[d] == want[d],
                     qPrintable(QString("element %1: %2 != %3").arg(d).arg(got[d]).arg(want[d])));
        }
    }

    // A GQA group at once: every query bit for bit what the single-query reference gives it,
    // for every group size the kernel dispatches on (1 to 9 heads), head sizes with and without
    // a specialised path, key counts around its blocks of 8 (one block, a full block then one
    // key, two full blocks, several), and scores that are random, rise with every key (each
    // key a new maximum: a rescale per key) or come in equal pairs that fall (ties never set a
    // new maximum).
    void groupMatchesReferencePerQuery_data() {
        QTest::addColumn<int>("head_dim");
        QTest::addColumn<int>("n_queries");
        QTest::addColumn<int>("n_keys");
        QTest::addColumn<int>("pattern");
        for (int head_dim : {64, 128, 40})
            for (int n_queries = 1; n_queries <= 9; ++n_queries)
                for (int n_keys : {1, 8, 9, 16, 37})
                    for (int pattern : {0, 1, 2})
                        QTest::newRow(qPrintable(QString("d%1 q%2 k%3 %4")
                                                     .arg(head_dim)
                                                     .arg(n_queries)
                                                     .arg(n_keys)
                                                     .arg(pattern == 0   ? "random"
                                                          : pattern == 1 ? "rising"
                                                                         : "falling-ties")))
                            << head_dim << n_queries << n_keys << pattern;
    }
    void groupMatchesReferencePerQuery() {
        QFETCH(int, head_dim);
        QFETCH(int, n_queries);
        QFETCH(int, n_keys);
        QFETCH(int, pattern);
        Case c = make_case(head_dim, n_keys, false, 11u * unsigned(head_dim) + unsigned(n_queries));
        std::mt19937 rng(5);
        std::normal_distribution<float> normal(0.0f, 2.0f);
        const size_t q_stride = static_cast<size_t>(head_dim) + 8,
                     out_stride = static_cast<size_t>(head_dim) + 3;
        std::vector<float> queries(q_stride * static_cast<size_t>(n_queries));
        for (float& x : queries)
            x = pattern == 0 ? normal(rng)
                             : 1.0f + 0.25f * static_cast<float>(&x - queries.data()) / q_stride;
        if (pattern != 0) // every element of key j the same: scores proportional to the level
            for (int j = 0; j < n_keys; ++j) {
                const float level =
                    pattern == 1 ? static_cast<float>(j) / 16 : static_cast<float>(n_keys - j / 2) / 16;
                for (int d = 0; d < head_dim; ++d)
                    c.keys[c.offset + static_cast<size_t>(j) * c.stride + static_cast<size_t>(d)] =
                        fp32_to_fp16(level);
            }
        const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
        for (AttendGroupF16Fn group : {&avx2::attend_group_f16, &attend_group_f16_ref}) {
            std::vector<float> got(out_stride * static_cast<size_t>(n_queries), NAN);
            group(queries.data(), q_stride, n_queries, c.keys.data() + c.offset, c.values.data() + c.offset,
                  c.stride, n_keys, head_dim, scale, got.data(), out_stride);
            for (int i = 0; i < n_queries; ++i) {
                std::vector<float> want(static_cast<size_t>(head_dim), NAN);
                attend_f16_ref(queries.data() + static_cast<size_t>(i) * q_stride, c.keys.data() + c.offset,
                               c.values.data() + c.offset, c.stride, n_keys, head_dim, scale, want.data());
                for (int d = 0; d < head_dim; ++d)
                    QVERIFY2(std::memcmp(&got[static_cast<size_t>(i) * out_stride + static_cast<size_t>(d)],
                                         &want[static_cast<size_t>(d)], sizeof(float)) == 0,
                             qPrintable(QString("query %1, element %2").arg(i).arg(d)));
            }
        }
    }

    // The attention's vector expf against libm's expf, bit for bit: every 251st float of the 2^32
    // (all signs, magnitudes, subnormals, infinities and NaNs; an exhaustive run of all 2^32
    // matched too) and the edges of glibc's fast path.
    void expfMatchesLibmBitForBit() {
        std::vector<uint32_t> bits;
        for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 251)
            bits.push_back(static_cast<uint32_t>(b));
        for (float edge :
             {0.0f, -0.0f, 88.0f, -88.0f, std::nextafter(88.0f, 0.0f), std::nextafter(-88.0f, 0.0f),
              88.72283935546875f, -103.972084045410156f, -87.33654022216797f, INFINITY, -INFINITY}) {
            uint32_t b;
            std::memcpy(&b, &edge, sizeof b);
            bits.push_back(b);
        }
        while (bits.size() % 8 != 0)
            bits.push_back(0);
        for (size_t i = 0; i < bits.size(); i += 8) {
            alignas(32) float in[8], out[8];
            std::memcpy(in, &bits[i], sizeof in);
            avx2::expf_8(in, out);
            for (int lane = 0; lane < 8; ++lane) {
                const float want = std::exp(in[lane]);
                if (std::memcmp(&want, &out[lane], sizeof want) == 0 ||
                    (std::isnan(want) && std::isnan(out[lane])))
                    continue;
                QFAIL(qPrintable(QString("expf(%1): %2, libm %3")
                                     .arg(double(in[lane]), 0, 'a')
                                     .arg(double(out[lane]), 0, 'a')
                                     .arg(double(want), 0, 'a')));
            }
        }
    }

    // A single key: the output is that key's value exactly (weight 1, sum 1).
    void singleKeyReturnsItsValue() {
        const Case c = make_case(64, 1, false, 5);
        const std::vector<float> got = run(avx2::attend_f16, c, 64, 1);
        for (int d = 0; d < 64; ++d)
            QCOMPARE(got[d], fp16_to_fp32(c.values[c.offset + d]));
    }
};

QTEST_MAIN(TestAttentionKernels)
#include "test_attention_kernels.moc"
