// hearth-cli's image commands as external checks call them: image-embed's canvas line and
// embeddings, logits of an image prompt with --append along the greedy tokens (the prompt
// path: the appended tokens in one batch), generate's greedy tokens, and bad input.
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"
#include "tests/vision/vision_reference.h"
#include <QTest>
#include <algorithm>

using hearth::test::CliRun;
using hearth::test::run_cli;

namespace {

QString vision_file(const std::string& relative) {
    return QString::fromStdString(hearth::test::vision_data(relative));
}

QString text_model() {
    return QString::fromStdString(hearth::test::vision_text_model());
}

std::vector<double> numbers_of(const QString& line) {
    std::vector<double> values;
    for (const QString& word : line.split(' ', Qt::SkipEmptyParts))
        values.push_back(word.toDouble());
    return values;
}

} // namespace

class TestVisionCli : public QObject {
    Q_OBJECT
private slots:
    void image_embed_prints_canvas_and_embeddings() {
        const std::string file = "mmproj-tiny-gemma3-f32";
        const hearth::test::ProjectorReference reference = hearth::test::read_projector_reference(file);
        hearth::test::ErrorStats error;
        for (size_t i = 0; i < reference.images.size(); ++i) {
            const CliRun r = run_cli({"image-embed", "--mmproj", vision_file(file + ".gguf"), "--image",
                                      vision_file("images/" + reference.images[i])});
            QVERIFY2(r.status == 0, qPrintable(r.err));
            const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
            QCOMPARE(lines.size(), 1 + 4);
            QCOMPARE(lines[0],
                     "canvas " + QString::fromStdString(
                                     hearth::test::read_canvas_reference(reference.images[i]).sha256));
            std::vector<double> values;
            for (int t = 1; t < lines.size(); ++t) {
                const std::vector<double> row = numbers_of(lines[t]);
                QCOMPARE(row.size(), size_t{128});
                values.insert(values.end(), row.begin(), row.end());
            }
            QCOMPARE(values.size(), reference.embeddings[i].size());
            for (size_t v = 0; v < values.size(); ++v)
                error.add(values[v], reference.embeddings[i][v]);
        }
        hearth::test::verify_error_bar(file + " image-embed", error,
                                       hearth::test::read_projector_bars(file).embeddings);
    }

    void logits_of_image_prompts_meet_the_bar() {
        const std::string file = "mmproj-tiny-gemma3-f16";
        const hearth::test::ProjectorReference reference = hearth::test::read_projector_reference(file);
        hearth::test::ErrorStats error;
        for (const hearth::test::ImagePromptReference& run : reference.prompts) {
            const std::vector<int32_t> appended(run.greedy_tokens.begin(), run.greedy_tokens.end() - 1);
            const CliRun r =
                run_cli({"logits", "-m", text_model(), "--mmproj", vision_file(file + ".gguf"), "--image",
                         vision_file("images/" + run.image), "--prompt", QString::fromStdString(run.text),
                         "--append", hearth::test::joined(appended), "-t", "2"});
            QVERIFY2(r.status == 0, qPrintable(r.err));
            const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
            QCOMPARE(static_cast<size_t>(lines.size()), run.steps.size());
            for (size_t s = 0; s < run.steps.size(); ++s) {
                const std::vector<double> logits = numbers_of(lines[static_cast<int>(s)]);
                QCOMPARE(logits.size(), run.steps[s].logits.size());
                for (size_t v = 0; v < logits.size(); ++v)
                    error.add(logits[v], run.steps[s].logits[v]);
                const auto best = std::max_element(logits.begin(), logits.end()) - logits.begin();
                QCOMPARE(static_cast<int32_t>(best), run.greedy_tokens[s]);
            }
        }
        hearth::test::verify_error_bar(file + " logits --append", error,
                                       hearth::test::read_projector_bars(file).logits);
    }

    void generate_continues_an_image_prompt_greedily() {
        const std::string file = "mmproj-tiny-gemma3-f32";
        const hearth::test::ImagePromptReference run =
            hearth::test::read_projector_reference(file).prompts.back();
        const CliRun r =
            run_cli({"generate", "-m", text_model(), "--mmproj", vision_file(file + ".gguf"), "--image",
                     vision_file("images/" + run.image), "-p", QString::fromStdString(run.text), "-n",
                     QString::number(run.greedy_tokens.size()), "--temp", "0", "--ids"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(r.out.trimmed(), hearth::test::joined(run.greedy_tokens));
    }

    void bad_input_is_a_clear_error() {
        const QString mmproj = vision_file("mmproj-tiny-gemma3-f32.gguf");
        const CliRun missing =
            run_cli({"image-embed", "--mmproj", mmproj, "--image", "/nonexistent/picture.png"});
        QCOMPARE(missing.status, 2);
        QVERIFY2(missing.err.contains("/nonexistent/picture.png"), qPrintable(missing.err));

        const CliRun not_projector = run_cli(
            {"image-embed", "--mmproj", text_model(), "--image", vision_file("images/grad-56x56.png")});
        QCOMPARE(not_projector.status, 2);
        QVERIFY2(not_projector.err.contains(text_model() + ": not a multimodal projector"),
                 qPrintable(not_projector.err));

        const CliRun no_marker = run_cli({"logits", "-m", text_model(), "--mmproj", mmproj, "--image",
                                          vision_file("images/grad-56x56.png"), "--prompt", "no image"});
        QCOMPARE(no_marker.status, 2);
        QVERIFY2(no_marker.err.contains("<__media__>"), qPrintable(no_marker.err));
    }
};

QTEST_GUILESS_MAIN(TestVisionCli)
#include "test_vision_cli.moc"
