// Partial rotary embeddings: a model whose rope.dimension_count is below its head size
// (partial_rope_model.h: tiny-phi3 rotating 24 of its 32 dimensions per head, as Phi-4-mini
// rotates 96 of 128) against exact math and against llama.cpp. No file of the test data rotates
// less than a whole head, so without this model the engine could take the rotation's
// frequencies from the head size instead of the rotated dimensions, or rotate the wrong
// dimensions, and pass every other suite.
//
// The exact logits come from a float64 forward pass written in the test (exact_phi3_forward.h),
// which reproduces the test data's NumPy reference on tiny-phi3 itself. llama.cpp's greedy run
// on the same file (data/tiny-phi3-partial-rope.golden.json, its top-5 logits at every step;
// data/README.md says how it was made) gives the bar: the engine's logits must meet the test
// data's rule for an engine against the exact ones (RMS at most 1.1x llama.cpp's error, maximum
// at most 1.5x) on every tier, in one pass and token by token. And the engine rotating the whole
// head (tiny-phi3 itself) misses the rule by far, so the rule tells the two apart.
#include "engine/forward/inference.h"
#include "engine/gguf/gguf_file.h"
#include "engine/model/model.h"
#include "kernels/kernel_table.h"
#include "tests/model/exact_phi3_forward.h"
#include "tests/model/partial_rope_model.h"
#include "tests/support/reference_logits.h"
#include "tests/support/reference_rule.h"
#include "tests/support/test_support.h"
#include <QCryptographicHash>
#include <QTest>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

using namespace hearth;
using test::Evaluation;
using test::tier_name;
using test::tier_of;

namespace {

// The engine rotating the whole head is at least this many times llama.cpp's RMS error away
// from the partial rotation's exact logits.
constexpr double kWholeHeadRmsRatio = 10.0;
// llama.cpp's error against the exact forward here, at most this many times its error against
// the NumPy reference on tiny-phi3 (the same weights, rotated in full): the forward pass is
// exact math, as that reference is.
constexpr double kLlamaCppErrorRatio = 2.0;

std::string sha256_of_file(const std::string& path) {
    const std::string bytes = test::read_file(path);
    return QCryptographicHash::hash(QByteArray::fromRawData(bytes.data(), qsizetype(bytes.size())),
                                    QCryptographicHash::Sha256)
        .toHex()
        .toStdString();
}

// Every exact logit of every step of the lines: the teacher-forced sequence in one pass.
void fill_exact(const test::ExactPhi3Forward& forward, std::vector<test::ReferenceLine>& lines) {
    const size_t n_vocab = static_cast<size_t>(forward.n_vocab());
    for (test::ReferenceLine& line : lines) {
        const std::vector<double> logits = forward.logits(line.teacher_forced_sequence());
        for (size_t s = 0; s < line.steps.size(); ++s) {
            const size_t row = line.first_predicting_row() + s;
            for (size_t id = 0; id < n_vocab; ++id)
                line.steps[s].exact[static_cast<int32_t>(id)] = logits[row * n_vocab + id];
        }
    }
}

// llama.cpp's top-5 logits against the exact ones.
test::LlamaCppError llama_cpp_error_of(const std::vector<test::ReferenceLine>& lines) {
    test::TopFiveError error;
    for (const test::ReferenceLine& line : lines)
        for (const test::ReferenceStep& step : line.steps) {
            const auto golden = [&](int32_t id) {
                for (const auto& [golden_id, logit] : step.golden_top5)
                    if (golden_id == id) return static_cast<double>(logit);
                return double(NAN);
            };
            error.add_step(step, golden);
        }
    return {error.rms(), error.max_abs(), error.steps()};
}

} // namespace

class TestPartialRope : public QObject {
    Q_OBJECT

    std::string model_path_;
    std::vector<test::ReferenceLine> lines_; // llama.cpp's steps, with the exact logits
    test::LlamaCppError llama_cpp_;

private slots:
    // The model is written where llama.cpp can be run on the very file (build/test-artifacts);
    // the golden data holds the SHA-256 of the file it was made from.
    void initTestCase() {
        model_path_ = test::artifact_dir() + "/tiny-phi3-partial-rope.gguf";
        test::write_partial_rope_phi3(model_path_);
        QVERIFY2(std::filesystem::exists(HEARTH_PARTIAL_ROPE_GOLDEN),
                 HEARTH_PARTIAL_ROPE_GOLDEN " is missing");
        const nlohmann::json golden = nlohmann::json::parse(test::read_file(HEARTH_PARTIAL_ROPE_GOLDEN));
        QVERIFY2(golden.at("model_sha256").get<std::string>() == sha256_of_file(model_path_),
                 qPrintable(QString("%1 is not the file %2 was made from: run llama.cpp on it again "
                                    "(tests/model/data/README.md)")
                                .arg(QString::fromStdString(model_path_), HEARTH_PARTIAL_ROPE_GOLDEN)));
        for (size_t l = 0; l < golden.at("lines").size(); ++l)
            lines_.push_back(
                test::golden_line(golden.at("lines")[l], std::string(HEARTH_PARTIAL_ROPE_GOLDEN) + " line " +
                                                             std::to_string(l + 1)));
        QVERIFY(!lines_.empty());
        const auto file = gguf::GgufFile::open(model_path_);
        const test::ExactPhi3Forward forward(*file);
        QCOMPARE(forward.rope_dim(), int64_t{test::kPartialRopeDims});
        QVERIFY(forward.rope_dim() < forward.head_dim());
        fill_exact(forward, lines_);
        llama_cpp_ = llama_cpp_error_of(lines_);
        qInfo("llama.cpp against the exact forward: RMS %.3g, max %.3g over %d steps", llama_cpp_.rms,
              llama_cpp_.max_abs, llama_cpp_.steps);
    }

    // The engine reads the partial rotation from the file.
    void the_engine_rotates_part_of_each_head() {
        const auto model = engine::Model::load(model_path_);
        QCOMPARE(model->hparams().rope_dim, int32_t(test::kPartialRopeDims));
        QCOMPARE(model->hparams().head_dim, 32);
        QVERIFY(model->hparams().rope_neox);
    }

    // The float64 forward pass is exact math: on tiny-phi3 (the same weights, the whole head
    // rotated) it gives the test data's NumPy reference, to the 6 significant digits it is
    // written with.
    void exact_forward_reproduces_the_reference_of_tiny_phi3() {
        const auto file = gguf::GgufFile::open(test::testdata("models/tiny-phi3.gguf"));
        const test::ExactPhi3Forward forward(*file);
        QCOMPARE(forward.rope_dim(), forward.head_dim());
        const size_t n_vocab = static_cast<size_t>(forward.n_vocab());
        double worst = 0;
        size_t compared = 0;
        for (const test::ReferenceLine& line : test::read_reference("tiny-phi3")) {
            const std::vector<double> logits = forward.logits(line.teacher_forced_sequence());
            for (size_t s = 0; s < line.steps.size(); ++s) {
                const size_t row = line.first_predicting_row() + s;
                for (const auto& [id, exact] : line.steps[s].exact) {
                    const double ours = logits[row * n_vocab + static_cast<size_t>(id)];
                    worst = std::max(worst, std::abs(ours - exact) / std::max(1.0, std::abs(exact)));
                    ++compared;
                }
            }
        }
        qInfo("%zu exact logits, largest difference %.3g (relative above 1)", compared, worst);
        QVERIFY(compared > 1000);
        QVERIFY2(worst < 1e-5,
                 qPrintable(QString("the forward pass is %1 away from the reference").arg(worst)));
    }

    // llama.cpp, run on the same file, is as close to the exact forward as it is to the NumPy
    // reference on tiny-phi3: the two agree on what the file means (which dimensions turn, and
    // how fast), to llama.cpp's rounding.
    void llama_cpp_agrees_with_the_exact_forward() {
        const test::LlamaCppError on_whole_head = test::llama_cpp_error("tiny-phi3");
        QCOMPARE(llama_cpp_.steps, on_whole_head.steps);
        QVERIFY2(llama_cpp_.rms <= kLlamaCppErrorRatio * on_whole_head.rms,
                 qPrintable(QString("RMS %1, on tiny-phi3 %2").arg(llama_cpp_.rms).arg(on_whole_head.rms)));
        QVERIFY2(llama_cpp_.max_abs <= kLlamaCppErrorRatio * on_whole_head.max_abs,
                 qPrintable(
                     QString("max %1, on tiny-phi3 %2").arg(llama_cpp_.max_abs).arg(on_whole_head.max_abs)));
    }

    // The rule for an engine, on every tier, in one pass and one token at a time.
    void logits_meet_the_reference_rule_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("isa");
        QTest::addColumn<int>("evaluation"); // 0 one pass, 1 token by token
        test::add_tier_rows("tiny-phi3-partial-rope", 0);
        test::add_tier_rows("tiny-phi3-partial-rope", 1);
    }
    void logits_meet_the_reference_rule() {
        QFETCH(int, isa);
        QFETCH(int, evaluation);
        if (!kernels::kernels_for(tier_of(isa))) QSKIP(kernels::isa_unavailable_reason(tier_of(isa)).c_str());
        kernels::force_isa(tier_of(isa)); // before the load: a tier may lay weights out its own way
        const auto model = engine::Model::load(model_path_);
        const bool by_token = evaluation == 1;
        test::verify_reference_rule(
            "tiny-phi3-partial-rope", tier_name(isa) + (by_token ? " token by token" : ""), lines_,
            test::measure_reference(model, lines_, by_token ? Evaluation::TokenByToken : Evaluation::OnePass),
            llama_cpp_);
    }

    // The engine rotating the whole head (tiny-phi3, the same weights) misses the partial
    // rotation's exact logits by far: the rule above proves the partial rotation is done.
    void rotating_the_whole_head_misses_the_rule() {
        kernels::force_isa(tier_of(test::best_tier()));
        const auto whole_head = engine::Model::load(test::testdata("models/tiny-phi3.gguf"));
        const test::Measured measured = test::measure_reference(whole_head, lines_, Evaluation::OnePass);
        const double ratio = measured.error.rms() / llama_cpp_.rms;
        qInfo("whole head rotated: RMS %.3g, %.0fx llama.cpp's %.3g", measured.error.rms(), ratio,
              llama_cpp_.rms);
        QVERIFY2(ratio > kWholeHeadRmsRatio,
                 qPrintable(
                     QString("rotating the whole head gives an RMS error only %1x llama.cpp's").arg(ratio)));
    }
};

QTEST_GUILESS_MAIN(TestPartialRope)
#include "test_partial_rope.moc"
