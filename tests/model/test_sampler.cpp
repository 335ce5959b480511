// The sampler's filters on hand-made logits, one at a time and in the documented
// order of the chain: repetition penalty -> top-k -> top-p -> min-p -> temperature
// -> draw (greedy at temperature <= 0). Each filter also exactly at its boundary, where a
// comparison written one way or the other changes which tokens survive (probabilities exact in
// binary, so a cumulative probability lands exactly on top-p and a token's exactly on min-p's
// threshold), and NaN logits, which are never drawn.
//
// Which tokens survive a filter is read off many draws with a fixed seed: a filtered
// token is never drawn, a kept one is. The draws are deterministic, so frequencies are
// compared with their expected values at a tolerance of about six standard deviations
// (20000 draws: sd <= 0.0035) without the test ever becoming flaky.
#include "engine/sampling/sampler.h"
#include <QTest>
#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

using namespace hearth;
using engine::Sampler;
using engine::SamplingParams;

Q_DECLARE_METATYPE(std::vector<float>)

namespace {

constexpr int kDraws = 20000;
constexpr double kFrequencyTolerance = 0.02;

// Every filter off, a plain draw at temperature 1.
SamplingParams plain_params(uint64_t seed = 1) {
    SamplingParams params;
    params.temperature = 1.0f;
    params.top_k = 0;
    params.top_p = 1.0f;
    params.min_p = 0.0f;
    params.repeat_penalty = 1.0f;
    params.seed = seed;
    return params;
}

// Logits whose softmax is `probabilities` (which sum to 1).
std::vector<float> logits_of(const std::vector<double>& probabilities) {
    std::vector<float> logits;
    for (double p : probabilities)
        logits.push_back(static_cast<float>(std::log(p)));
    return logits;
}

// Probabilities 0.5, 0.3, 0.15, 0.05 placed out of order, so that no filter can pass by
// keeping a prefix of the ids: ranks 1st..4th are ids 2, 0, 3, 1.
const std::vector<double> kProbabilities = {0.3, 0.05, 0.5, 0.15};
const std::vector<int32_t> kByRank = {2, 0, 3, 1};

std::vector<double> draw_frequencies(const SamplingParams& params, const std::vector<float>& logits,
                                     const std::vector<int32_t>& recent = {}) {
    Sampler sampler(params, static_cast<int32_t>(logits.size()));
    std::vector<double> frequency(logits.size(), 0.0);
    for (int i = 0; i < kDraws; ++i) {
        const int32_t id = sampler.sample(logits, recent);
        if (id < 0 || static_cast<size_t>(id) >= logits.size()) return {}; // caught by the caller's checks
        frequency[static_cast<size_t>(id)] += 1.0 / kDraws;
    }
    return frequency;
}

std::set<int32_t> drawn_ids(const std::vector<double>& frequency) {
    std::set<int32_t> ids;
    for (size_t i = 0; i < frequency.size(); ++i)
        if (frequency[i] > 0) ids.insert(static_cast<int32_t>(i));
    return ids;
}

// The ids of the best `count` ranks of kProbabilities.
std::set<int32_t> best(int count) {
    return {kByRank.begin(), kByRank.begin() + count};
}

// Frequencies of the kept ids follow kProbabilities renormalised over them.
void verify_renormalised(const std::vector<double>& frequency, const std::set<int32_t>& kept) {
    double mass = 0;
    for (int32_t id : kept)
        mass += kProbabilities[static_cast<size_t>(id)];
    for (int32_t id : kept) {
        const double expected = kProbabilities[static_cast<size_t>(id)] / mass;
        QVERIFY2(std::abs(frequency[static_cast<size_t>(id)] - expected) < kFrequencyTolerance,
                 qPrintable(QString("id %1: drawn %2, expected %3")
                                .arg(id)
                                .arg(frequency[static_cast<size_t>(id)])
                                .arg(expected)));
    }
}

std::vector<int32_t> draws(Sampler& sampler, const std::vector<float>& logits, int count) {
    std::vector<int32_t> out;
    for (int i = 0; i < count; ++i)
        out.push_back(sampler.sample(logits, {}));
    return out;
}

} // namespace

class TestSampler : public QObject {
    Q_OBJECT

private slots:
    void greedy_takes_the_largest_logit_data() {
        QTest::addColumn<float>("temperature");
        QTest::newRow("temperature 0") << 0.0f;
        QTest::newRow("temperature -1") << -1.0f;
    }
    // At temperature <= 0 no draw happens: the seed and the filters change nothing.
    void greedy_takes_the_largest_logit() {
        QFETCH(float, temperature);
        const std::vector<float> logits = {0.5f, -2.0f, 3.25f, 3.0f, 1.0f};
        for (uint64_t seed : {1u, 2u, 99u}) {
            SamplingParams params = plain_params(seed);
            params.temperature = temperature;
            params.top_k = 3;
            params.min_p = 0.5f;
            Sampler sampler(params, 5);
            for (int i = 0; i < 20; ++i)
                QCOMPARE(sampler.sample(logits, {}), 2);
        }
        QCOMPARE(engine::argmax(logits), 2);
    }

    void greedy_breaks_ties_toward_the_lower_id() {
        SamplingParams params = plain_params();
        params.temperature = 0;
        Sampler sampler(params, 4);
        const std::vector<float> logits = {1.0f, 7.0f, 2.0f, 7.0f};
        QCOMPARE(sampler.sample(logits, {}), 1);
    }

    // Greedy and top-k take their best tokens in one pass over the logits (a heap of k); the
    // other settings sort every token. Over a vocabulary with ties, NaNs and penalised tokens the
    // two give the same tokens in the same order: the k largest logits after the penalty, ties
    // toward the lower id, a NaN never among them.
    void the_best_tokens_are_those_of_a_full_sort_data() {
        QTest::addColumn<float>("penalty");
        QTest::newRow("no penalty") << 1.0f;
        QTest::newRow("penalty 1.3") << 1.3f;
        QTest::newRow("reward 0.7") << 0.7f;
    }
    void the_best_tokens_are_those_of_a_full_sort() {
        QFETCH(float, penalty);
        constexpr int kVocab = 3000;
        std::vector<float> logits(kVocab);
        uint32_t state = 12345;
        for (int i = 0; i < kVocab; ++i) {
            state = state * 1664525u + 1013904223u;
            // Whole numbers from -8 to 7: hundreds of ties. Every 97th a NaN.
            logits[i] = i % 97 == 5 ? NAN : static_cast<float>(static_cast<int>(state >> 28) - 8);
        }
        std::vector<int32_t> recent;
        for (int i = 0; i < 300; ++i)
            recent.push_back((i * 37) % kVocab);
        for (const int k : {1, 2, 40, 1000, kVocab - 1}) {
            SamplingParams params = plain_params();
            params.repeat_penalty = penalty;
            params.repeat_last_n = 200;
            params.top_k = k;
            params.temperature = 1.0f; // top-p and min-p off (plain_params): the k are returned
            Sampler sampler(params, kVocab);
            const auto got = sampler.distribution(logits, recent);
            // The reference: every token with its penalised logit, sorted.
            std::vector<std::pair<float, int32_t>> all;
            const std::set<int32_t> window(recent.end() - 200, recent.end());
            for (int i = 0; i < kVocab; ++i) {
                float l = std::isnan(logits[i]) ? -INFINITY : logits[i];
                if (window.count(i)) l = l > 0 ? l / penalty : l * penalty;
                all.emplace_back(l, i);
            }
            std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
                return a.first > b.first || (a.first == b.first && a.second < b.second);
            });
            QCOMPARE(got.size(), size_t(k));
            for (int i = 0; i < k; ++i) {
                QCOMPARE(got[i].id, all[i].second);
                QCOMPARE(got[i].logit, all[i].first);
            }
            params.temperature = 0; // greedy: the first of them
            Sampler greedy(params, kVocab);
            QCOMPARE(greedy.sample(logits, recent), all[0].second);
        }
    }

    // With every filter off, the draw follows the softmax of the logits.
    void draw_follows_the_softmax() {
        const std::vector<double> frequency = draw_frequencies(plain_params(), logits_of(kProbabilities));
        QCOMPARE(frequency.size(), kProbabilities.size());
        verify_renormalised(frequency, best(4));
    }

    void top_k_keeps_the_k_largest_data() {
        QTest::addColumn<int>("top_k");
        QTest::addColumn<int>("kept");
        QTest::newRow("k 1") << 1 << 1;
        QTest::newRow("k 2") << 2 << 2;
        QTest::newRow("k 3") << 3 << 3;
        QTest::newRow("k = vocab") << 4 << 4;
        QTest::newRow("k > vocab") << 10 << 4;
        QTest::newRow("off (0)") << 0 << 4;
        QTest::newRow("off (-1)") << -1 << 4;
    }
    void top_k_keeps_the_k_largest() {
        QFETCH(int, top_k);
        QFETCH(int, kept);
        SamplingParams params = plain_params();
        params.top_k = top_k;
        const std::vector<double> frequency = draw_frequencies(params, logits_of(kProbabilities));
        QCOMPARE(frequency.size(), kProbabilities.size());
        QCOMPARE(drawn_ids(frequency), best(kept));
        verify_renormalised(frequency, best(kept));
    }

    // Cumulative probabilities by rank: 0.5, 0.8, 0.95, 1.0. Top-p keeps the smallest
    // set of ranks whose probabilities reach p.
    void top_p_keeps_the_smallest_set_reaching_p_data() {
        QTest::addColumn<float>("top_p");
        QTest::addColumn<int>("kept");
        QTest::newRow("p 0.3") << 0.3f << 1;
        QTest::newRow("p 0.75") << 0.75f << 2;
        QTest::newRow("p 0.85") << 0.85f << 3;
        QTest::newRow("p 0.97") << 0.97f << 4;
        QTest::newRow("p 0 keeps one") << 0.0f << 1;
        QTest::newRow("off (1)") << 1.0f << 4;
    }
    void top_p_keeps_the_smallest_set_reaching_p() {
        QFETCH(float, top_p);
        QFETCH(int, kept);
        SamplingParams params = plain_params();
        params.top_p = top_p;
        const std::vector<double> frequency = draw_frequencies(params, logits_of(kProbabilities));
        QCOMPARE(frequency.size(), kProbabilities.size());
        QCOMPARE(drawn_ids(frequency), best(kept));
        verify_renormalised(frequency, best(kept));
    }

    // Top-p at its boundary, where `reaches p` written as > instead of >= changes what is kept.
    // Four equal logits: 1/4 each, exact in binary, cumulative 1/4, 1/2, 3/4, 1 (ties ranked by
    // id), so a cumulative probability lands exactly on p. At p = 1/2 exactly the first two
    // reach it; just above 1/2, three are needed.
    void top_p_at_the_boundary_data() {
        QTest::addColumn<float>("top_p");
        QTest::addColumn<int>("kept");
        QTest::newRow("p exactly 1/4") << 0.25f << 1;
        QTest::newRow("p exactly 1/2") << 0.5f << 2;
        QTest::newRow("p exactly 3/4") << 0.75f << 3;
        QTest::newRow("p just above 1/2") << 0.5000001f << 3;
    }
    void top_p_at_the_boundary() {
        QFETCH(float, top_p);
        QFETCH(int, kept);
        SamplingParams params = plain_params();
        params.top_p = top_p;
        std::set<int32_t> expected;
        for (int32_t id = 0; id < kept; ++id)
            expected.insert(id);
        QCOMPARE(drawn_ids(draw_frequencies(params, {2.0f, 2.0f, 2.0f, 2.0f})), expected);
    }

    // Min-p keeps the tokens at least min_p times as probable as the best one (0.5).
    void min_p_keeps_tokens_near_the_best_data() {
        QTest::addColumn<float>("min_p");
        QTest::addColumn<int>("kept");
        QTest::newRow("min_p 0.9") << 0.9f << 1;
        QTest::newRow("min_p 0.5") << 0.5f << 2;   // threshold 0.25: 0.5, 0.3
        QTest::newRow("min_p 0.25") << 0.25f << 3; // threshold 0.125: 0.5, 0.3, 0.15
        QTest::newRow("min_p 0.05") << 0.05f << 4; // threshold 0.025: all
        QTest::newRow("off (0)") << 0.0f << 4;
    }
    void min_p_keeps_tokens_near_the_best() {
        QFETCH(float, min_p);
        QFETCH(int, kept);
        SamplingParams params = plain_params();
        params.min_p = min_p;
        const std::vector<double> frequency = draw_frequencies(params, logits_of(kProbabilities));
        QCOMPARE(frequency.size(), kProbabilities.size());
        QCOMPARE(drawn_ids(frequency), best(kept));
        verify_renormalised(frequency, best(kept));
    }

    // Min-p at its threshold: a token exactly min_p times as probable as the best one is kept.
    // At min_p 1 the threshold is the best token's probability: every tie is kept.
    void min_p_keeps_a_token_at_the_threshold() {
        SamplingParams params = plain_params();
        params.min_p = 1.0f;
        QCOMPARE(drawn_ids(draw_frequencies(params, {1.0f, 1.0f, 1.0f, 1.0f})),
                 (std::set<int32_t>{0, 1, 2, 3}));
        QCOMPARE(drawn_ids(draw_frequencies(params, {1.0f, 1.0f, 0.5f, 1.0f})), (std::set<int32_t>{0, 1, 3}));
    }

    // Top-k at a tie: exactly k kept, ties broken toward the lower id.
    void top_k_breaks_ties_toward_the_lower_id() {
        SamplingParams params = plain_params();
        params.top_k = 2;
        QCOMPARE(drawn_ids(draw_frequencies(params, {1.0f, 1.0f, 1.0f, 1.0f})), (std::set<int32_t>{0, 1}));
    }

    // NaN among the logits (a damaged model's): every draw, greedy or not, under every filter, is
    // a token whose logit is a number (a NaN in a sort's comparisons is undefined behaviour: with
    // libstdc++'s introsort it can put NaN first, and the softmax then draws nothing but NaN).
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
        SamplingParams params = plain_params(7);
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

    void temperature_scales_the_logits_data() {
        QTest::addColumn<float>("temperature");
        for (float t : {0.25f, 0.5f, 1.0f, 2.0f, 8.0f})
            QTest::newRow(qPrintable(QString("T %1").arg(t))) << t;
    }
    // Two tokens one logit apart: the first is drawn with probability 1 / (1 + e^(-1/T)).
    void temperature_scales_the_logits() {
        QFETCH(float, temperature);
        SamplingParams params = plain_params();
        params.temperature = temperature;
        const std::vector<double> frequency = draw_frequencies(params, {1.0f, 0.0f});
        QCOMPARE(frequency.size(), size_t{2});
        const double expected = 1.0 / (1.0 + std::exp(-1.0 / temperature));
        QVERIFY2(std::abs(frequency[0] - expected) < kFrequencyTolerance,
                 qPrintable(QString("drawn %1, expected %2").arg(frequency[0]).arg(expected)));
    }

    // Top-p and min-p judge the probabilities at temperature 1; the temperature only
    // reshapes what they kept. At T = 50 the kept tokens are drawn almost equally often,
    // and the filtered ones never (were the temperature applied first, the flattened
    // distribution would pass every token through both filters).
    void temperature_comes_after_the_filters_data() {
        QTest::addColumn<float>("top_p");
        QTest::addColumn<float>("min_p");
        QTest::addColumn<int>("top_k");
        QTest::newRow("top-p 0.75") << 0.75f << 0.0f << 0;
        QTest::newRow("min-p 0.5") << 1.0f << 0.5f << 0;
        QTest::newRow("top-k 2") << 1.0f << 0.0f << 2;
    }
    void temperature_comes_after_the_filters() {
        QFETCH(float, top_p);
        QFETCH(float, min_p);
        QFETCH(int, top_k);
        SamplingParams params = plain_params();
        params.temperature = 50.0f;
        params.top_p = top_p;
        params.min_p = min_p;
        params.top_k = top_k;
        const std::vector<double> frequency = draw_frequencies(params, logits_of(kProbabilities));
        QCOMPARE(frequency.size(), kProbabilities.size());
        QCOMPARE(drawn_ids(frequency), best(2));
        // exp(ln(0.5/0.3) / 50) = 1.0103: 0.5026 against 0.4974.
        QVERIFY(std::abs(frequency[static_cast<size_t>(kByRank[0])] - 0.5) < kFrequencyTolerance);
    }

    // Top-p sees the probabilities renormalised over the top-k: with k = 2 the best token
    // holds 0.5 / 0.8 = 0.625 >= 0.6, so top-p 0.6 keeps it alone. Over the whole
    // vocabulary (0.5 < 0.6) it would have kept two.
    void top_p_comes_after_top_k() {
        SamplingParams params = plain_params();
        params.top_k = 2;
        params.top_p = 0.6f;
        const std::vector<double> frequency = draw_frequencies(params, logits_of(kProbabilities));
        QCOMPARE(drawn_ids(frequency), best(1));

        params.top_k = 0; // the control
        QCOMPARE(drawn_ids(draw_frequencies(params, logits_of(kProbabilities))), best(2));
    }

    // The penalty divides a positive logit and multiplies a negative one.
    void repetition_penalty_pushes_repeated_tokens_down_data() {
        QTest::addColumn<std::vector<float>>("logits");
        QTest::addColumn<float>("penalty");
        QTest::addColumn<int>("expected");
        // 4 / 2 = 2 < 3: the repeated token 0 loses.
        QTest::newRow("positive logit divided") << std::vector<float>{4.0f, 3.0f} << 2.0f << 1;
        // 4 / 1.2 = 3.33 > 3: a mild penalty does not.
        QTest::newRow("mild penalty") << std::vector<float>{4.0f, 3.0f} << 1.2f << 0;
        // -1 * 2 = -2 < -1.5 (dividing would have raised it to -0.5).
        QTest::newRow("negative logit multiplied") << std::vector<float>{-1.0f, -1.5f} << 2.0f << 1;
        // A penalty below 1 favours repeats: -1.5 * 0.5 = -0.75 > -1.
        QTest::newRow("penalty below 1") << std::vector<float>{-1.5f, -1.0f} << 0.5f << 0;
        QTest::newRow("off (1)") << std::vector<float>{4.0f, 3.0f} << 1.0f << 0;
    }
    void repetition_penalty_pushes_repeated_tokens_down() {
        QFETCH(std::vector<float>, logits);
        QFETCH(float, penalty);
        QFETCH(int, expected);
        SamplingParams params = plain_params();
        params.temperature = 0;
        params.repeat_penalty = penalty;
        Sampler sampler(params, 2);
        const std::vector<int32_t> recent = {0};
        QCOMPARE(sampler.sample(logits, recent), expected);
    }

    // Only the last repeat_last_n tokens count; -1 means all of them, 0 turns the penalty off.
    void repetition_penalty_looks_at_its_window_data() {
        QTest::addColumn<int>("window");
        QTest::addColumn<int>("expected");
        QTest::newRow("token 0 outside the last 2") << 2 << 0;
        QTest::newRow("token 0 inside the last 3") << 3 << 1;
        QTest::newRow("window longer than the history") << 64 << 1;
        QTest::newRow("whole history (-1)") << -1 << 1;
        QTest::newRow("off (0)") << 0 << 0;
    }
    void repetition_penalty_looks_at_its_window() {
        QFETCH(int, window);
        QFETCH(int, expected);
        SamplingParams params = plain_params();
        params.temperature = 0;
        params.repeat_penalty = 2.0f;
        params.repeat_last_n = window;
        Sampler sampler(params, 4);
        const std::vector<float> logits = {4.0f, 3.0f, -1.0f, -1.0f};
        const std::vector<int32_t> recent = {0, 2, 3};
        QCOMPARE(sampler.sample(logits, recent), expected);
    }

    // A token repeated in the window is penalised once, not once per occurrence
    // (4 / 2 = 2 > 1.5; twice would be 1 < 1.5), and the next call starts afresh.
    void repetition_penalty_counts_a_token_once() {
        SamplingParams params = plain_params();
        params.temperature = 0;
        params.repeat_penalty = 2.0f;
        Sampler sampler(params, 3);
        const std::vector<float> logits = {4.0f, 1.5f, 0.0f};
        const std::vector<int32_t> repeated = {0, 0, 0, 2};
        QCOMPARE(sampler.sample(logits, repeated), 0);
        // The same tokens again: the same answer (nothing left marked from the last call).
        QCOMPARE(sampler.sample(logits, repeated), 0);
        // Ids outside the vocabulary in the history are ignored.
        const std::vector<int32_t> with_strangers = {-5, 0, 3, 1000};
        QCOMPARE(sampler.sample(std::vector<float>{4.0f, 3.0f, 0.0f}, with_strangers), 1);
    }

    // The penalty comes before top-k: penalised, token 0 (3.0 -> 1.5) drops out of the
    // top 1 and token 1 is always drawn. Were top-k first, only token 0 would survive it.
    void repetition_penalty_comes_before_top_k() {
        SamplingParams params = plain_params();
        params.top_k = 1;
        params.repeat_penalty = 2.0f;
        const std::vector<float> logits = {3.0f, 2.9f, 1.0f};
        QCOMPARE(drawn_ids(draw_frequencies(params, logits, {0})), (std::set<int32_t>{1}));
        QCOMPARE(drawn_ids(draw_frequencies(params, logits, {})), (std::set<int32_t>{0}));
    }

    // The same seed gives the same draws; reseeding restarts the sequence.
    void a_seed_makes_draws_deterministic() {
        const std::vector<float> logits(16, 0.0f); // uniform: every draw is a fresh choice
        Sampler first(plain_params(1234), 16);
        Sampler second(plain_params(1234), 16);
        const std::vector<int32_t> a = draws(first, logits, 500);
        QCOMPARE(draws(second, logits, 500), a);
        first.reseed(1234);
        QCOMPARE(draws(first, logits, 500), a);
        QCOMPARE(first.params().seed, uint64_t{1234});
        QVERIFY(std::set<int32_t>(a.begin(), a.end()).size() > 8); // they are real draws
    }

    // Different seeds give different sequences (500 draws of 16 tokens agreeing by
    // chance has probability 16^-500).
    void different_seeds_give_different_draws() {
        const std::vector<float> logits(16, 0.0f);
        std::set<std::vector<int32_t>> sequences;
        for (uint64_t seed = 1; seed <= 8; ++seed) {
            Sampler sampler(plain_params(seed), 16);
            sequences.insert(draws(sampler, logits, 500));
        }
        QCOMPARE(sequences.size(), size_t{8});
        Sampler reseeded(plain_params(1), 16);
        reseeded.reseed(2);
        Sampler seeded(plain_params(2), 16);
        QCOMPARE(draws(reseeded, logits, 500), draws(seeded, logits, 500));
    }
};

QTEST_GUILESS_MAIN(TestSampler)
#include "test_sampler.moc"
