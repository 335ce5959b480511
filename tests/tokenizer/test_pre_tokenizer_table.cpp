// The pre-tokenizer table: every name llama.cpp knows maps to a regex set that
// compiles under PCRE2, and each set splits text the way its expressions say
// (digits alone or in threes, contractions, CJK runs, whitespace runs, ...).
// The expected pieces are worked out by hand from the expressions.
#include "engine/tokenizer/pre_tokenizer.h"
#include "engine/tokenizer/pre_tokenizer_table.h"
#include <QTest>
#include <iterator>
#include <set>
#include <string_view>

using namespace hearth::tokenizer;

namespace {

QStringList split_with_set(const QString& set_name, const QString& text) {
    const RegexSet* set = find_regex_set(set_name.toStdString());
    if (!set) return {QStringLiteral("<no such set>")};
    const PreTokenizer pre(set->patterns);
    const std::string utf8 = text.toStdString();
    QStringList pieces;
    for (const std::string_view piece : pre.split(utf8))
        pieces << QString::fromUtf8(piece.data(), static_cast<qsizetype>(piece.size()));
    return pieces;
}

// Text in many scripts, with digits, marks, contractions, punctuation and whitespace runs.
const char* const kMixedText =
    "Hello, World! I'm 1234567 years... naïve cafe\u0301 \t\n\n  x\r\n"
    "日本語のテキスト 中文 한국어 Ελληνικά Русский ქართული हिन्दी العربية\n"
    "x=1;y==2 <sentinel:3> IMGIMGABZ \u00a0 👋🏽 it's WE'LL Ali'si 3.14 1,000\n";

// llama.cpp's tokenizer.ggml.pre names, in the order of its src/llama-vocab.cpp
// (llama_vocab::impl::load, ggml-org/llama.cpp at 00ad355e): 90 names.
const char* const kLlamaCppPreTokenizerNames[] = {
    "default",
    "minicpm5",
    "llama3",
    "llama-v3",
    "llama-bpe",
    "falcon3",
    "falcon-h1",
    "pixtral",
    "midm-2.0",
    "lfm2",
    "jina-v5-nano",
    "deepseek-llm",
    "deepseek-coder",
    "deepseek-v3",
    "spark2_5",
    "youtu",
    "falcon",
    "mpt",
    "starcoder",
    "gpt-2",
    "phi-2",
    "jina-es",
    "jina-de",
    "gigachat",
    "jina-v2-es",
    "jina-v2-de",
    "a.x-4.0",
    "mellum",
    "modern-bert",
    "jais-2",
    "gemma4",
    "granite-embed-multi-311m",
    "sarvam-moe",
    "jina-v1-en",
    "jina-v2-code",
    "roberta-bpe",
    "whitespace",
    "refact",
    "command-r",
    "qwen2",
    "deepseek-r1-qwen",
    "kormo",
    "f2llmv2",
    "qwen35",
    "stablelm2",
    "olmo",
    "dbrx",
    "smaug-bpe",
    "poro-chat",
    "glm4",
    "chatglm-bpe",
    "viking",
    "jais",
    "tekken",
    "smollm",
    "codeshell",
    "bloom",
    "gpt3-finnish",
    "exaone",
    "exaone4",
    "exaone-moe",
    "chameleon",
    "minerva-7b",
    "megrez",
    "gpt-4o",
    "llama4",
    "kanana2",
    "talkie",
    "granite-embed-multi-97m",
    "tiny_aya",
    "cohere2moe",
    "superbpe",
    "trillion",
    "granite-docling",
    "bailingmoe",
    "bailingmoe2",
    "llada-moe",
    "seed-coder",
    "hunyuan",
    "hunyuan-dense",
    "hy_v4",
    "joyai-llm",
    "kimi-k2",
    "ufakzeka",
    "grok-2",
    "afmoe",
    "laguna",
    "minimax-m2",
    "solar-open",
    "mellum2",
};

// Names left out of the table on purpose, each with the table's reason.
// "whitespace": an embedding model's tokenizer that drops all whitespace, with its own
// tokenizer.ggml.model (see make_names in pre_tokenizer_table.cpp).
const std::set<std::string_view> kDeliberatelyUnknown = {"whitespace"};

} // namespace

class TestPreTokenizerTable : public QObject {
    Q_OBJECT

private slots:
    void every_name_has_a_set_that_compiles() {
        std::set<std::string_view> names;
        std::set<std::string_view> used_sets;
        for (const PreTokenizerName& entry : pre_tokenizer_names()) {
            QVERIFY2(names.insert(entry.name).second, std::string(entry.name).c_str());
            const RegexSet* set = find_regex_set(entry.regex_set);
            QVERIFY2(set, std::string(entry.name).c_str());
            used_sets.insert(set->name);
            const auto spec = find_pre_tokenizer(entry.name);
            QVERIFY(spec);
            QCOMPARE(spec->name, std::string(set->name));
            QCOMPARE(spec->patterns.size(), set->patterns.size());
        }
        std::set<std::string_view> set_names;
        for (const RegexSet& set : regex_sets()) {
            QVERIFY2(set_names.insert(set.name).second, std::string(set.name).c_str());
            QVERIFY2(used_sets.count(set.name), ("set used by no name: " + std::string(set.name)).c_str());
            QVERIFY(!set.patterns.empty());
            try {
                const PreTokenizer pre(set.patterns);
                // Whatever it splits, the pieces cover the text exactly, none empty.
                std::string joined;
                for (const std::string_view piece : pre.split(kMixedText)) {
                    QVERIFY2(!piece.empty(), std::string(set.name).c_str());
                    joined += piece;
                }
                QCOMPARE(joined, std::string(kMixedText));
            } catch (const std::exception& e) {
                QFAIL((std::string(set.name) + ": " + e.what()).c_str());
            }
        }
    }

    // Every name llama.cpp recognizes is in the table, except the documented exclusion; the
    // table holds no name llama.cpp does not know.
    void every_llama_cpp_name_is_known() {
        QCOMPARE(std::size(kLlamaCppPreTokenizerNames), size_t{90});
        std::set<std::string_view> llama_cpp;
        for (const char* name : kLlamaCppPreTokenizerNames)
            QVERIFY2(llama_cpp.insert(name).second, name);
        std::set<std::string_view> table;
        for (const PreTokenizerName& entry : pre_tokenizer_names())
            table.insert(entry.name);
        for (std::string_view name : kDeliberatelyUnknown) {
            QVERIFY2(llama_cpp.contains(name), std::string(name).c_str());
            QVERIFY2(!table.contains(name), (std::string(name) + " is excluded but in the table").c_str());
            QVERIFY(!find_pre_tokenizer(name));
        }
        for (std::string_view name : llama_cpp) {
            if (kDeliberatelyUnknown.contains(name)) continue;
            QVERIFY2(table.contains(name), (std::string(name) + " is not in the table").c_str());
            QVERIFY2(find_pre_tokenizer(name), std::string(name).c_str());
            QVERIFY2(choose_pre_tokenizer(name).warning.empty(), std::string(name).c_str());
        }
        for (std::string_view name : table)
            QVERIFY2(llama_cpp.contains(name), (std::string(name) + " is not a llama.cpp name").c_str());
        QCOMPARE(table.size(), llama_cpp.size() - kDeliberatelyUnknown.size());
    }

    void the_families_of_the_issue_are_known_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("set");
        const std::pair<const char*, const char*> known[] = {{"llama-bpe", "llama3"},
                                                             {"llama3", "llama3"},
                                                             {"deepseek-llm", "deepseek-llm"},
                                                             {"deepseek-coder", "deepseek-coder"},
                                                             {"deepseek-v3", "deepseek3"},
                                                             {"falcon", "falcon"},
                                                             {"mpt", "gpt2"},
                                                             {"starcoder", "starcoder"},
                                                             {"gpt-2", "gpt2"},
                                                             {"refact", "starcoder"},
                                                             {"command-r", "starcoder"},
                                                             {"qwen2", "qwen2"},
                                                             {"qwen35", "qwen35"},
                                                             {"stablelm2", "qwen2"},
                                                             {"olmo", "gpt2"},
                                                             {"dbrx", "llama3"},
                                                             {"smaug-bpe", "llama3"},
                                                             {"poro-chat", "bloom"},
                                                             {"jais", "gpt2"},
                                                             {"tekken", "tekken"},
                                                             {"smollm", "starcoder"},
                                                             {"codeshell", "starcoder"},
                                                             {"bloom", "bloom"},
                                                             {"exaone", "starcoder"},
                                                             {"chameleon", "chameleon"},
                                                             {"minerva-7b", "starcoder"},
                                                             {"megrez", "qwen2"},
                                                             {"gpt-4o", "gpt4o"},
                                                             {"superbpe", "superbpe"},
                                                             {"trillion", "gpt2"},
                                                             {"bailingmoe", "bailingmoe"},
                                                             {"seed-coder", "seed-coder"},
                                                             {"hunyuan", "qwen2"},
                                                             {"kimi-k2", "kimi-k2"},
                                                             {"grok-2", "qwen2"},
                                                             {"viking", "viking"},
                                                             {"gpt3-finnish", "bloom"},
                                                             {"chatglm-bpe", "llama3"},
                                                             {"default", "default"},
                                                             {"gemma4", "spm-bpe"},
                                                             {"afmoe", "afmoe"},
                                                             {"tiny_aya", "tiny_aya"}};
        for (const auto& [name, set] : known)
            QTest::newRow(name) << name << set;
    }
    void the_families_of_the_issue_are_known() {
        QFETCH(QString, name);
        QFETCH(QString, set);
        const auto spec = find_pre_tokenizer(name.toStdString());
        QVERIFY(spec);
        QCOMPARE(QString::fromStdString(spec->name), set);
    }

    void flags_follow_the_name() {
        QVERIFY(find_pre_tokenizer("llama-bpe")->ignore_merges);
        QVERIFY(find_pre_tokenizer("llama-bpe")->add_bos);
        QVERIFY(find_pre_tokenizer("tekken")->ignore_merges);
        QVERIFY(find_pre_tokenizer("chameleon")->add_bos);
        // Same expression as Llama 3, not its flags.
        QVERIFY(!find_pre_tokenizer("dbrx")->ignore_merges);
        QVERIFY(!find_pre_tokenizer("dbrx")->add_bos);
        QVERIFY(!find_pre_tokenizer("qwen2")->add_bos);
        QVERIFY(find_pre_tokenizer("gemma4")->whole_newline_runs);
        QVERIFY(!find_pre_tokenizer("gemma4")->byte_level);
        QVERIFY(!find_pre_tokenizer("sarvam-moe")->whole_newline_runs);
        QVERIFY(find_pre_tokenizer("gemma4")->always_add_bos);
        QVERIFY(!find_pre_tokenizer("sarvam-moe")->always_add_bos);
        QVERIFY(find_pre_tokenizer("gpt-2")->byte_level);
    }

    void unknown_and_missing_names_fall_back_to_default_with_a_warning() {
        QVERIFY(!find_pre_tokenizer("no-such-pre"));
        const PreTokenizerChoice unknown = choose_pre_tokenizer("no-such-pre");
        QCOMPARE(unknown.spec.name, std::string("default"));
        QVERIFY(unknown.warning.find("'no-such-pre'") != std::string::npos);
        const PreTokenizerChoice missing = choose_pre_tokenizer(std::nullopt);
        QCOMPARE(missing.spec.name, std::string("default"));
        QVERIFY(missing.warning.find("tokenizer.ggml.pre") != std::string::npos);
        const PreTokenizerChoice known = choose_pre_tokenizer("qwen2");
        QCOMPARE(known.spec.name, std::string("qwen2"));
        QVERIFY(known.warning.empty());
    }

    void splits_data() {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("pieces");
        const auto row = [](const char* tag, const char* set, const QString& text,
                            const QStringList& pieces) { QTest::newRow(tag) << set << text << pieces; };
        // GPT-2: lowercase contractions only, whole digit runs after one space.
        row("gpt2/words", "gpt2", "Hello world", {"Hello", " world"});
        row("gpt2/contraction", "gpt2", "I'm 12345 ok", {"I", "'m", " 12345", " ok"});
        row("gpt2/uppercase contraction", "gpt2", "I'M", {"I", "'", "M"});
        row("gpt2/space run", "gpt2", "a  b", {"a", " ", " b"});
        row("gpt2/newlines", "gpt2", "x\n\ny", {"x", "\n", "\n", "y"});
        // default: punctuation runs, then GPT-2's, then number runs, then threes.
        row("default/digits", "default", "Hi!! 12345", {"Hi", "!!", " ", "123", "45"});
        // Llama 3: any-case contractions, digits in threes, newline runs whole.
        row("llama3/digits", "llama3", "I'M 1234567 ok", {"I", "'M", " ", "123", "456", "7", " ok"});
        // Case-insensitive contractions, as (?i:'s|'t|'re|'ve|'m|'ll|'d) matches them in the models'
        // own expressions: any case of every letter. Told apart where a letter follows (after
        // "X", "'S" is a piece with or without the contraction), so each starts the text; U+017F
        // (long s), which a caseless match would fold to "s", is a letter of the next word.
        for (const char* contraction : {"S", "T", "RE", "VE", "M", "LL", "D", "Re", "rE", "vE", "lL"}) {
            const QString text = QStringLiteral("'%1x").arg(QLatin1String(contraction));
            QTest::addRow("llama3/contraction '%s", contraction)
                << "llama3" << text << QStringList({text.chopped(1), "x"});
        }
        row("llama3/contraction starts a word", "llama3", "'Tis the season", {"'T", "is", " the", " season"});
        row("llama3/long s is no contraction", "llama3", "it'\u017Fx", {"it", "'\u017Fx"});
        row("qwen2/uppercase contractions", "qwen2", "'Tis WE'LL", {"'T", "is", " WE", "'LL"});
        // GPT-4o keeps a contraction on its word, in any case.
        row("gpt4o/mixed-case contraction", "gpt4o", "We'Ve", {"We'Ve"});
        row("gpt4o/uppercase contraction", "gpt4o", "THEY'RE", {"THEY'RE"});
        row("gpt4o/contractions", "gpt4o", "I'M you'D", {"I'M", " you'D"});
        row("llama3/newlines", "llama3", "Hello\n\nworld", {"Hello", "\n\n", "world"});
        row("llama3/punctuation", "llama3", "...hi", {"...", "hi"});
        row("llama3/spaces", "llama3", "a       b", {"a", "      ", " b"});
        // JAIS 2: the same 7 spaces cut into 4 and 2.
        row("jais2/spaces", "jais2", "a       b", {"a", "    ", "  ", " b"});
        row("jais2/trailing", "jais2", "a     ", {"a", "    ", " "});
        // Qwen2: single digits.
        row("qwen2/digits", "qwen2", "abc 123", {"abc", " ", "1", "2", "3"});
        row("qwen2/suffix", "qwen2", "Ali'si", {"Ali", "'s", "i"});
        row("qwen2/combining mark", "qwen2", "cafe\u0301 x", {"cafe", "\u0301", " x"});
        // Qwen 3.5: marks stay with their letters.
        row("qwen35/combining mark", "qwen35", "cafe\u0301 x", {"cafe\u0301", " x"});
        // DeepSeek LLM: lines, cased letters, ASCII/fullwidth punctuation, CJK, number runs.
        row("deepseek-llm/mixed", "deepseek-llm", "Hello, 世界 42\n",
            {"Hello", ",", " ", "世界", " ", "42", "\n"});
        // DeepSeek Coder: symbols are not punctuation, digits alone.
        row("deepseek-coder/code", "deepseek-coder", "x = 10\n", {"x", " = ", "1", "0", "\n"});
        // DeepSeek V3: digits in threes, CJK and kana runs, ASCII punctuation leads a Latin word.
        row("deepseek3/mixed", "deepseek3", "abc 12345 日本語です",
            {"abc", " ", "123", "45", " ", "日本語です"});
        row("deepseek3/dot word", "deepseek3", "x.Net", {"x", ".Net"});
        row("deepseek3/punct newline", "deepseek3", "a.\n", {"a", ".\n"});
        // Spark 2.5: no newline after punctuation, then single digits.
        row("spark2_5/punct newline", "spark2_5", "a.\n", {"a", ".", "\n"});
        row("spark2_5/digits", "spark2_5", "12345", {"1", "2", "3", "4", "5"});
        // Youtu: Hangul alone, capitalized words with their contractions.
        row("youtu/hangul", "youtu", "한국어 Hello", {"한국어", " Hello"});
        row("youtu/camel", "youtu", "HelloWorld's", {"Hello", "World's"});
        // Falcon: punctuation runs with the backtick first, then threes.
        row("falcon/mixed", "falcon", "a`b 1234", {"a", "`", "b", " ", "123", "4"});
        // StarCoder: every digit alone.
        row("starcoder/digits", "starcoder", "x 123", {"x", " ", "1", "2", "3"});
        // BLOOM: words up to whitespace or sentence punctuation (and parentheses).
        row("bloom/sentence", "bloom", "Hello, world. (ok)", {"Hello", ",", " world", ". (", "ok", ")"});
        row("viking/digits", "viking", "abc123", {"abc", "1", "2", "3"});
        // Tekken: capitalized words apart, single digits.
        row("tekken/camel", "tekken", "HelloWorld 42", {"Hello", "World", " ", "4", "2"});
        // Chameleon: indentation runs, digits and punctuation one by one.
        row("chameleon/indent", "chameleon", "x  y\t1,", {"x", "  ", "y", "\t", "1", ","});
        row("chameleon/sentinel", "chameleon", "a<sentinel:7>b", {"a", "<", "sentinel", ":", "7", ">", "b"});
        // GPT-4o: capitalized words with contractions, digits in threes.
        row("gpt4o/mixed", "gpt4o", "HelloWorld's 12345", {"Hello", "World's", " ", "123", "45"});
        // Tiny Aya: thousands from the right where a boundary ends the number.
        row("tiny_aya/number", "tiny_aya", "12345 abc", {"12", "345", " abc"});
        row("tiny_aya/glued", "tiny_aya", "12345abc", {"123", "45", "abc"});
        // Kimi K2: Han runs apart from other letters, kana stays with letters.
        row("kimi-k2/han", "kimi-k2", "你好world", {"你好", "world"});
        row("kimi-k2/kana", "kimi-k2", "漢字かな", {"漢字", "かな"});
        // SuperBPE: number runs cut into thousands from the right.
        row("superbpe/number", "superbpe", "1234567 x", {"1", "234", "567", " x"});
        row("superbpe/short", "superbpe", "12 x", {"12", " x"});
        row("bailingmoe/contraction", "bailingmoe", "I'll 42", {"I", "'ll", " ", "4", "2"});
        // Seed-Coder: punctuation runs stop before a newline.
        row("seed-coder/code", "seed-coder", "x=1;\n", {"x", "=", "1", ";", "\n"});
        // ufakzeka: no contractions, so suffixes stay on.
        row("ufakzeka/suffix", "ufakzeka", "Ali'si", {"Ali", "'si"});
        // AFMoE: digits 1-2 then threes, Asian scripts apart.
        row("afmoe/mixed", "afmoe", "1234567ab 日本", {"1", "234", "567", "ab", " ", "日本"});
        // Laguna: lines and newline runs, then Qwen2's.
        row("laguna/lines", "laguna", "a\n\nb c", {"a", "\n\n", "b", " c"});
        // EXAONE MoE: words joined by single spaces stay together.
        row("exaone-moe/phrase", "exaone-moe", "New York 3", {"New York", " ", "3"});
        row("minicpm5/digits", "minicpm5", "12345 ab", {"123", "45", " ab"});
        // SentencePiece-style BPE: only lines apart (spaces are U+2581 by then).
        row("spm-bpe/lines", "spm-bpe", "a\u2581b\n\nc", {"a\u2581b", "\n\n", "c"});
    }
    void splits() {
        QFETCH(QString, set);
        QFETCH(QString, text);
        QFETCH(QStringList, pieces);
        QCOMPARE(split_with_set(set, text), pieces);
    }

    void deepseek_letters_are_not_all_cased_letters() {
        // Its letter class has uppercase Armenian but not lowercase: a word in mixed case falls apart.
        QCOMPARE(split_with_set("deepseek-llm", "ԱբԳ"), QStringList({"Ա", "բ", "Գ"}));
        QCOMPARE(split_with_set("deepseek-coder", "ԱբԳ"), QStringList({"ԱբԳ"}));
    }
};

QTEST_MAIN(TestPreTokenizerTable)
#include "test_pre_tokenizer_table.moc"
