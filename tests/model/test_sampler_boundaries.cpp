// The sampler's filters exactly at their thresholds, where a comparison written one way or
// the other changes which tokens survive. Probabilities here are exact in binary (equal
// logits: 1/4 each), so a cumulative probability lands exactly on top-p, and a token's
// probability exactly on min-p's threshold. And NaN logits (a damaged model's), which weigh
// nothing and never reach the sorts as NaN.
#include "engine/sampling/sampler.h"
#include <QtTest>
#include <cmath>
#include <set>
#include <vector>

using namespace hearth;
using engine::Sampler;
using engine::SamplingParams;

namespace {

// Which ids 4000 draws give (a kept token of probability >= 1/4 is missed with chance < 1e-400).
std::set<int32_t> drawn(const SamplingParams& params, const std::vector<float>& logits) {
    Sampler sampler(params, static_cast<int32_t>(logits.size()));
    std::set<int32_t> ids;
    for (int i = 0; i < 4000; ++i)
        ids.insert(sampler.sample(logits, {}));
    return ids;
}

SamplingParams unfiltered() {
    SamplingParams params;
    params.temperature = 1.0f;
    params.top_k = 0;
    params.top_p = 1.0f;
    params.min_p = 0.0f;
    params.repeat_penalty = 1.0f;
    params.seed = 7;
    return params;
}

} // namespace

class TestSamplerBoundaries : public QObject {
    Q_OBJECT

private slots:
    // Four equal logits: 1/4 each, cumulative 1/4, 1/2, 3/4, 1 (ties ranked by id). Top-p keeps
    // the smallest set whose probability reaches p: at p = 1/2 exactly, the first two.
    void top_p_stops_at_the_token_that_reaches_p_data() {
        QTest::addColumn<float>("top_p");
        QTest::addColumn<int>("kept");
        QTest::newRow("p 1/4") << 0.25f << 1;
        QTest::newRow("p 1/2") << 0.5f << 2;
        QTest::newRow("p 3/4") << 0.75f << 3;
        QTest::newRow("just above 1/2") << 0.5000001f << 3;
    }
    void top_p_stops_at_the_token_that_reaches_p() {
        QFETCH(float, top_p);
        QFETCH(int, kept);
        SamplingParams params = unfiltered();
        params.top_p = top_p;
        std::set<int32_t> expected;
        for (int32_t id = 0; id < kept; ++id)
            expected.insert(id);
        QCOMPARE(drawn(params, {2.0f, 2.0f, 2.0f, 2.0f}), expected);
    }

    // Min-p keeps a token exactly as probable as min_p times the best one.
    void min_p_keeps_a_token_at_the_threshold() {
        SamplingParams params = unfiltered();
        params.min_p = 1.0f; // the threshold is the best token's probability: every tie is kept
        QCOMPARE(drawn(params, {1.0f, 1.0f, 1.0f, 1.0f}), (std::set<int32_t>{0, 1, 2, 3}));
        QCOMPARE(drawn(params, {1.0f, 1.0f, 0.5f, 1.0f}), (std::set<int32_t>{0, 1, 3}));
    }

    // Top-k keeps exactly k, ties broken toward the lower id.
    void top_k_breaks_ties_toward_the_lower_id() {
        SamplingParams params = unfiltered();
        params.top_k = 2;
        QCOMPARE(drawn(params, {1.0f, 1.0f, 1.0f, 1.0f}), (std::set<int32_t>{0, 1}));
    }

    // NaN among the logits: every draw, greedy or not, under every filter, is a token whose
    // logit is a number (a NaN in a sort's comparisons is undefined behaviour: with libstdc++'s
    // introsort it can put NaN first, and the softmax then draws nothing but NaN).
    void nan_logits_are_never_drawn_data() {
        QTest::addColumn<float>("temperature");
        QTest::addColumn<int>("top_k");
        QTest::addColumn<float>("top_p");
        QTest::addColumn<float>("min_p");
        QTest::newRow("greedy") << 0.0f << 0 << 1.0f << 0.0f;
        QTest::newRow("unfiltered") << 1.0f << 0 << 1.0f << 0.0f;
        QTest::newRow("top-k") << 1.0f << 40 << 1.0f << 0.0f;
        QTest::newRow("top-p") << 0.8f << 0 << 0.9f << 0.0f;
        QTest::newRow("min-p") << 1.0f << 0 << 1.0f << 0.05f;
    }
    void nan_logits_are_never_drawn() {
        QFETCH(float, temperature);
        QFETCH(int, top_k);
        QFETCH(float, top_p);
        QFETCH(float, min_p);
        std::vector<float> logits(1000);
        for (size_t i = 0; i < logits.size(); ++i) // every third a NaN, the rest spread out
            logits[i] = i % 3 == 0 ? NAN : static_cast<float>((i * 37) % 101) / 10.0f;
        SamplingParams params = unfiltered();
        params.temperature = temperature;
        params.top_k = top_k;
        params.top_p = top_p;
        params.min_p = min_p;
        Sampler sampler(params, static_cast<int32_t>(logits.size()));
        for (int draw = 0; draw < 500; ++draw) {
            const int32_t id = sampler.sample(logits, {});
            QVERIFY(id >= 0 && id < static_cast<int32_t>(logits.size()));
            QVERIFY2(!std::isnan(logits[static_cast<size_t>(id)]),
                     qPrintable(QString("drew NaN token %1").arg(id)));
        }
        QVERIFY(!std::isnan(logits[static_cast<size_t>(engine::argmax(logits))]));
    }
};

QTEST_GUILESS_MAIN(TestSamplerBoundaries)
#include "test_sampler_boundaries.moc"
