// The prompts of llama.cpp's golden runs (testdata/golden/*.greedy.jsonl) must
// tokenize to the same ids, with BOS where the model adds it by default, and
// every generated token must decode to the piece llama.cpp printed for it.
// The golden prompts are plain English, so the same tokenizers (stories260K's 512-token
// SentencePiece with byte fallback, Llama 2's, GPT-2's BPE) are also held to llama.cpp on their
// boundary cases (data/golden-model-boundaries.json): empty text, lone and repeated spaces,
// leading and trailing spaces, newlines, tabs, CR LF, no-break space, accents, CJK and emoji
// (byte fallback), digits, "<s>" as text, casing and contractions; each piece byte for byte.
#include "tests/tokenizer/tokenizer_test_data.h"
#include <QTest>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace hearth;
using test::ids_string;

namespace {

std::vector<nlohmann::json> read_golden(const std::string& stem) {
    std::ifstream in(test::testdata("golden/" + stem + ".greedy.jsonl"));
    std::vector<nlohmann::json> runs;
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) runs.push_back(nlohmann::json::parse(line));
    return runs;
}

// llama.cpp's tokenization of boundary texts, per model file.
const nlohmann::json& boundary_cases() {
    static const nlohmann::json cases =
        nlohmann::json::parse(test::read_file(HEARTH_TOKENIZER_BOUNDARIES))["models"];
    return cases;
}

// A row name that shows the text's control characters.
std::string visible(const std::string& text) {
    std::string shown;
    for (const char c : text)
        shown += c == '\n'   ? std::string("\\n")
                 : c == '\t' ? std::string("\\t")
                 : c == '\r' ? std::string("\\r")
                             : std::string(1, c);
    return shown;
}

} // namespace

class TestTokenizerGolden : public QObject {
    Q_OBJECT

private:
    void add_rows() {
        QTest::addColumn<QString>("stem");
        QTest::addColumn<int>("run");
        std::vector<std::string> stems;
        for (const auto& entry : std::filesystem::directory_iterator(test::testdata("golden"))) {
            const std::string name = entry.path().filename().string();
            const std::string suffix = ".greedy.jsonl";
            if (name.size() > suffix.size() && name.ends_with(suffix))
                stems.push_back(name.substr(0, name.size() - suffix.size()));
        }
        std::sort(stems.begin(), stems.end());
        QVERIFY(stems.size() >= 5);
        for (const std::string& stem : stems) {
            const size_t runs = read_golden(stem).size();
            QVERIFY2(runs > 0, stem.c_str());
            for (size_t i = 0; i < runs; ++i)
                QTest::addRow("%s/%zu", stem.c_str(), i)
                    << QString::fromStdString(stem) << static_cast<int>(i);
        }
    }
    static const tokenizer::Tokenizer& model_tokenizer(const QString& stem) {
        return test::cached_tokenizer(test::testdata("models/" + stem.toStdString() + ".gguf"));
    }

private slots:
    void prompt_tokens_match_data() { add_rows(); }
    void prompt_tokens_match() {
        QFETCH(QString, stem);
        QFETCH(int, run);
        const nlohmann::json golden = read_golden(stem.toStdString()).at(run);
        const auto& tok = model_tokenizer(stem);
        const auto expected = golden.at("prompt_tokens").get<std::vector<int32_t>>();
        const auto ids = tok.encode(golden.at("prompt").get<std::string>(), tok.add_bos_by_default(), false);
        QCOMPARE(ids_string(ids), ids_string(expected));
        // GPT-2 has no BOS by default; every SentencePiece model here has one.
        QCOMPARE(tok.add_bos_by_default(), !stem.startsWith("tiny-gpt2"));
    }

    void boundary_texts_match_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("index");
        for (const auto& [model, cases] : boundary_cases().items())
            for (size_t i = 0; i < cases.size(); ++i)
                QTest::addRow("%s/\"%s\"", model.c_str(),
                              visible(cases[i]["text"].get<std::string>()).c_str())
                    << QString::fromStdString(model) << static_cast<int>(i);
    }
    // The ids llama.cpp gives (BOS as the model adds it, special tokens not parsed), and each
    // id's piece as llama.cpp prints it, control tokens shown, byte for byte (a byte-fallback
    // token's piece is one byte of a character).
    void boundary_texts_match() {
        QFETCH(QString, model);
        QFETCH(int, index);
        const nlohmann::json& expected =
            boundary_cases().at(model.toStdString()).at(static_cast<size_t>(index));
        const auto& tok = model_tokenizer(model);
        const auto ids = tok.encode(expected.at("text").get<std::string>(), tok.add_bos_by_default(), false);
        QCOMPARE(ids_string(ids), ids_string(expected.at("ids").get<std::vector<int32_t>>()));
        const auto pieces = expected.at("pieces_hex").get<std::vector<std::string>>();
        QCOMPARE(pieces.size(), ids.size());
        for (size_t i = 0; i < ids.size(); ++i)
            QCOMPARE(QByteArray::fromStdString(tok.token_to_piece(ids[i], true)).toHex(),
                     QByteArray::fromStdString(pieces[i]));
    }

    void generated_pieces_match_data() { add_rows(); }
    void generated_pieces_match() {
        QFETCH(QString, stem);
        QFETCH(int, run);
        const nlohmann::json golden = read_golden(stem.toStdString()).at(run);
        const auto& tok = model_tokenizer(stem);
        const auto& steps = golden.at("steps");
        QVERIFY(!steps.empty());
        for (size_t i = 0; i < steps.size(); ++i) {
            const int32_t id = steps[i].at("token").get<int32_t>();
            // The golden pieces show control tokens ("</s>"), and the golden writer replaced a
            // lone byte of a UTF-8 character with U+FFFD, as fromUtf8 does.
            const QString piece = QString::fromUtf8(QByteArray::fromStdString(tok.token_to_piece(id, true)));
            QCOMPARE(piece, QString::fromStdString(steps[i].at("piece").get<std::string>()));
            // llama.cpp stops at the first end-of-generation token, so only the last step can be one.
            if (i + 1 < steps.size()) QVERIFY2(!tok.is_end_of_generation(id), std::to_string(id).c_str());
        }
    }
};

QTEST_MAIN(TestTokenizerGolden)
#include "test_tokenizer_golden.moc"
