// What the tokenizers do beyond the reference vectors: special tokens in text,
// BOS, pieces of each kind of token, end-of-generation ids, and the incremental
// decoder on characters split across tokens.
#include "engine/tokenizer/utf8.h"
#include "tests/tokenizer/tokenizer_test_data.h"
#include <QTest>
#include <algorithm>

using namespace hearth;
using tokenizer::IncrementalDecoder;
using tokenizer::Tokenizer;
using tokenizer::TokenType;

namespace {

const Tokenizer& vocab(const char* name) {
    return test::cached_tokenizer(test::vocab_path(name));
}

int32_t id_of(const Tokenizer& tok, std::string_view text) {
    const auto id = tok.find_token(text);
    if (!id) throw std::runtime_error("no token '" + std::string(text) + "'");
    return *id;
}

bool contains(const std::vector<int32_t>& ids, int32_t id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

bool is_valid_utf8(const std::string& s) {
    return tokenizer::utf8::valid_prefix_length(s) == s.size();
}

} // namespace

class TestTokenizerBehaviour : public QObject {
    Q_OBJECT

private slots:
    void special_tokens_are_parsed_only_when_asked_data() {
        QTest::addColumn<QString>("vocab");
        QTest::addColumn<QString>("special");
        QTest::newRow("qwen2 im_start") << "qwen2"
                                        << "<|im_start|>";
        QTest::newRow("qwen2 im_end") << "qwen2"
                                      << "<|im_end|>";
        QTest::newRow("llama-bpe begin_of_text") << "llama-bpe"
                                                 << "<|begin_of_text|>";
        QTest::newRow("llama-bpe eot_id") << "llama-bpe"
                                          << "<|eot_id|>";
        QTest::newRow("gpt-2 endoftext") << "gpt-2"
                                         << "<|endoftext|>";
        QTest::newRow("phi-3 end") << "phi-3"
                                   << "<|end|>";
        QTest::newRow("llama-spm bos") << "llama-spm"
                                       << "<s>";
    }
    void special_tokens_are_parsed_only_when_asked() {
        QFETCH(QString, vocab);
        QFETCH(QString, special);
        const Tokenizer& tok = ::vocab(vocab.toUtf8().constData());
        const std::string marker = special.toStdString();
        const int32_t id = id_of(tok, marker);
        QCOMPARE(tok.token_type(id), TokenType::Control);
        const std::string text = "Hi" + marker + "user\nHello";

        const auto parsed = tok.encode(text, false, true);
        QVERIFY(contains(parsed, id));
        QCOMPARE(std::count(parsed.begin(), parsed.end(), id), 1);
        // The plain text around the special token tokenizes as it does on its own.
        const auto before = tok.encode("Hi", false, false);
        QVERIFY(std::equal(before.begin(), before.end(), parsed.begin()));
        QCOMPARE(parsed[before.size()], id);

        const auto plain = tok.encode(text, false, false);
        QVERIFY(!contains(plain, id));
        QVERIFY(plain.size() > parsed.size());
        QCOMPARE(QByteArray::fromStdString(tok.decode(plain)), QByteArray::fromStdString(text));
        // Control tokens decode to nothing unless asked for.
        QCOMPARE(tok.token_to_piece(id), std::string());
        QCOMPARE(tok.token_to_piece(id, true), marker);
    }

    void user_defined_tokens_are_matched_even_without_parse_special() {
        // In Phi-3's vocabulary "</s>" is user-defined, not control.
        const Tokenizer& tok = vocab("phi-3");
        const int32_t id = id_of(tok, "</s>");
        QCOMPARE(tok.token_type(id), TokenType::UserDefined);
        const auto ids = tok.encode("a</s>b", false, false);
        QVERIFY(contains(ids, id));
        QCOMPARE(tok.token_to_piece(id), std::string("</s>"));
    }

    void space_prefix_follows_special_tokens() {
        // SentencePiece puts "▁" before the text at the start and after each special token.
        const Tokenizer& tok = vocab("llama-spm");
        QVERIFY(tok.adds_space_prefix());
        const int32_t hello = id_of(tok, "\xE2\x96\x81Hello");
        QCOMPARE(tok.encode("Hello", false, false), std::vector<int32_t>({hello}));
        QCOMPARE(tok.encode("<s>Hello", false, true), std::vector<int32_t>({tok.bos_id(), hello}));
        QCOMPARE(tok.encode("Hello", true, false), std::vector<int32_t>({tok.bos_id(), hello}));
        QVERIFY(!vocab("qwen2").adds_space_prefix());
    }

    void bos_is_added_on_request_data() {
        QTest::addColumn<QString>("vocab");
        QTest::addColumn<bool>("adds_bos");
        QTest::newRow("llama-spm") << "llama-spm" << true;
        QTest::newRow("phi-3") << "phi-3" << true;
        QTest::newRow("llama-bpe") << "llama-bpe" << true;
        QTest::newRow("gpt-2") << "gpt-2" << false;
        QTest::newRow("qwen2") << "qwen2" << false;
    }
    void bos_is_added_on_request() {
        QFETCH(QString, vocab);
        QFETCH(bool, adds_bos);
        const Tokenizer& tok = ::vocab(vocab.toUtf8().constData());
        QCOMPARE(tok.add_bos_by_default(), adds_bos);
        QVERIFY(tok.bos_id() >= 0);
        QCOMPARE(tok.encode("", true, false), std::vector<int32_t>({tok.bos_id()}));
        QVERIFY(tok.encode("", false, false).empty());
        const auto without = tok.encode("Hello world", false, false);
        auto with = tok.encode("Hello world", true, false);
        QCOMPARE(with.front(), tok.bos_id());
        with.erase(with.begin());
        QCOMPARE(with, without);
    }

    void end_of_generation_tokens_data() {
        QTest::addColumn<QString>("vocab");
        QTest::addColumn<QString>("eot");
        QTest::addColumn<QStringList>("others");
        QTest::newRow("llama-bpe") << "llama-bpe"
                                   << "<|eot_id|>" << QStringList{"<|end_of_text|>"};
        QTest::newRow("qwen2") << "qwen2"
                               << "<|im_end|>" << QStringList{"<|endoftext|>"};
        QTest::newRow("phi-3") << "phi-3"
                               << "<|end|>" << QStringList{"<|endoftext|>"};
        QTest::newRow("gpt-2") << "gpt-2"
                               << "<|endoftext|>" << QStringList{};
    }
    void end_of_generation_tokens() {
        QFETCH(QString, vocab);
        QFETCH(QString, eot);
        QFETCH(QStringList, others);
        const Tokenizer& tok = ::vocab(vocab.toUtf8().constData());
        QCOMPARE(tok.eot_id(), id_of(tok, eot.toStdString()));
        QVERIFY(tok.is_end_of_generation(tok.eot_id()));
        QVERIFY(tok.is_end_of_generation(tok.eos_id()));
        for (const QString& other : others)
            QVERIFY(tok.is_end_of_generation(id_of(tok, other.toStdString())));
        QVERIFY(!tok.is_end_of_generation(tok.encode("Hello", false, false).front()));
    }

    void spm_has_no_eot_of_its_own() {
        const Tokenizer& tok = vocab("llama-spm");
        QCOMPARE(tok.eot_id(), -1);
        QCOMPARE(tok.eos_id(), id_of(tok, "</s>"));
        QVERIFY(tok.is_end_of_generation(tok.eos_id()));
        QVERIFY(!tok.is_end_of_generation(tok.bos_id()));
    }

    void pieces_of_each_token_kind() {
        const Tokenizer& spm = vocab("llama-spm");
        QCOMPARE(spm.token_to_piece(id_of(spm, "\xE2\x96\x81Hello")), std::string(" Hello"));
        QCOMPARE(spm.token_type(id_of(spm, "<0x0A>")), TokenType::Byte);
        QCOMPARE(spm.token_to_piece(id_of(spm, "<0x0A>")), std::string("\n"));
        QCOMPARE(spm.token_to_piece(id_of(spm, "<0xE2>")), std::string("\xE2"));
        QCOMPARE(spm.token_to_piece(spm.bos_id()), std::string());
        QCOMPARE(spm.token_to_piece(spm.unk_id(), true), std::string("<unk>"));
        QCOMPARE(spm.token_text(spm.bos_id()), std::string("<s>"));

        const Tokenizer& bpe = vocab("gpt-2");
        QCOMPARE(bpe.token_to_piece(id_of(bpe, "\xC4\xA0world")), std::string(" world")); // "Ġworld"
        QCOMPARE(bpe.token_to_piece(id_of(bpe, "\xC4\x8A")), std::string("\n"));          // "Ċ"
        // "é" (U+00E9) stands for the lone byte 0xE9, part of some longer character.
        QCOMPARE(bpe.token_to_piece(id_of(bpe, "\xC3\xA9")), std::string("\xE9"));
    }

    void bad_ids_are_rejected() {
        const Tokenizer& tok = vocab("llama-spm");
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, tok.token_to_piece(tok.n_vocab()));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, tok.token_text(-1));
    }

    void byte_level_bpe_keeps_invalid_utf8() {
        // Byte-level BPE can spell any byte, so even text that is not UTF-8 comes back intact.
        const Tokenizer& tok = vocab("qwen2");
        const std::string text = "ab\xFF\xFE cd \xC3 \xE2\x82";
        QCOMPARE(QByteArray::fromStdString(tok.decode(tok.encode(text, false, false))),
                 QByteArray::fromStdString(text));
    }

    void incremental_decoder_emits_whole_characters_data() {
        QTest::addColumn<QString>("vocab");
        QTest::addColumn<QString>("text");
        const QString samples[] = {
            QString::fromUtf8(
                "\xF0\x9F\x9A\x80 (normal) \xF0\x9F\x98\xB6\xE2\x80\x8D\xF0\x9F\x8C\xAB\xEF\xB8\x8F done"),
            QString::fromUtf8("\xE1\x9E\x80\xE1\x9E\xB6\xE1\x9E\x93\xE1\x9F\x8B \xE4\xBD\xA0\xE5\xA5\xBD"),
            QString::fromUtf8("Hello, y'all! How are you \xF0\x9F\x98\x81 ?"),
        };
        for (const char* name : {"llama-spm", "phi-3", "gpt-2", "llama-bpe", "qwen2"})
            for (int i = 0; i < 3; ++i)
                QTest::addRow("%s/%d", name, i) << name << samples[i];
    }
    void incremental_decoder_emits_whole_characters() {
        QFETCH(QString, vocab);
        QFETCH(QString, text);
        const Tokenizer& tok = ::vocab(vocab.toUtf8().constData());
        const std::string input = text.toStdString();
        const auto ids = tok.encode(input, false, false);

        IncrementalDecoder decoder(tok);
        std::string streamed;
        std::string joined_pieces;
        int held_back = 0; // pushes that ended inside a character
        for (const int32_t id : ids) {
            const std::string chunk = decoder.push(id);
            QVERIFY2(is_valid_utf8(chunk), QByteArray::fromStdString(chunk).toHex().constData());
            joined_pieces += tok.token_to_piece(id);
            if (!is_valid_utf8(joined_pieces)) ++held_back;
            streamed += chunk;
        }
        QCOMPARE(decoder.flush(), std::string());
        QCOMPARE(QByteArray::fromStdString(streamed), QByteArray::fromStdString(joined_pieces));
        // Every sample has characters that some of these vocabularies split across tokens.
        if (vocab == "llama-spm" || vocab == "gpt-2") QVERIFY(held_back > 0);
    }

    void incremental_decoder_holds_byte_tokens_until_complete() {
        const Tokenizer& tok = vocab("llama-spm");
        IncrementalDecoder decoder(tok);
        // U+1F680 (rocket) is F0 9F 9A 80, four byte tokens in this vocabulary.
        QCOMPARE(decoder.push(id_of(tok, "<0xF0>")), std::string());
        QCOMPARE(decoder.push(id_of(tok, "<0x9F>")), std::string());
        QCOMPARE(decoder.push(id_of(tok, "<0x9A>")), std::string());
        QCOMPARE(decoder.push(id_of(tok, "<0x80>")), std::string("\xF0\x9F\x9A\x80"));
        QCOMPARE(decoder.flush(), std::string());
    }

    void incremental_decoder_replaces_broken_bytes() {
        const Tokenizer& tok = vocab("llama-spm");
        const std::string replacement(tokenizer::utf8::kReplacementCharacter);
        IncrementalDecoder decoder(tok);
        // A continuation byte with no start is broken at once.
        QCOMPARE(decoder.push(id_of(tok, "<0x80>")), replacement);
        // A start followed by something else is broken when the something else comes.
        QCOMPARE(decoder.push(id_of(tok, "<0xE2>")), std::string());
        QCOMPARE(decoder.push(id_of(tok, "\xE2\x96\x81Hello")), replacement + " Hello");
        // A start still waiting at the end comes out as one replacement character.
        QCOMPARE(decoder.push(id_of(tok, "<0xF0>")), std::string());
        QCOMPARE(decoder.push(id_of(tok, "<0x9F>")), std::string());
        QCOMPARE(decoder.flush(), replacement);
        QCOMPARE(decoder.flush(), std::string());
    }
};

QTEST_MAIN(TestTokenizerBehaviour)
#include "test_tokenizer_behaviour.moc"
