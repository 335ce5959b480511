// Byte-level BPE vocabularies written with the project's GGUF writer: a file
// whose pre-tokenizer is unknown or missing loads, splits with llama.cpp's
// "default" expressions and says so; Gemma 4's SentencePiece-style BPE merges
// raw UTF-8 with spaces as U+2581 and falls back to byte tokens.
#include "engine/gguf/gguf_value.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/test_support.h"
#include <QTest>

using namespace hearth;
using gguf::GgufWriter;

namespace {

// Digits and their merges: "1234" is one token, so a split before BPE shows in the ids.
void write_digit_vocab(GgufWriter& w, const char* pre) {
    w.set("general.architecture", gguf::string_value("gpt2"));
    w.set("tokenizer.ggml.model", gguf::string_value("gpt2"));
    if (pre) w.set("tokenizer.ggml.pre", gguf::string_value(pre));
    w.set("tokenizer.ggml.tokens", gguf::string_array({"1", "2", "3", "4", "12", "123", "1234", "x"}));
    w.set("tokenizer.ggml.token_type", gguf::int32_array({1, 1, 1, 1, 1, 1, 1, 1}));
    w.set("tokenizer.ggml.merges", gguf::string_array({"1 2", "12 3", "123 4"}));
}

// Gemma 4's kind: "▁" for spaces, a token for a run of two newlines, byte tokens for the rest.
void write_gemma4_vocab(GgufWriter& w) {
    w.set("general.architecture", gguf::string_value("gemma4"));
    w.set("tokenizer.ggml.model", gguf::string_value("gemma4"));
    w.set("tokenizer.ggml.tokens", gguf::string_array({"<pad>", "<bos>", "a", "\xE2\x96\x81",
                                                       "\xE2\x96\x81"
                                                       "a",
                                                       "\n", "\n\n", "<0xC3>", "<0xA9>", "b"}));
    w.set("tokenizer.ggml.token_type", gguf::int32_array({3, 3, 1, 1, 1, 1, 1, 6, 6, 1}));
    w.set("tokenizer.ggml.merges", gguf::string_array({"\xE2\x96\x81 a"}));
    w.set("tokenizer.ggml.bos_token_id", gguf::uint32_value(1));
    w.set("tokenizer.ggml.add_bos_token", gguf::bool_value(false)); // llama.cpp adds it anyway
}

std::string write_vocab(const std::function<void(GgufWriter&)>& make, const std::string& name) {
    static const std::string dir = test::make_temp_dir("hearth-pre-tokenizer-choice");
    GgufWriter writer;
    make(writer);
    const std::string path = dir + "/" + name + ".gguf";
    writer.write(path);
    return path;
}

std::unique_ptr<tokenizer::Tokenizer> load(const std::function<void(GgufWriter&)>& make,
                                           const std::string& name) {
    return tokenizer::Tokenizer::from_gguf(*gguf::GgufFile::open(write_vocab(make, name)));
}

} // namespace

class TestBpePreTokenizerChoice : public QObject {
    Q_OBJECT

private slots:
    void a_known_name_splits_its_own_way() {
        // GPT-2 keeps a digit run whole; Qwen2 splits every digit.
        const auto gpt2 = load([](GgufWriter& w) { write_digit_vocab(w, "gpt-2"); }, "gpt2");
        QCOMPARE(gpt2->encode("1234", false, false), std::vector<int32_t>({6}));
        QVERIFY(gpt2->warnings().empty());
        const auto qwen2 = load([](GgufWriter& w) { write_digit_vocab(w, "qwen2"); }, "qwen2");
        QCOMPARE(qwen2->encode("1234", false, false), std::vector<int32_t>({0, 1, 2, 3}));
    }

    void an_unknown_name_splits_as_default_with_a_warning() {
        // The default expressions cut digit runs into threes: "123" "4", not "1234".
        const auto tok = load([](GgufWriter& w) { write_digit_vocab(w, "no-such-pre"); }, "unknown");
        QCOMPARE(tok->encode("1234", false, false), std::vector<int32_t>({5, 3}));
        QCOMPARE(tok->encode("x1234x", false, false), std::vector<int32_t>({7, 5, 3, 7}));
        QCOMPARE(tok->warnings().size(), size_t{1});
        QVERIFY2(tok->warnings()[0].find("unknown pre-tokenizer 'no-such-pre'") != std::string::npos,
                 tok->warnings()[0].c_str());
        QCOMPARE(tok->decode(tok->encode("x1234x", false, false)), std::string("x1234x"));
    }

    void the_warning_is_read_without_building_the_vocabulary() {
        const auto unknown = gguf::GgufFile::open(
            write_vocab([](GgufWriter& w) { write_digit_vocab(w, "no-such-pre"); }, "w1"));
        QCOMPARE(tokenizer::pre_tokenizer_warnings(*unknown),
                 tokenizer::Tokenizer::from_gguf(*unknown)->warnings());
        QCOMPARE(tokenizer::pre_tokenizer_warnings(*unknown).size(), size_t{1});
        const auto known =
            gguf::GgufFile::open(write_vocab([](GgufWriter& w) { write_digit_vocab(w, "qwen2"); }, "w2"));
        QVERIFY(tokenizer::pre_tokenizer_warnings(*known).empty());
        const auto gemma4 = gguf::GgufFile::open(write_vocab(write_gemma4_vocab, "w3"));
        QVERIFY(tokenizer::pre_tokenizer_warnings(*gemma4).empty());
        // SentencePiece vocabularies have no pre-tokenizer to warn about.
        const auto spm = gguf::GgufFile::open(test::testdata("vocab/ggml-vocab-llama-spm.gguf"));
        QVERIFY(tokenizer::pre_tokenizer_warnings(*spm).empty());
    }

    void a_missing_name_splits_as_default_with_a_warning() {
        const auto tok = load([](GgufWriter& w) { write_digit_vocab(w, nullptr); }, "missing");
        QCOMPARE(tok->encode("1234", false, false), std::vector<int32_t>({5, 3}));
        QCOMPARE(tok->warnings().size(), size_t{1});
        QVERIFY(tok->warnings()[0].find("tokenizer.ggml.pre") != std::string::npos);
    }

    void gemma4_merges_raw_text_with_escaped_spaces() {
        const auto tok = load(write_gemma4_vocab, "gemma4");
        QVERIFY(tok->warnings().empty());
        QVERIFY(tok->add_bos_by_default());
        QCOMPARE(tok->encode("a", true, false), std::vector<int32_t>({1, 2}));
        // "a a" -> "a▁a" -> "a" "▁a"; "\n\n" whole; "é" as its two byte tokens.
        const std::vector<int32_t> ids = tok->encode("a a\n\n\xC3\xA9"
                                                     "b",
                                                     false, false);
        QCOMPARE(ids, std::vector<int32_t>({2, 4, 6, 7, 8, 9}));
        QCOMPARE(tok->decode(ids), std::string("a a\n\n\xC3\xA9"
                                               "b"));
        QCOMPARE(tok->token_to_piece(4), std::string(" a"));
        // Three newlines: not a token as a whole, so merged (no merges apply) one by one.
        QCOMPARE(tok->encode("\n\n\n", false, false), std::vector<int32_t>({5, 5, 5}));
        // A byte with no token of its own is dropped, as llama.cpp drops it.
        QCOMPARE(tok->encode("ac", false, false), std::vector<int32_t>({2}));
    }
};

QTEST_MAIN(TestBpePreTokenizerChoice)
#include "test_bpe_pre_tokenizer_choice.moc"
