// Vocabularies that are missing parts or malformed must fail with a message
// that names the file and the problem; odd but usable ones load with a warning.
#include "engine/error.h"
#include "engine/gguf/gguf_value.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <functional>

using namespace hearth;
using gguf::GgufWriter;

namespace {

// A tiny byte-level BPE vocabulary: "a", "b", "ab", "Ġ" (space) and "Ġab".
void write_bpe_vocab(GgufWriter& w) {
    w.set("general.architecture", gguf::string_value("gpt2"));
    w.set("tokenizer.ggml.model", gguf::string_value("gpt2"));
    w.set("tokenizer.ggml.pre", gguf::string_value("gpt-2"));
    w.set("tokenizer.ggml.tokens", gguf::string_array({"a", "b", "ab", "\xC4\xA0",
                                                       "\xC4\xA0"
                                                       "ab",
                                                       "<|endoftext|>"}));
    w.set("tokenizer.ggml.token_type", gguf::int32_array({1, 1, 1, 1, 1, 3}));
    w.set("tokenizer.ggml.merges", gguf::string_array({"a b", "\xC4\xA0 ab"}));
    w.set("tokenizer.ggml.eos_token_id", gguf::uint32_value(5));
}

// A tiny SentencePiece vocabulary with byte fallback for "\n".
void write_spm_vocab(GgufWriter& w) {
    w.set("general.architecture", gguf::string_value("llama"));
    w.set("tokenizer.ggml.model", gguf::string_value("llama"));
    w.set("tokenizer.ggml.tokens", gguf::string_array({"<unk>", "<s>", "</s>", "<0x0A>", "\xE2\x96\x81", "a",
                                                       "\xE2\x96\x81"
                                                       "a"}));
    w.set("tokenizer.ggml.scores", gguf::float32_array({0, 0, 0, 0, -2, -1, -1}));
    w.set("tokenizer.ggml.token_type", gguf::int32_array({2, 3, 3, 6, 1, 1, 1}));
}

struct Case {
    const char* name;
    std::function<void(GgufWriter&)> make;
    const char* message; // a part of the expected error message
};

const std::vector<Case>& error_cases() {
    static const std::vector<Case> cases = {
        {"no tokenizer at all",
         [](GgufWriter& w) { w.set("general.architecture", gguf::string_value("llama")); },
         "tokenizer.ggml.model"},
        {"unsupported model",
         [](GgufWriter& w) { write_spm_vocab(w), w.set("tokenizer.ggml.model", gguf::string_value("bert")); },
         "'bert' is not supported"},
        {"missing tokens", [](GgufWriter& w) { write_spm_vocab(w), w.remove("tokenizer.ggml.tokens"); },
         "no tokenizer.ggml.tokens"},
        {"tokens not strings",
         [](GgufWriter& w) {
             write_spm_vocab(w), w.set("tokenizer.ggml.tokens", gguf::int32_array({1, 2}));
         },
         "tokenizer.ggml.tokens holds"},
        {"model key not a string",
         [](GgufWriter& w) { write_spm_vocab(w), w.set("tokenizer.ggml.model", gguf::uint32_value(1)); },
         "tokenizer.ggml.model"},
        {"too few scores",
         [](GgufWriter& w) {
             write_spm_vocab(w), w.set("tokenizer.ggml.scores", gguf::float32_array({0, 0}));
         },
         "tokenizer.ggml.scores has 2 entries for 7 tokens"},
        {"too few token types",
         [](GgufWriter& w) {
             write_spm_vocab(w), w.set("tokenizer.ggml.token_type", gguf::int32_array({1}));
         },
         "tokenizer.ggml.token_type has 1 entries"},
        {"bad token type",
         [](GgufWriter& w) {
             write_spm_vocab(w), w.set("tokenizer.ggml.token_type", gguf::int32_array({2, 3, 3, 6, 1, 9, 1}));
         },
         "tokenizer.ggml.token_type[5]"},
        {"duplicate token",
         [](GgufWriter& w) {
             write_spm_vocab(w), w.set("tokenizer.ggml.tokens",
                                       gguf::string_array({"<unk>", "<s>", "</s>", "<0x0A>", "a", "a", "b"}));
         },
         "token 5 'a' repeats token 4"},
        {"missing merges", [](GgufWriter& w) { write_bpe_vocab(w), w.remove("tokenizer.ggml.merges"); },
         "no tokenizer.ggml.merges"},
        {"merge without a space",
         [](GgufWriter& w) {
             write_bpe_vocab(w), w.set("tokenizer.ggml.merges", gguf::string_array({"a b", "ab"}));
         },
         "tokenizer.ggml.merges[1] 'ab' is not two tokens"},
        {"merge with an empty side",
         [](GgufWriter& w) {
             write_bpe_vocab(w), w.set("tokenizer.ggml.merges", gguf::string_array({"a "}));
         },
         "tokenizer.ggml.merges[0]"},
        {"merge of an unknown token",
         [](GgufWriter& w) {
             write_bpe_vocab(w), w.set("tokenizer.ggml.merges", gguf::string_array({"a b", "a zz"}));
         },
         "'zz', which is not a token"},
        {"merge into an unknown token",
         [](GgufWriter& w) {
             write_bpe_vocab(w), w.set("tokenizer.ggml.merges", gguf::string_array({"b a"}));
         },
         "tokenizer.ggml.merges[0] 'b a' makes a text that is not a token"},
    };
    return cases;
}

std::string write_vocab(const std::function<void(GgufWriter&)>& make, const std::string& name) {
    static const std::string dir = test::make_temp_dir("hearth-tokenizer-errors");
    GgufWriter writer;
    make(writer);
    const std::string path = dir + "/" + name + ".gguf";
    writer.write(path);
    return path;
}

std::unique_ptr<tokenizer::Tokenizer> load(const std::string& path) {
    return tokenizer::Tokenizer::from_gguf(*gguf::GgufFile::open(path));
}

} // namespace

class TestTokenizerErrors : public QObject {
    Q_OBJECT

private slots:
    void bad_vocabularies_fail_clearly_data() {
        QTest::addColumn<int>("index");
        for (size_t i = 0; i < error_cases().size(); ++i)
            QTest::newRow(error_cases()[i].name) << static_cast<int>(i);
    }
    void bad_vocabularies_fail_clearly() {
        QFETCH(int, index);
        const Case& c = error_cases()[index];
        const std::string path = write_vocab(c.make, "case" + std::to_string(index));
        try {
            load(path);
            QFAIL("loading succeeded");
        } catch (const Error& e) {
            const std::string message = e.what();
            QVERIFY2(message.starts_with(path + ": "), message.c_str());
            QVERIFY2(message.find(c.message) != std::string::npos, message.c_str());
        }
    }

    void the_good_vocabularies_load() {
        // The fixtures the error cases start from are themselves valid and behave.
        const auto bpe = load(write_vocab(write_bpe_vocab, "good-bpe"));
        QCOMPARE(bpe->encode("a ab", false, false), std::vector<int32_t>({0, 4}));
        QCOMPARE(bpe->encode("ba", false, false), std::vector<int32_t>({1, 0}));
        QCOMPARE(bpe->eos_id(), 5);
        QVERIFY(bpe->warnings().empty());

        const auto spm = load(write_vocab(write_spm_vocab, "good-spm"));
        QCOMPARE(spm->encode("a\n", true, false), std::vector<int32_t>({1, 6, 3}));
        QCOMPARE(spm->decode(spm->encode("a a\n", true, false)), std::string("a a\n"));
    }

    void unknown_pre_tokenizer_loads_with_a_warning() {
        const auto tok = load(write_vocab(
            [](GgufWriter& w) {
                write_bpe_vocab(w), w.set("tokenizer.ggml.pre", gguf::string_value("no-such-pre"));
            },
            "unknown-pre"));
        QCOMPARE(tok->warnings().size(), size_t{1});
        QVERIFY(tok->warnings()[0].find("no-such-pre") != std::string::npos);
        QCOMPARE(tok->encode("a ab", false, false), std::vector<int32_t>({0, 4}));
    }

    void out_of_range_special_ids_are_ignored_with_a_warning() {
        const auto tok = load(write_vocab(
            [](GgufWriter& w) {
                write_spm_vocab(w), w.set("tokenizer.ggml.bos_token_id", gguf::uint32_value(4000));
            },
            "bad-bos"));
        QCOMPARE(tok->bos_id(), 1); // llama.cpp's default for SentencePiece
        QCOMPARE(tok->warnings().size(), size_t{1});
        QVERIFY(tok->warnings()[0].find("bos_token_id") != std::string::npos);
    }
};

QTEST_MAIN(TestTokenizerErrors)
#include "test_tokenizer_errors.moc"
