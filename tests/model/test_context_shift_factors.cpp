// Context shift on models whose RoPE frequencies carry per-pair factors: Llama 3's rope_freqs
// (which slow the low-frequency pairs) and LongRoPE's short and long factors (tiny-phi3 given
// them: the test data has no LongRoPE model), the long ones once the cache is longer than the
// original context. A shift of many positions turns every pair by a large angle, so a turn
// made with the wrong factors (or none), or with the attention factor, leaves layer 0's keys
// far from the keys computed at their new positions, even in the slow pairs that a short
// shift hardly moves. Layer 0's keys depend only on the token and its position, so after the
// shift they must equal a fresh run's up to F16 rounding.
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "kernels/fp16.h"
#include "tests/model/longrope_model.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <algorithm>
#include <cmath>

using namespace hearth;

namespace {

// Largest |a - b| over layer 0's keys at positions [begin, end), and the largest |b|.
std::pair<float, float> key_error(const engine::KvCache& a, const engine::KvCache& b, int32_t begin,
                                  int32_t end) {
    std::vector<float> row_a(static_cast<size_t>(a.kv_width())), row_b(row_a.size());
    float error = 0, scale = 0;
    for (int32_t pos = begin; pos < end; ++pos) {
        a.read_row_f32(engine::KvCache::Part::Keys, 0, pos, row_a.data());
        b.read_row_f32(engine::KvCache::Part::Keys, 0, pos, row_b.data());
        for (size_t i = 0; i < row_a.size(); ++i) {
            error = std::max(error, std::fabs(row_a[i] - row_b[i]));
            scale = std::max(scale, std::fabs(row_b[i]));
        }
    }
    return {error, scale};
}

} // namespace

class TestContextShiftFactors : public QObject {
    Q_OBJECT

private slots:
    void long_shift_turns_keys_with_the_models_factors_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("originalContext"); // LongRoPE's; 0 for Llama 3
        QTest::newRow("llama3 rope_freqs") << "tiny-llama3" << 0;
        QTest::newRow("LongRoPE short factors") << "longrope" << 1024; // the cache is shorter
        QTest::newRow("LongRoPE long factors") << "longrope" << 256;   // the cache is longer
    }
    void long_shift_turns_keys_with_the_models_factors() {
        QFETCH(QString, model);
        QFETCH(int, originalContext);
        std::string path = test::testdata("models/" + model.toStdString() + ".gguf");
        if (originalContext > 0) {
            // Factors unlike each other and unlike 1 in every pair, and an attention factor that
            // a pure turn must leave out.
            const int32_t pairs =
                engine::read_hyperparams(*gguf::GgufFile::open(test::testdata("models/tiny-phi3.gguf")))
                    .rope_dim /
                2;
            std::vector<float> short_factors, long_factors;
            for (int32_t i = 0; i < pairs; ++i) {
                short_factors.push_back(1.5f + 0.25f * static_cast<float>(i));
                long_factors.push_back(3.0f + 0.5f * static_cast<float>(i));
            }
            path = test::make_temp_dir("hearth-longrope") + "/longrope.gguf";
            test::write_longrope_phi3(path, short_factors, long_factors, originalContext, 1.2f);
        }
        const auto loaded = engine::Model::load(path);
        const engine::ModelWeights& w = loaded->weights();
        QVERIFY(!w.rope_freq_factors.empty() || !w.rope_factors_long.empty());
        engine::Inference inference(loaded, engine::InferenceOptions{2, 64});

        const int32_t n_keep = 4, n_discard = 600, n_tail = 24, n = n_keep + n_discard + n_tail;
        const int32_t capacity = n;
        std::vector<int32_t> tokens(static_cast<size_t>(n)); // any ids past the first few will do
        for (int32_t i = 0; i < n; ++i)
            tokens[static_cast<size_t>(i)] = 3 + (i * 7919) % (inference.n_vocab() - 3);
        auto shifted = inference.new_cache(capacity);
        inference.eval(*shifted, tokens);
        auto unrotated = inference.new_cache(capacity);
        inference.eval(*unrotated, tokens);
        inference.shift_context(*shifted, n_keep, n_discard);
        unrotated->discard(n_keep, n_discard); // the control: moved, not turned

        std::vector<int32_t> kept(tokens.begin(), tokens.begin() + n_keep);
        kept.insert(kept.end(), tokens.end() - n_tail, tokens.end());
        auto fresh = inference.new_cache(capacity);
        inference.eval(*fresh, kept);

        const auto [error, scale] = key_error(*shifted, *fresh, n_keep, n_keep + n_tail);
        const float control = key_error(*unrotated, *fresh, n_keep, n_keep + n_tail).first;
        qInfo("layer 0 keys after a %d-position shift: max |key| %.3g, error %.3g, unturned %.3g", n_discard,
              scale, error, control);
        // Two F16 roundings (2^-11 each) and float angles at ~600 positions: 2e-3 of the largest key.
        QVERIFY2(error <= 2e-3f * scale, "keys turned by a long shift differ from keys computed there");
        QVERIFY(control > 10 * error);
    }
};

QTEST_GUILESS_MAIN(TestContextShiftFactors)
#include "test_context_shift_factors.moc"
