// GBNF grammars read and matched: which texts each notation accepts (literals, classes, ".",
// groups, alternatives, every repetition, comments, rules over several lines, UTF-8), the
// errors (with line, column and reason) for bad grammars and left recursion, and the token
// mask: on a small vocabulary, the trie walk allows exactly the tokens a one-by-one check
// allows, after every prefix of a text; the sampler never draws a refused token, and says so
// when none is allowed.
#include "engine/grammar/gbnf_parser.h"
#include "engine/grammar/grammar_constraint.h"
#include "engine/grammar/grammar_matcher.h"
#include <QTest>

using namespace hearth::engine;

namespace {

bool matches(const std::string& gbnf, const std::string& text) {
    GrammarMatcher matcher(std::make_shared<const Grammar>(parse_gbnf(gbnf)));
    GrammarState state = matcher.start();
    return matcher.advance(state, text) && GrammarMatcher::accepting(state);
}

// Whether `text` can still be continued into a sentence.
bool viable(const std::string& gbnf, const std::string& text) {
    GrammarMatcher matcher(std::make_shared<const Grammar>(parse_gbnf(gbnf)));
    GrammarState state = matcher.start();
    return matcher.advance(state, text);
}

std::string error_of(const std::string& gbnf) {
    try {
        parse_gbnf(gbnf, "test.gbnf");
    } catch (const GrammarError& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestGbnfParser : public QObject {
    Q_OBJECT
private slots:
    void acceptsWhatTheNotationSays_data() {
        QTest::addColumn<QString>("grammar");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("accepted");
        const QString yesNo = "root ::= \"yes\" | \"no\"";
        QTest::newRow("literal") << yesNo << "yes" << true;
        QTest::newRow("other literal") << yesNo << "no" << true;
        QTest::newRow("prefix only") << yesNo << "ye" << false;
        QTest::newRow("too long") << yesNo << "yess" << false;
        const QString classes = "root ::= [a-c] [^0-9] [\\x41-\\x43] \"\\n\"";
        QTest::newRow("classes") << classes << "b!B\n" << true;
        QTest::newRow("negated class refuses") << classes << "b5B\n" << false;
        QTest::newRow("range refuses") << classes << "d!B\n" << false;
        QTest::newRow("any") << "root ::= . . ."
                             << "a\xc3\xa9z" << true;
        QTest::newRow("star") << "root ::= \"a\" \"b\"*"
                              << "abbbb" << true;
        QTest::newRow("star none") << "root ::= \"a\" \"b\"*"
                                   << "a" << true;
        QTest::newRow("plus none") << "root ::= \"a\" \"b\"+"
                                   << "a" << false;
        QTest::newRow("plus") << "root ::= \"a\" \"b\"+"
                              << "abb" << true;
        QTest::newRow("optional") << "root ::= \"a\" \"b\"? \"c\""
                                  << "ac" << true;
        QTest::newRow("optional twice") << "root ::= \"a\" \"b\"? \"c\""
                                        << "abbc" << false;
        QTest::newRow("exactly") << "root ::= [0-9]{3}"
                                 << "123" << true;
        QTest::newRow("exactly, short") << "root ::= [0-9]{3}"
                                        << "12" << false;
        QTest::newRow("between") << "root ::= [0-9]{2,4}"
                                 << "1234" << true;
        QTest::newRow("between, over") << "root ::= [0-9]{2,4}"
                                       << "12345" << false;
        QTest::newRow("at least") << "root ::= [0-9]{2,}"
                                  << "123456789" << true;
        QTest::newRow("at least, under") << "root ::= [0-9]{2,}"
                                         << "1" << false;
        QTest::newRow("group repeated") << "root ::= (\"ab\" | \"c\")* \"!\""
                                        << "abcab!" << true;
        QTest::newRow("literal repeated whole") << "root ::= \"ab\"+"
                                                << "abab" << true;
        QTest::newRow("literal repeated, half") << "root ::= \"ab\"+"
                                                << "aba" << false;
        QTest::newRow("rules and comments")
            << "# a list\nroot ::= item (\",\" item)* # items\nitem ::= [a-z]+\n"
            << "ab,c,def" << true;
        QTest::newRow("continued lines")
            << "root ::= (\n  \"a\" |\n  \"b\"\n) tail\ntail ::= \"x\"\n     | \"y\"\n"
            << "by" << true;
        QTest::newRow("right recursion") << "root ::= list\nlist ::= \"x\" list | \"\"\n"
                                         << std::string(300, 'x').c_str() << true;
        QTest::newRow("UTF-8 literal") << "root ::= \"gr\xc3\xbc\xc3\x9f\" [\xe2\x82\xac-\xe2\x82\xaf]"
                                       << "gr\xc3\xbc\xc3\x9f\xe2\x82\xac" << true;
        QTest::newRow("escapes") << "root ::= \"\\u00e9\\t\\\"\\\\\" [\\]\\-]"
                                 << "\xc3\xa9\t\"\\-" << true;
        // Empty alternatives reach the same place along 3^60 paths: each is expanded once.
        QTest::newRow("nullable group repeated") << "root ::= (\"\" | \"\" | \"a\"){0,60} \"b\""
                                                 << "aab" << true;
        QTest::newRow("nested optional rules") << "root ::= a? b?\na ::= \"a\"?\nb ::= \"b\"\n"
                                               << "" << true;
        // A chain of 20000 empty rules, each returning to the next: deeper than a call stack
        // takes (it overflowed one under AddressSanitizer).
        QTest::newRow("empty rules 20000 deep")
            << "root ::= (\"\" | \"\"){0,10000} (\"\" | \"\"){10000} \"b\""
            << "b" << true;
        QTest::newRow("optional items 3000 deep") << "root ::= (\"a\"?){0,3000} \"b\""
                                                  << "aaab" << true;
    }
    void acceptsWhatTheNotationSays() {
        QFETCH(QString, grammar);
        QFETCH(QString, text);
        QFETCH(bool, accepted);
        QCOMPARE(matches(grammar.toStdString(), text.toStdString()), accepted);
    }

    // Optional parts repeated inside repetitions can be read in more ways at once than any
    // memory holds: past GrammarMatcher's limits the matcher says so, at the start or later.
    void tooAmbiguousGrammarsAreRefusedWhileMatched_data() {
        QTest::addColumn<QString>("grammar");
        QTest::addColumn<QString>("text");
        QTest::newRow("10000 optional items at once") << "root ::= (\"a\"?){0,10000} \"b\""
                                                      << "";
        QTest::newRow("100 x 100 optional items") << "root ::= ((\"a\"?){0,100}){0,100} \"b\""
                                                  << "";
        QTest::newRow("more ways with every character")
            << "root ::= ((\"a\"{0,100}){0,100}){0,100} \"b\"" << QString(2000, u'a');
        QTest::newRow("empty rules 10^8 deep") << "root ::= ((\"\" | \"\"){0,10000}){0,10000} \"b\""
                                               << "";
    }
    void tooAmbiguousGrammarsAreRefusedWhileMatched() {
        QFETCH(QString, grammar);
        QFETCH(QString, text);
        GrammarMatcher matcher(std::make_shared<const Grammar>(parse_gbnf(grammar.toStdString())));
        try {
            GrammarState state = matcher.start();
            matcher.advance(state, text.toStdString());
            QFAIL("no error");
        } catch (const GrammarError& e) {
            QVERIFY2(std::string_view(e.what()).starts_with("the grammar is too ambiguous: "), e.what());
        }
    }

    // A character's first bytes are taken only if some character the grammar allows begins so.
    void partialCharactersAreCheckedByTheirFirstBytes() {
        const std::string euro = "root ::= \"\xe2\x82\xac\"\n"; // U+20AC
        QVERIFY(viable(euro, "\xe2"));
        QVERIFY(viable(euro, "\xe2\x82"));
        QVERIFY(!viable(euro, "\xe2\x83"));  // U+20C0.. : not the euro
        QVERIFY(!viable(euro, "\xc3"));      // a two-byte character
        QVERIFY(!viable(euro, "\x82"));      // a continuation byte first
        QVERIFY(!matches(euro, "\xe2\x82")); // not whole
        QVERIFY(!viable("root ::= .\n", "\xff"));
        QVERIFY(!viable("root ::= \"{\"\n", "\xe0\x81"));    // an overlong "{"
        QVERIFY(!viable("root ::= .\n", "\xe0\x81\xbb"));    // never a character
        QVERIFY(!viable("root ::= .\n", "\xed\xa0\x80"));    // a surrogate
        QVERIFY(viable("root ::= .\n", "\xf4\x8f\xbf\xbf")); // U+10FFFF
    }

    void badGrammarsSayWhereAndWhy_data() {
        QTest::addColumn<QString>("grammar");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no root") << "item ::= \"a\"\n"
                                 << "no rule named 'root'";
        QTest::newRow("undefined") << "root ::= item\n"
                                   << "line 1, column 10: the rule 'item' is used but never defined";
        QTest::newRow("twice") << "root ::= \"a\"\nroot ::= \"b\"\n"
                               << "line 2, column 1: the rule 'root' is defined twice";
        QTest::newRow("no ::=") << "root = \"a\"\n"
                                << "line 1, column 6: expected '::='";
        QTest::newRow("open literal") << "root ::= \"abc\n"
                                      << "line 1, column 10: a literal without its closing";
        QTest::newRow("open class") << "root ::= [a-z\n"
                                    << "line 1, column 10: a character class without";
        QTest::newRow("open group") << "root ::= (\"a\" \"b\"\n"
                                    << "expected ')'";
        QTest::newRow("reversed range") << "root ::= [z-a]\n"
                                        << "line 1, column 11: a character range out of order";
        QTest::newRow("bad escape") << "root ::= \"\\q\"\n"
                                    << "line 1, column 11: unknown escape";
        QTest::newRow("nothing to repeat") << "root ::= *\n"
                                           << "line 1, column 10: nothing to repeat";
        QTest::newRow("max below min") << "root ::= \"a\"{3,2}\n"
                                       << "maximum is below its minimum";
        QTest::newRow("huge count") << "root ::= \"a\"{99999}\n"
                                    << "a repetition count above 10000";
        QTest::newRow("stray character") << "root ::= \"a\" )\n"
                                         << "line 1, column 14: unexpected character ')'";
        QTest::newRow("left recursion") << "root ::= expr\nexpr ::= expr \"+\" term | term\nterm ::= [0-9]\n"
                                        << "line 2, column 1: the rule 'expr' is left-recursive";
        QTest::newRow("left recursion through an empty rule")
            << "root ::= a\na ::= b a \"x\" | \"y\"\nb ::= \"c\"?\n"
            << "the rule 'a' is left-recursive";
        QTest::newRow("line and column on line 3") << "root ::= a\n\na ::= \"b\" [\n"
                                                   << "line 3, column 11";
    }
    void badGrammarsSayWhereAndWhy() {
        QFETCH(QString, grammar);
        QFETCH(QString, expected);
        const std::string error = error_of(grammar.toStdString());
        QVERIFY2(error.rfind("test.gbnf: ", 0) == 0, error.c_str());
        QVERIFY2(QString::fromStdString(error).contains(expected), error.c_str());
    }

    // The mask of the trie walk is exactly the one-token-at-a-time check, after every prefix of
    // a sentence, with tokens that share prefixes, cut characters and an end token.
    void theMaskIsTheOneByOneCheck() {
        const auto grammar = std::make_shared<const Grammar>(
            parse_gbnf("root ::= \"{\" ws (pair (\",\" ws pair)*)? \"}\"\npair ::= \"\\\"\" "
                       "[a-z\xc3\xa9]{1,3} \"\\\":\" ws num\n"
                       "num ::= \"-\"? [0-9]+\nws ::= \" \"?\n"));
        std::vector<std::string> pieces{"{",    "}",    "\"",   "\":",      " ",    " \"",  "a", "ab", "abc",
                                        "abcd", "\xc3", "\xa9", "\xc3\xa9", "1",    "12",   "-", "-1", ",",
                                        ", \"", "}\n",  "",     "x",        "\":-", "e\":", "0}"};
        const int32_t end = static_cast<int32_t>(pieces.size());
        pieces.push_back("</s>");
        const auto vocabulary = std::make_shared<const TokenTrie>(pieces, std::vector<int32_t>{end});
        const std::string sentence = "{\"ab\":12, \"\xc3\xa9\":-1}";
        GrammarConstraint constraint(grammar, vocabulary);
        GrammarConstraint fresh(grammar, vocabulary);
        // Token by token along the sentence, as a generation would go.
        const std::vector<int32_t> path{0, 2, 7, 3, 14, 18, 12, 22, 13, 1};
        std::string text;
        for (size_t step = 0; step <= path.size(); ++step) {
            const std::span<const uint8_t> mask = constraint.allowed_tokens();
            QCOMPARE(mask.size(), pieces.size());
            for (int32_t id = 0; id < static_cast<int32_t>(pieces.size()); ++id)
                QVERIFY2(
                    static_cast<bool>(mask[static_cast<size_t>(id)]) == constraint.allows(id),
                    qPrintable(
                        QStringLiteral("after '%1', token %2").arg(QString::fromStdString(text)).arg(id)));
            QCOMPARE(static_cast<bool>(mask[static_cast<size_t>(end)]), step == path.size());
            QVERIFY(!mask[20]); // an empty piece never
            if (step == path.size()) break;
            QVERIFY2(constraint.allows(path[step]), qPrintable(QString::number(step)));
            QVERIFY(constraint.accept(path[step]));
            text += pieces[static_cast<size_t>(path[step])];
        }
        QCOMPARE(text, sentence);
        QVERIFY(constraint.finished());
        QVERIFY(!fresh.finished());
        QVERIFY(!fresh.allows(end));
    }

    // With a constraint the sampler draws only allowed tokens, from the allowed ones' share of
    // the distribution; -1 when nothing is allowed.
    void theSamplerDrawsOnlyAllowedTokens() {
        const auto grammar = std::make_shared<const Grammar>(parse_gbnf("root ::= [bc] \"!\"\n"));
        const std::vector<std::string> pieces{"a", "b", "c", "!", "b!"};
        const auto vocabulary = std::make_shared<const TokenTrie>(pieces, std::vector<int32_t>{});
        SamplingParams params;
        params.temperature = 1.0f;
        params.top_k = 0;
        params.top_p = 1.0f;
        params.min_p = 0.0f;
        Sampler sampler(params, 5);
        const std::vector<float> logits{5.0f, 0.0f, std::log(3.0f), 4.0f, -50.0f}; // "a" likeliest
        std::array<int, 5> counts{};
        for (int i = 0; i < 4000; ++i) {
            GrammarConstraint constraint(grammar, vocabulary);
            const int32_t id = sampler.sample(logits, {}, &constraint);
            QVERIFY(id == 1 || id == 2 || id == 4);
            ++counts[static_cast<size_t>(id)];
        }
        // b : c : b! = 1 : 3 : e^-50
        QVERIFY2(std::abs(counts[2] / 4000.0 - 0.75) < 0.04, qPrintable(QString::number(counts[2])));

        GrammarConstraint constraint(grammar, vocabulary);
        QVERIFY(constraint.accept(1));
        QVERIFY(constraint.accept(3));
        QVERIFY(constraint.finished());
        QCOMPARE(sampler.sample(logits, {}, &constraint), -1); // complete, and no end token
    }
};

QTEST_GUILESS_MAIN(TestGbnfParser)
#include "test_gbnf_parser.moc"
