// Reference dot products against double-precision dots of the dequantized operands,
// at lengths of 1, 3, 7 and 13 blocks.
#include "kernels/kernel_table.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/tensor_type.h"

#include "tests/support/normal_data.h"

#include <QTest>
#include <cmath>
#include <random>
#include <vector>

using namespace hearth::kernels;
using hearth::test::normal_data;

namespace {

// Weights and activations in their kernel formats, with their dequantized values.
struct Operands {
    std::vector<std::byte> weights, activations;
    std::vector<float> weight_values, activation_values, activations_f32;
};

Operands make_operands(TensorType type, int64_t n, uint32_t seed, float activation_mean) {
    const ReferenceOps k = reference_ops(type);
    Operands o;
    const std::vector<float> w = normal_data(n, seed, 0.0f);
    o.activations_f32 = normal_data(n, seed + 1, activation_mean);
    o.weights.resize(row_bytes(type, n));
    k.quantize(w.data(), o.weights.data(), n);
    o.weight_values.resize(static_cast<size_t>(n));
    k.dequantize(o.weights.data(), o.weight_values.data(), n);
    const ReferenceOps act = reference_ops(k.activation_type);
    o.activations.resize(row_bytes(k.activation_type, n));
    act.quantize(o.activations_f32.data(), o.activations.data(), n);
    o.activation_values.resize(static_cast<size_t>(n));
    act.dequantize(o.activations.data(), o.activation_values.data(), n);
    return o;
}

} // namespace

class TestVecDotRef : public QObject {
    Q_OBJECT
private slots:
    void vec_dot_data() {
        QTest::addColumn<QString>("type");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<float>("activation_mean");
        for (const char* name : {"f32", "f16", "bf16", "q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_K", "q3_K",
                                 "q4_K", "q5_K", "q6_K", "q8_K"})
            for (int blocks : {1, 3, 7, 13})
                for (float mean : {0.0f, 0.7f}) // a mean exercises the mins of the _1 and K types
                    QTest::newRow(qPrintable(QString("%1 x%2 mean %3").arg(name).arg(blocks).arg(mean)))
                        << name << blocks << mean;
    }
    void vec_dot() {
        QFETCH(QString, type);
        QFETCH(int, blocks);
        QFETCH(float, activation_mean);
        const TensorType t = *type_from_name(type.toStdString());
        const int64_t n =
            blocks * type_traits(t).block_elements * (type_traits(t).block_elements == 1 ? 37 : 1);
        const Operands o = make_operands(t, n, 100u + uint32_t(blocks), activation_mean);
        const float got = reference_ops(t).vec_dot(n, o.weights.data(), o.activations.data());

        // 1. Against the exact product of what the kernel sees: only float rounding may differ.
        double exact = 0, magnitude = 0;
        for (int64_t i = 0; i < n; ++i) {
            exact += double(o.weight_values[i]) * o.activation_values[i];
            magnitude += std::fabs(double(o.weight_values[i]) * o.activation_values[i]);
        }
        const double rounding = 1e-5 * magnitude + 1e-6;
        QVERIFY2(std::fabs(got - exact) <= rounding,
                 qPrintable(QString("got %1, exact %2, allowed %3").arg(got).arg(exact).arg(rounding)));

        // 2. Against the float activations: the difference is bounded by the activation
        // quantization error, sum |w_i| * |a_i - a'_i|.
        double with_float_activations = 0, activation_error = 0;
        for (int64_t i = 0; i < n; ++i) {
            with_float_activations += double(o.weight_values[i]) * o.activations_f32[i];
            activation_error += std::fabs(double(o.weight_values[i])) *
                                std::fabs(double(o.activations_f32[i]) - o.activation_values[i]);
        }
        const double allowed = activation_error + rounding;
        QVERIFY2(std::fabs(got - with_float_activations) <= allowed,
                 qPrintable(QString("got %1, float dot %2, allowed %3")
                                .arg(got)
                                .arg(with_float_activations)
                                .arg(allowed)));
    }

    // Every weight type's activation format is the one the design names.
    void activation_types_data() {
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("activation");
        // F16 and BF16 weights meet activations rounded to their own type, as in ggml.
        for (const char* name : {"f32", "f16", "bf16"})
            QTest::newRow(name) << name << name;
        for (const char* name : {"q4_0", "q4_1", "q5_0", "q5_1", "q8_0"})
            QTest::newRow(name) << name << "q8_0";
        for (const char* name : {"q2_K", "q3_K", "q4_K", "q5_K", "q6_K", "q8_K"})
            QTest::newRow(name) << name << "q8_K";
    }
    void activation_types() {
        QFETCH(QString, type);
        QFETCH(QString, activation);
        const ReferenceOps k = reference_ops(*type_from_name(type.toStdString()));
        QCOMPARE(k.activation_type, *type_from_name(activation.toStdString()));
        QVERIFY(k.quantize && k.dequantize && k.vec_dot);
    }
};

QTEST_MAIN(TestVecDotRef)
#include "test_vec_dot_ref.moc"
