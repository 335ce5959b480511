// The kernel tables and the run-time choice of instruction set.
#include "kernels/isa_select.h"
#include "kernels/kernel_table.h"
#include "kernels/tensor_type.h"

#include <QTest>
#include <stdexcept>

using namespace hearth::kernels;

class TestKernelDispatch : public QObject {
    Q_OBJECT
private slots:
    void cleanupTestCase() { force_isa(Isa::Scalar); }

    void reference_table_is_complete() {
        const KernelTable& table = reference_kernels();
        QCOMPARE(table.isa, Isa::Scalar);
        for (TensorType t :
             {TensorType::F32, TensorType::F16, TensorType::BF16, TensorType::Q4_0, TensorType::Q4_1,
              TensorType::Q5_0, TensorType::Q5_1, TensorType::Q8_0, TensorType::Q2_K, TensorType::Q3_K,
              TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K, TensorType::Q8_K}) {
            const TypeKernels& k = table.of(t);
            QVERIFY(k.quantize != nullptr);
            QVERIFY(k.dequantize != nullptr);
            QVERIFY(k.vec_dot != nullptr);
            // The activation type can itself be quantized (matmul needs its quantizer).
            QVERIFY(table.of(k.activation_type).quantize != nullptr);
        }
        QVERIFY(table.of(TensorType::Q8_1).vec_dot == nullptr); // not a weight type we run
    }

    void names() {
        QCOMPARE(isa_name(Isa::Scalar), std::string_view("scalar"));
        QCOMPARE(isa_name(Isa::Avx2), std::string_view("avx2"));
        QCOMPARE(isa_from_name("AVX2"), std::optional<Isa>(Isa::Avx2));
        QCOMPARE(isa_from_name("scalar"), std::optional<Isa>(Isa::Scalar));
        QVERIFY(!isa_from_name("neon").has_value());
    }

    void choose_isa_data() {
        QTest::addColumn<QString>("requested"); // "<unset>" for no variable
        QTest::addColumn<bool>("avx2_available");
        QTest::addColumn<int>("expected");
        QTest::addColumn<bool>("warns");
        QTest::newRow("unset, avx2 available") << "<unset>" << true << int(Isa::Avx2) << false;
        QTest::newRow("unset, no avx2") << "<unset>" << false << int(Isa::Scalar) << false;
        QTest::newRow("empty") << "" << true << int(Isa::Avx2) << false;
        QTest::newRow("scalar requested") << "scalar" << true << int(Isa::Scalar) << false;
        QTest::newRow("avx2 requested and available") << "avx2" << true << int(Isa::Avx2) << false;
        QTest::newRow("avx2 requested, unavailable") << "avx2" << false << int(Isa::Scalar) << true;
        QTest::newRow("unknown name") << "avx512" << true << int(Isa::Scalar) << true;
    }
    void choose_isa() {
        QFETCH(QString, requested);
        QFETCH(bool, avx2_available);
        QFETCH(int, expected);
        QFETCH(bool, warns);
        const QByteArray bytes = requested.toUtf8();
        const IsaChoice choice =
            hearth::kernels::choose_isa(requested == "<unset>" ? nullptr : bytes.constData(), avx2_available);
        QCOMPARE(int(choice.isa), expected);
        QCOMPARE(!choice.warning.empty(), warns);
    }

    void force_isa_switches_active_table() {
        force_isa(Isa::Scalar);
        QCOMPARE(&active_kernels(), &reference_kernels());
        const KernelTable* avx2 = kernels_for(Isa::Avx2);
        if (avx2 == nullptr) {
            QVERIFY_THROWS_EXCEPTION(std::runtime_error, force_isa(Isa::Avx2));
            QCOMPARE(active_kernels().isa, Isa::Scalar); // unchanged by the failed request
        } else {
            QVERIFY(cpu_has_avx2_fma_f16c());
            QCOMPARE(avx2->isa, Isa::Avx2);
            force_isa(Isa::Avx2);
            QCOMPARE(&active_kernels(), avx2);
        }
        QCOMPARE(kernels_for(Isa::Scalar), &reference_kernels());
    }
};

QTEST_MAIN(TestKernelDispatch)
#include "test_kernel_dispatch.moc"
