// Traits of the tensor types: GGUF ids, llama.cpp names, block sizes and row sizes.
#include "kernels/block_formats.h"
#include "kernels/tensor_type.h"

#include <QTest>
#include <stdexcept>

using namespace hearth::kernels;

class TestTensorType : public QObject {
    Q_OBJECT
private slots:
    void traits_data() {
        QTest::addColumn<int>("raw_type");
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("block_elements");
        QTest::addColumn<int>("block_bytes");
        // Ids and sizes from the GGUF specification; bytes also from the block structs.
        QTest::newRow("f32") << 0 << "f32" << 1 << 4;
        QTest::newRow("f16") << 1 << "f16" << 1 << 2;
        QTest::newRow("q4_0") << 2 << "q4_0" << 32 << int(sizeof(BlockQ4_0));
        QTest::newRow("q4_1") << 3 << "q4_1" << 32 << int(sizeof(BlockQ4_1));
        QTest::newRow("q5_0") << 6 << "q5_0" << 32 << int(sizeof(BlockQ5_0));
        QTest::newRow("q5_1") << 7 << "q5_1" << 32 << int(sizeof(BlockQ5_1));
        QTest::newRow("q8_0") << 8 << "q8_0" << 32 << 34;
        QTest::newRow("q8_1") << 9 << "q8_1" << 32 << 36;
        QTest::newRow("q2_K") << 10 << "q2_K" << 256 << 84;
        QTest::newRow("q3_K") << 11 << "q3_K" << 256 << 110;
        QTest::newRow("q4_K") << 12 << "q4_K" << 256 << 144;
        QTest::newRow("q5_K") << 13 << "q5_K" << 256 << 176;
        QTest::newRow("q6_K") << 14 << "q6_K" << 256 << 210;
        QTest::newRow("q8_K") << 15 << "q8_K" << 256 << 292;
        QTest::newRow("bf16") << 30 << "bf16" << 1 << 2;
    }
    void traits() {
        QFETCH(int, raw_type);
        QFETCH(QString, name);
        QFETCH(int, block_elements);
        QFETCH(int, block_bytes);
        const auto traits = type_traits(uint32_t(raw_type));
        QVERIFY(traits.has_value());
        QCOMPARE(int(traits->type), raw_type);
        QCOMPARE(QString::fromUtf8(traits->name.data(), qsizetype(traits->name.size())), name);
        QCOMPARE(int(traits->block_elements), block_elements);
        QCOMPARE(int(traits->block_bytes), block_bytes);
        QCOMPARE(int(type_traits(traits->type).block_bytes), block_bytes);

        // Names parse back, in either case.
        const std::string lower = name.toStdString(), upper = name.toUpper().toStdString();
        QCOMPARE(type_from_name(lower), std::optional<TensorType>(traits->type));
        QCOMPARE(type_from_name(upper), std::optional<TensorType>(traits->type));

        // A row of 3 blocks, and rows that are not whole blocks.
        QCOMPARE(int(row_bytes(traits->type, 3 * block_elements)), 3 * block_bytes);
        QCOMPARE(int(row_bytes(traits->type, 0)), 0);
        if (block_elements > 1) {
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, row_bytes(traits->type, block_elements + 1));
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, row_bytes(traits->type, block_elements / 2));
        }
    }

    void unknown_types() {
        for (uint32_t raw : {4u, 5u, 16u, 29u, 31u, 1000u})
            QVERIFY(!type_traits(raw).has_value());
        QVERIFY(!type_from_name("q4_2").has_value());
        QVERIFY(!type_from_name("").has_value());
        QVERIFY(!type_from_name("q4_k_m").has_value());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, type_traits(static_cast<TensorType>(4)));
    }
};

QTEST_MAIN(TestTensorType)
#include "test_tensor_type.moc"
