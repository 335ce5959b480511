// fp16 and bf16 conversions: exact values, rounding to nearest even, denormals,
// infinities and NaN, and a round trip of every half value.
#include "kernels/fp16.h"

#include <QTest>
#include <bit>
#include <cmath>
#include <limits>

using namespace hearth::kernels;

namespace {
float from_bits(uint32_t bits) {
    return std::bit_cast<float>(bits);
}
} // namespace

class TestFp16 : public QObject {
    Q_OBJECT
private slots:
    void to_fp16_data() {
        QTest::addColumn<float>("value");
        QTest::addColumn<int>("expected_bits");
        QTest::newRow("zero") << 0.0f << 0x0000;
        QTest::newRow("negative zero") << -0.0f << 0x8000;
        QTest::newRow("one") << 1.0f << 0x3c00;
        QTest::newRow("minus two") << -2.0f << 0xc000;
        QTest::newRow("one third") << 1.0f / 3 << 0x3555;
        QTest::newRow("largest half") << 65504.0f << 0x7bff;
        QTest::newRow("just below overflow tie") << 65519.99f << 0x7bff;
        QTest::newRow("overflow tie rounds to inf") << 65520.0f << 0x7c00;
        QTest::newRow("huge") << 1e10f << 0x7c00;
        QTest::newRow("infinity") << std::numeric_limits<float>::infinity() << 0x7c00;
        QTest::newRow("minus infinity") << -std::numeric_limits<float>::infinity() << 0xfc00;
        QTest::newRow("smallest normal") << 0x1p-14f << 0x0400;
        QTest::newRow("largest denormal") << 0x3ffp-24f << 0x03ff;
        QTest::newRow("smallest denormal") << 0x1p-24f << 0x0001;
        QTest::newRow("half of smallest denormal ties to zero") << 0x1p-25f << 0x0000;
        QTest::newRow("above half of smallest denormal") << 0x1.01p-25f << 0x0001;
        QTest::newRow("1.5 denormal steps ties to even 2") << 0x3p-25f << 0x0002;
        QTest::newRow("2.5 denormal steps ties to even 2") << 0x5p-25f << 0x0002;
        QTest::newRow("denormal rounds up into normal") << 0x7ffp-25f << 0x0400;
        QTest::newRow("tie to even down") << 1.0f + 0x1p-11f << 0x3c00;
        QTest::newRow("tie to even up") << 1.0f + 0x3p-11f << 0x3c02;
        QTest::newRow("above tie rounds up") << 1.0f + 0x1.01p-11f << 0x3c01;
        QTest::newRow("mantissa carry into exponent") << 2.0f - 0x1p-12f << 0x4000;
        QTest::newRow("tiny float flushes to signed zero") << -1e-30f << 0x8000;
    }
    void to_fp16() {
        QFETCH(float, value);
        QFETCH(int, expected_bits);
        QCOMPARE(int(fp32_to_fp16(value)), expected_bits);
    }

    void from_fp16_data() {
        QTest::addColumn<int>("bits");
        QTest::addColumn<float>("expected");
        QTest::newRow("one") << 0x3c00 << 1.0f;
        QTest::newRow("minus 2.5") << 0xc100 << -2.5f;
        QTest::newRow("largest") << 0x7bff << 65504.0f;
        QTest::newRow("smallest normal") << 0x0400 << 0x1p-14f;
        QTest::newRow("smallest denormal") << 0x0001 << 0x1p-24f;
        QTest::newRow("largest denormal") << 0x03ff << 0x3ffp-24f;
        QTest::newRow("negative denormal") << 0x8200 << -0x1p-15f;
        QTest::newRow("negative zero") << 0x8000 << -0.0f;
        QTest::newRow("infinity") << 0x7c00 << std::numeric_limits<float>::infinity();
        QTest::newRow("minus infinity") << 0xfc00 << -std::numeric_limits<float>::infinity();
    }
    void from_fp16() {
        QFETCH(int, bits);
        QFETCH(float, expected);
        const float got = fp16_to_fp32(static_cast<fp16_bits>(bits));
        QCOMPARE(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(expected)); // sign of zero included
    }

    void fp16_nan_stays_nan() {
        for (int bits : {0x7c01, 0x7e00, 0xfe00, 0x7fff}) {
            const float f = fp16_to_fp32(static_cast<fp16_bits>(bits));
            QVERIFY(std::isnan(f));
            QCOMPARE(std::signbit(f), (bits & 0x8000) != 0);
            const fp16_bits back = fp32_to_fp16(f);
            QCOMPARE(back & 0x7c00, 0x7c00);
            QVERIFY((back & 0x3ff) != 0);
        }
        // A float NaN whose payload lives only in the low mantissa bits must not become infinity.
        const fp16_bits h = fp32_to_fp16(from_bits(0x7f800001));
        QCOMPARE(h & 0x7c00, 0x7c00);
        QVERIFY((h & 0x3ff) != 0);
    }

    // Every finite half converts to float and back to the same bits; the float is the exact value.
    void fp16_round_trip_all() {
        for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
            if ((bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0) continue; // NaN: checked above
            const float f = fp16_to_fp32(static_cast<fp16_bits>(bits));
            const int exponent = (bits >> 10) & 0x1f;
            const int mantissa = bits & 0x3ff;
            double exact = exponent == 0    ? std::ldexp(mantissa, -24)
                           : exponent == 31 ? INFINITY
                                            : std::ldexp(1024 + mantissa, exponent - 25);
            if (bits & 0x8000) exact = -exact;
            QCOMPARE(double(f), exact);
            QCOMPARE(int(fp32_to_fp16(f)), int(bits));
        }
    }

    // Against a slow reference: the nearest half by brute force, ties to the even mantissa.
    void to_fp16_matches_brute_force() {
        uint32_t state = 12345;
        for (int i = 0; i < 400; ++i) { // the brute force is slow: a few hundred values suffice
            state = state * 1664525u + 1013904223u;
            // Spread over the half range and beyond: exponents 2^-28 .. 2^17.
            const float magnitude = std::ldexp(1.0f + (state >> 9) * 0x1p-23f, int(state % 46) - 28);
            const float value = (state & 0x100) ? -magnitude : magnitude;
            const fp16_bits got = fp32_to_fp16(value);
            // Brute force over the finite positive halves.
            const double target = std::fabs(double(value));
            int best = 0;
            double best_error = INFINITY;
            for (int h = 0; h <= 0x7bff; ++h) {
                const double error = std::fabs(double(fp16_to_fp32(static_cast<fp16_bits>(h))) - target);
                if (error < best_error || (error == best_error && (h & 1) == 0)) {
                    best = h;
                    best_error = error;
                }
            }
            if (target >= 65520.0) best = 0x7c00;
            const int expected = best | (value < 0 ? 0x8000 : 0);
            if (int(got) != expected)
                QFAIL(qPrintable(QString("value %1: got %2, expected %3")
                                     .arg(double(value), 0, 'g', 10)
                                     .arg(got, 4, 16)
                                     .arg(expected, 4, 16)));
        }
    }

    void bf16_rounding_data() {
        QTest::addColumn<float>("value");
        QTest::addColumn<int>("expected_bits");
        QTest::newRow("one") << 1.0f << 0x3f80;
        QTest::newRow("minus one") << -1.0f << 0xbf80;
        QTest::newRow("zero") << 0.0f << 0x0000;
        QTest::newRow("negative zero") << -0.0f << 0x8000;
        QTest::newRow("tie to even down") << from_bits(0x3f808000) << 0x3f80;
        QTest::newRow("tie to even up") << from_bits(0x3f818000) << 0x3f82;
        QTest::newRow("above tie") << from_bits(0x3f808001) << 0x3f81;
        QTest::newRow("below tie") << from_bits(0x3f807fff) << 0x3f80;
        QTest::newRow("denormal kept") << from_bits(0x00010000) << 0x0001;
        QTest::newRow("denormal rounded") << from_bits(0x00018000) << 0x0002;
        QTest::newRow("largest float rounds to inf") << from_bits(0x7f7fffff) << 0x7f80;
        QTest::newRow("infinity") << std::numeric_limits<float>::infinity() << 0x7f80;
        QTest::newRow("minus infinity") << -std::numeric_limits<float>::infinity() << 0xff80;
    }
    void bf16_rounding() {
        QFETCH(float, value);
        QFETCH(int, expected_bits);
        const bf16_bits got = fp32_to_bf16(value);
        QCOMPARE(int(got), expected_bits);
        // bf16 -> f32 is exact: the bits move back to the top half.
        QCOMPARE(std::bit_cast<uint32_t>(bf16_to_fp32(got)), uint32_t(expected_bits) << 16);
    }

    void bf16_nan_stays_nan() {
        for (uint32_t bits : {0x7f800001u, 0x7fc00000u, 0xffc00000u, 0x7f80ffffu}) {
            const bf16_bits h = fp32_to_bf16(from_bits(bits));
            QVERIFY(std::isnan(bf16_to_fp32(h)));
            QCOMPARE((h & 0x8000) != 0, (bits & 0x80000000u) != 0);
        }
    }
};

QTEST_MAIN(TestFp16)
#include "test_fp16.moc"
