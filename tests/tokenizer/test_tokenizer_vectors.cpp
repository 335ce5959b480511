// Every test vector of testdata/vocab: encoding (no BOS, special tokens not
// parsed) must give exactly the reference ids, and decoding them must give the
// input back.
#include "tests/tokenizer/tokenizer_test_data.h"
#include <QTest>

using namespace hearth;
using test::ids_string;

class TestTokenizerVectors : public QObject {
    Q_OBJECT

private:
    void add_rows() {
        QTest::addColumn<QString>("vocab");
        QTest::addColumn<int>("index");
        for (const std::string& name : test::vocab_names()) {
            const auto cases = test::read_vocab_cases(test::vocab_path(name));
            QVERIFY2(cases.size() > 10, name.c_str());
            for (size_t i = 0; i < cases.size(); ++i)
                QTest::addRow("%s/%zu", name.c_str(), i)
                    << QString::fromStdString(name) << static_cast<int>(i);
        }
    }
    static test::VocabCase test_case(const QString& vocab, int index) {
        return test::read_vocab_cases(test::vocab_path(vocab.toStdString())).at(index);
    }

private slots:
    void encode_matches_reference_data() { add_rows(); }
    void encode_matches_reference() {
        QFETCH(QString, vocab);
        QFETCH(int, index);
        const test::VocabCase c = test_case(vocab, index);
        const auto& tok = test::cached_tokenizer(test::vocab_path(vocab.toStdString()));
        const std::vector<int32_t> ids = tok.encode(c.text, /*add_bos=*/false, /*parse_special=*/false);
        QCOMPARE(ids_string(ids), ids_string(c.ids));
    }

    void decode_gives_input_back_data() { add_rows(); }
    void decode_gives_input_back() {
        QFETCH(QString, vocab);
        QFETCH(int, index);
        const test::VocabCase c = test_case(vocab, index);
        const auto& tok = test::cached_tokenizer(test::vocab_path(vocab.toStdString()));
        QCOMPARE(QByteArray::fromStdString(tok.decode(c.ids)), QByteArray::fromStdString(c.text));
        // With BOS in front the text is the same: BOS is a control token.
        std::vector<int32_t> with_bos = c.ids;
        with_bos.insert(with_bos.begin(), tok.bos_id());
        QCOMPARE(QByteArray::fromStdString(tok.decode(with_bos)), QByteArray::fromStdString(c.text));
    }
};

QTEST_MAIN(TestTokenizerVectors)
#include "test_tokenizer_vectors.moc"
