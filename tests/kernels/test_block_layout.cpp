// Pins the GGUF block layouts: hand-built blocks with hand-computed values, and blocks
// of random bytes dequantized against the layouts written out element by element from
// the GGUF description (independently of the kernels' decoders).
#include "kernels/block_formats.h"
#include "kernels/fp16.h"
#include "kernels/kernel_table.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/tensor_type.h"

#include <QTest>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

using namespace hearth::kernels;

namespace {

constexpr fp16_bits kHalf = 0x3800, kOne = 0x3c00, kQuarter = 0x3400; // 0.5, 1.0, 0.25

template <class Block> std::vector<float> dequantize(TensorType type, const Block& block) {
    std::vector<float> out(static_cast<size_t>(type_traits(type).block_elements));
    reference_ops(type).dequantize(&block, out.data(), int64_t(out.size()));
    return out;
}

// --- The layouts, element by element.
int nibble32(const uint8_t* qs, int e) {
    return e < 16 ? qs[e] & 15 : qs[e - 16] >> 4;
}
int bit_of(const uint8_t* bytes, int bit) {
    return (bytes[bit / 8] >> (bit % 8)) & 1;
}

float spec_q4_0(const BlockQ4_0& b, int e) {
    return fp16_to_fp32(b.d) * float(nibble32(b.qs, e) - 8);
}
float spec_q4_1(const BlockQ4_1& b, int e) {
    return fp16_to_fp32(b.d) * float(nibble32(b.qs, e)) + fp16_to_fp32(b.m);
}
// qh is a little-endian 32-bit word: bit e is byte e/8, bit e%8.
float spec_q5_0(const BlockQ5_0& b, int e) {
    return fp16_to_fp32(b.d) * float((nibble32(b.qs, e) | bit_of(b.qh, e) << 4) - 16);
}
float spec_q5_1(const BlockQ5_1& b, int e) {
    return fp16_to_fp32(b.d) * float(nibble32(b.qs, e) | bit_of(b.qh, e) << 4) + fp16_to_fp32(b.m);
}
float spec_q8_0(const BlockQ8_0& b, int e) {
    return fp16_to_fp32(b.d) * float(b.qs[e]);
}

// 2-bit fields of Q2_K/Q3_K: byte 32*(e/128) + e%32, bit pair (e%128)/32.
int crumb(const uint8_t* qs, int e) {
    return (qs[32 * (e / 128) + e % 32] >> (2 * ((e % 128) / 32))) & 3;
}

float spec_q2_K(const BlockQ2_K& b, int e) {
    const int s = e / 16;
    return fp16_to_fp32(b.d) * float(b.scales[s] & 15) * float(crumb(b.qs, e)) -
           fp16_to_fp32(b.dmin) * float(b.scales[s] >> 4);
}
float spec_q3_K(const BlockQ3_K& b, int e) {
    const int s = e / 16;
    const int low = s < 8 ? b.scales[s] & 15 : b.scales[s - 8] >> 4;
    const int high = (b.scales[8 + s % 4] >> (2 * (s / 4))) & 3;
    const int scale = (low | high << 4) - 32;
    // hmask: bit (e/32) of byte e%32; a set bit means the value as is, a clear one minus 4.
    const int q = crumb(b.qs, e) - (((b.hmask[e % 32] >> (e / 32)) & 1) ? 0 : 4);
    return fp16_to_fp32(b.d) * float(scale) * float(q);
}
// Scale and min j of the 12 packed bytes of Q4_K/Q5_K.
void scale_min(const uint8_t* p, int j, int& scale, int& min) {
    if (j < 4) {
        scale = p[j] & 63;
        min = p[j + 4] & 63;
    } else {
        scale = (p[j + 4] & 15) | ((p[j - 4] >> 6) << 4);
        min = (p[j + 4] >> 4) | ((p[j] >> 6) << 4);
    }
}
// 4-bit fields of Q4_K/Q5_K: byte 32*(e/64) + e%32, low nibble for e%64 < 32.
int nibble256(const uint8_t* qs, int e) {
    const uint8_t byte = qs[32 * (e / 64) + e % 32];
    return (e % 64) < 32 ? byte & 15 : byte >> 4;
}
float spec_q4_K(const BlockQ4_K& b, int e) {
    int scale, min;
    scale_min(b.scales, e / 32, scale, min);
    return fp16_to_fp32(b.d) * float(scale) * float(nibble256(b.qs, e)) - fp16_to_fp32(b.dmin) * float(min);
}
float spec_q5_K(const BlockQ5_K& b, int e) {
    int scale, min;
    scale_min(b.scales, e / 32, scale, min);
    const int q = nibble256(b.qs, e) | (((b.qh[e % 32] >> (e / 32)) & 1) << 4);
    return fp16_to_fp32(b.d) * float(scale) * float(q) - fp16_to_fp32(b.dmin) * float(min);
}
float spec_q6_K(const BlockQ6_K& b, int e) {
    const int half = e / 128, r = e % 128, l = r % 32, k = r / 32;
    const uint8_t low_byte = b.ql[64 * half + l + (k % 2 == 1 ? 32 : 0)];
    const int low = k < 2 ? low_byte & 15 : low_byte >> 4;
    const int high = (b.qh[32 * half + l] >> (2 * k)) & 3;
    return fp16_to_fp32(b.d) * float(b.scales[e / 16]) * float((low | high << 4) - 32);
}

// A block of random bytes with its fp16 scales replaced by finite values.
template <class Block> Block random_block(std::mt19937& rng) {
    Block b;
    auto* bytes = reinterpret_cast<uint8_t*>(&b);
    for (size_t i = 0; i < sizeof(Block); ++i)
        bytes[i] = static_cast<uint8_t>(rng());
    return b;
}
fp16_bits random_scale(std::mt19937& rng) {
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    return fp32_to_fp16(u(rng));
}

template <class Block>
void check_random_blocks(TensorType type, const std::function<void(Block&, std::mt19937&)>& fix_scales,
                         float (*spec)(const Block&, int)) {
    std::mt19937 rng(2024);
    for (int trial = 0; trial < 50; ++trial) {
        Block b = random_block<Block>(rng);
        fix_scales(b, rng);
        const std::vector<float> got = dequantize(type, b);
        for (int e = 0; e < int(got.size()); ++e) {
            const float expected = spec(b, e);
            if (std::fabs(got[e] - expected) > 1e-6f * (1 + std::fabs(expected)))
                QFAIL(qPrintable(QString("element %1: %2, expected %3").arg(e).arg(got[e]).arg(expected)));
        }
    }
}

} // namespace

class TestBlockLayout : public QObject {
    Q_OBJECT
private slots:
    void q4_0_literal() {
        BlockQ4_0 b;
        b.d = kHalf;
        std::memset(b.qs, 0x88, sizeof(b.qs)); // every nibble 8: zero
        b.qs[0] = 0x9f;                        // element 0: 15, element 16: 9
        b.qs[15] = 0x07;                       // element 15: 7, element 31: 0
        const std::vector<float> y = dequantize(TensorType::Q4_0, b);
        QCOMPARE(y[0], 3.5f);
        QCOMPARE(y[16], 0.5f);
        QCOMPARE(y[15], -0.5f);
        QCOMPARE(y[31], -4.0f);
        for (int e : {1, 14, 17, 30})
            QVERIFY(y[e] == 0.0f); // exact (QCOMPARE on floats is fuzzy)
    }

    void q4_1_literal() {
        BlockQ4_1 b;
        b.d = kOne;
        b.m = 0xc000; // -2
        std::memset(b.qs, 0x22, sizeof(b.qs));
        b.qs[0] = 0x51;
        const std::vector<float> y = dequantize(TensorType::Q4_1, b);
        QCOMPARE(y[0], -1.0f);
        QCOMPARE(y[16], 3.0f);
        QVERIFY(y[5] == 0.0f);
    }

    void q5_0_literal() {
        BlockQ5_0 b;
        b.d = kOne;
        std::memset(b.qs, 0, sizeof(b.qs));
        const uint32_t qh = (1u << 0) | (1u << 17) | (1u << 31);
        std::memcpy(b.qh, &qh, 4); // little-endian, as in the file
        b.qs[0] = 0x03;            // element 0: 3 | 16 -> 19 - 16 = 3; element 16: 0 -> -16
        b.qs[1] = 0x50;            // element 17: 5 | 16 -> 5
        const std::vector<float> y = dequantize(TensorType::Q5_0, b);
        QCOMPARE(y[0], 3.0f);
        QCOMPARE(y[16], -16.0f);
        QCOMPARE(y[17], 5.0f);
        QVERIFY(y[31] == 0.0f);
        QCOMPARE(y[1], -16.0f);
    }

    void q8_0_literal() {
        BlockQ8_0 b;
        b.d = kQuarter;
        std::memset(b.qs, 0, sizeof(b.qs));
        b.qs[5] = -7;
        b.qs[31] = 127;
        const std::vector<float> y = dequantize(TensorType::Q8_0, b);
        QCOMPARE(y[5], -1.75f);
        QCOMPARE(y[31], 31.75f);
        QVERIFY(y[0] == 0.0f);
    }

    void q2_K_literal() {
        BlockQ2_K b;
        std::memset(&b, 0, sizeof(b));
        b.d = kOne;
        b.dmin = kOne;
        b.scales[0] = 0x32;  // elements 0-15: scale 2, min 3
        b.scales[2] = 0x11;  // elements 32-47: scale 1, min 1
        b.qs[0] = 0x03;      // element 0: 3; element 32 (bits 2-3): 0
        b.qs[33] = 0x80;     // second half, element 128 + 96 + 1 = 225 (bits 6-7): 2
        b.scales[14] = 0x05; // elements 224-239: scale 5, min 0
        const std::vector<float> y = dequantize(TensorType::Q2_K, b);
        QCOMPARE(y[0], 3.0f);  // 2 * 3 - 3
        QCOMPARE(y[1], -3.0f); // 2 * 0 - 3
        QCOMPARE(y[32], -1.0f);
        QVERIFY(y[225] == 10.0f);
        QVERIFY(y[224] == 0.0f);
    }

    void q3_K_literal() {
        BlockQ3_K b;
        std::memset(&b, 0, sizeof(b));
        b.d = kHalf;
        b.scales[0] = 0x01;  // sub-block 0 low bits 1
        b.scales[8] = 0x02;  // sub-block 0 high bits 2: 33 - 32 = 1
        b.scales[2] = 0x0e;  // sub-block 2 low bits 14
        b.scales[10] = 0x01; // sub-block 2 high bits 1: 30 - 32 = -2
        b.qs[0] = 0x07;      // element 0: 3, element 32: 1
        b.hmask[0] = 0x01;   // element 0 keeps its value; element 32 (bit 1 clear) is minus 4
        const std::vector<float> y = dequantize(TensorType::Q3_K, b);
        QCOMPARE(y[0], 1.5f);  // 0.5 * 1 * 3
        QCOMPARE(y[32], 3.0f); // 0.5 * -2 * (1 - 4)
        QCOMPARE(y[1], -2.0f); // 0.5 * 1 * (0 - 4)
    }

    void q4_K_literal() {
        BlockQ4_K b;
        std::memset(&b, 0, sizeof(b));
        b.d = kOne;
        b.dmin = kHalf;
        b.scales[0] = 0x41; // scale 0 = 1; top bits 01 belong to scale 4
        b.scales[4] = 0x02; // min 0 = 2
        b.scales[8] = 0x23; // scale 4 low bits 3, min 4 low bits 2: scale 4 = 19, min 4 = 2
        b.qs[0] = 0x5a;     // element 0: 10 (sub-block 0); element 32: 5 (sub-block 1, scale 0)
        b.qs[64] = 0x07;    // element 128: 7 (sub-block 4)
        const std::vector<float> y = dequantize(TensorType::Q4_K, b);
        QCOMPARE(y[0], 9.0f);     // 1 * 10 - 0.5 * 2
        QCOMPARE(y[1], -1.0f);    // 1 * 0 - 0.5 * 2
        QVERIFY(y[32] == 0.0f);   // scale 0, min 0
        QCOMPARE(y[128], 132.0f); // 19 * 7 - 0.5 * 2
    }

    void q5_K_literal() {
        BlockQ5_K b;
        std::memset(&b, 0, sizeof(b));
        b.d = kOne;
        b.dmin = kHalf;
        b.scales[0] = 0x41;
        b.scales[4] = 0x02;
        b.scales[8] = 0x23;
        b.qs[0] = 0x5a;
        b.qs[64] = 0x07;
        b.qh[0] = 0x11; // fifth bit of element 0 (bit 0) and of element 128 (bit 4)
        const std::vector<float> y = dequantize(TensorType::Q5_K, b);
        QCOMPARE(y[0], 25.0f);    // 1 * 26 - 1
        QCOMPARE(y[128], 436.0f); // 19 * 23 - 1
        QCOMPARE(y[1], -1.0f);
    }

    void q6_K_literal() {
        BlockQ6_K b;
        std::memset(&b, 0, sizeof(b));
        std::memset(b.qh, 0xaa, sizeof(b.qh)); // high bits 2 everywhere: every quant 32, value 0
        b.d = kQuarter;
        b.scales[0] = -3;
        b.scales[4] = 2;
        b.ql[0] = 0x21; // element 0 low bits 1; element 64 low bits 2
        b.qh[0] = 0x8a; // element 0 high 2, element 32 high 2, element 64 high 0, element 96 high 2
        const std::vector<float> y = dequantize(TensorType::Q6_K, b);
        QCOMPARE(y[0], -0.75f);  // 0.25 * -3 * (33 - 32)
        QCOMPARE(y[64], -15.0f); // 0.25 * 2 * (2 - 32)
        QVERIFY(y[32] == 0.0f);
        QVERIFY(y[255] == 0.0f);
    }

    void random_blocks_match_layout() {
        check_random_blocks<BlockQ4_0>(
            TensorType::Q4_0, [](BlockQ4_0& b, std::mt19937& r) { b.d = random_scale(r); }, spec_q4_0);
        check_random_blocks<BlockQ4_1>(
            TensorType::Q4_1,
            [](BlockQ4_1& b, std::mt19937& r) { b.d = random_scale(r), b.m = random_scale(r); }, spec_q4_1);
        check_random_blocks<BlockQ5_0>(
            TensorType::Q5_0, [](BlockQ5_0& b, std::mt19937& r) { b.d = random_scale(r); }, spec_q5_0);
        check_random_blocks<BlockQ5_1>(
            TensorType::Q5_1,
            [](BlockQ5_1& b, std::mt19937& r) { b.d = random_scale(r), b.m = random_scale(r); }, spec_q5_1);
        check_random_blocks<BlockQ8_0>(
            TensorType::Q8_0, [](BlockQ8_0& b, std::mt19937& r) { b.d = random_scale(r); }, spec_q8_0);
        check_random_blocks<BlockQ2_K>(
            TensorType::Q2_K,
            [](BlockQ2_K& b, std::mt19937& r) { b.d = random_scale(r), b.dmin = random_scale(r); },
            spec_q2_K);
        check_random_blocks<BlockQ3_K>(
            TensorType::Q3_K, [](BlockQ3_K& b, std::mt19937& r) { b.d = random_scale(r); }, spec_q3_K);
        check_random_blocks<BlockQ4_K>(
            TensorType::Q4_K,
            [](BlockQ4_K& b, std::mt19937& r) { b.d = random_scale(r), b.dmin = random_scale(r); },
            spec_q4_K);
        check_random_blocks<BlockQ5_K>(
            TensorType::Q5_K,
            [](BlockQ5_K& b, std::mt19937& r) { b.d = random_scale(r), b.dmin = random_scale(r); },
            spec_q5_K);
        check_random_blocks<BlockQ6_K>(
            TensorType::Q6_K, [](BlockQ6_K& b, std::mt19937& r) { b.d = random_scale(r); }, spec_q6_K);
    }

    // Field offsets inside the blocks, as the file lays them out.
    void field_offsets() {
        QCOMPARE(offsetof(BlockQ4_0, qs), size_t(2));
        QCOMPARE(offsetof(BlockQ5_0, qh), size_t(2));
        QCOMPARE(offsetof(BlockQ5_0, qs), size_t(6));
        QCOMPARE(offsetof(BlockQ5_1, qh), size_t(4));
        QCOMPARE(offsetof(BlockQ2_K, qs), size_t(16));
        QCOMPARE(offsetof(BlockQ2_K, d), size_t(80));
        QCOMPARE(offsetof(BlockQ3_K, qs), size_t(32));
        QCOMPARE(offsetof(BlockQ3_K, scales), size_t(96));
        QCOMPARE(offsetof(BlockQ3_K, d), size_t(108));
        QCOMPARE(offsetof(BlockQ4_K, scales), size_t(4));
        QCOMPARE(offsetof(BlockQ4_K, qs), size_t(16));
        QCOMPARE(offsetof(BlockQ5_K, qh), size_t(16));
        QCOMPARE(offsetof(BlockQ5_K, qs), size_t(48));
        QCOMPARE(offsetof(BlockQ6_K, qh), size_t(128));
        QCOMPARE(offsetof(BlockQ6_K, scales), size_t(192));
        QCOMPARE(offsetof(BlockQ6_K, d), size_t(208));
        QCOMPARE(offsetof(BlockQ8_K, qs), size_t(4));
        QCOMPARE(offsetof(BlockQ8_K, bsums), size_t(260));
    }
};

QTEST_MAIN(TestBlockLayout)
#include "test_block_layout.moc"
