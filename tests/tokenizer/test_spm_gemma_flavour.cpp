// SentencePiece the way Gemma's files ask for it: llama.cpp's converters write
// tokenizer.ggml.add_space_prefix = false for Gemma, so no "▁" goes before the
// first word and decoding keeps a leading space; characters the vocabulary
// lacks fall back to <0xAB> byte tokens. Checked on the Llama 2 vocabulary with
// only that key changed.
#include "engine/gguf/gguf_value.h"
#include "engine/gguf/gguf_writer.h"
#include "tests/tokenizer/tokenizer_test_data.h"
#include <QTest>

using namespace hearth;

namespace {

std::unique_ptr<tokenizer::Tokenizer> without_space_prefix() {
    const auto file = gguf::GgufFile::open(test::vocab_path("llama-spm"));
    gguf::GgufWriter writer;
    writer.copy_prefix(*file, "");
    writer.set("tokenizer.ggml.add_space_prefix", gguf::bool_value(false));
    const std::string path = test::make_temp_dir("hearth-spm-gemma") + "/no-prefix.gguf";
    writer.write(path);
    return tokenizer::Tokenizer::from_gguf(*gguf::GgufFile::open(path));
}

} // namespace

class TestSpmGemmaFlavour : public QObject {
    Q_OBJECT

    std::unique_ptr<tokenizer::Tokenizer> gemma_;

private slots:
    void initTestCase() { gemma_ = without_space_prefix(); }

    void no_space_goes_before_the_first_word() {
        const auto& llama = test::cached_tokenizer(test::vocab_path("llama-spm"));
        QVERIFY(llama.adds_space_prefix());
        QVERIFY(!gemma_->adds_space_prefix());
        // What Llama 2 does to "Hello world", Gemma's flavour does to " Hello world".
        QCOMPARE(gemma_->encode(" Hello world", false, false), llama.encode("Hello world", false, false));
        const auto ids = gemma_->encode("Hello world", false, false);
        QVERIFY(ids != llama.encode("Hello world", false, false));
        QVERIFY2(!gemma_->token_text(ids.front()).starts_with("\xE2\x96\x81"),
                 gemma_->token_text(ids.front()).c_str());
        // Nor after a special token.
        const auto parsed = gemma_->encode("<s>Hello", false, true);
        QCOMPARE(parsed.front(), gemma_->bos_id());
        QCOMPARE(std::vector<int32_t>(parsed.begin() + 1, parsed.end()),
                 gemma_->encode("Hello", false, false));
    }

    void decoding_keeps_a_leading_space() {
        for (const std::string text : {" Hi there", "Hi there", "  two spaces"})
            QCOMPARE(gemma_->decode(gemma_->encode(text, true, false)), text);
    }

    void missing_characters_fall_back_to_byte_tokens() {
        const std::string llama_emoji = "\xF0\x9F\xA6\x99"; // U+1F999, not in the vocabulary
        QVERIFY(!gemma_->find_token(llama_emoji));
        std::vector<int32_t> bytes;
        for (const char* byte : {"<0xF0>", "<0x9F>", "<0xA6>", "<0x99>"})
            bytes.push_back(*gemma_->find_token(byte));
        QCOMPARE(gemma_->encode(llama_emoji, false, false), bytes);
        QCOMPARE(gemma_->decode(bytes), llama_emoji);
        const std::string text = "a" + llama_emoji + "b";
        QCOMPARE(gemma_->decode(gemma_->encode(text, false, false)), text);
    }
};

QTEST_MAIN(TestSpmGemmaFlavour)
#include "test_spm_gemma_flavour.moc"
