// The kernel tables and the run-time choice of instruction set.
#include "kernels/decode_prefetch.h"
#include "kernels/isa_select.h"
#include "kernels/kernel_table.h"
#include "kernels/tensor_type.h"

#include <QFile>
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
        for (Isa isa : kIsaTiers)
            QCOMPARE(isa_from_name(isa_name(isa)), std::optional<Isa>(isa));
        QCOMPARE(isa_name(Isa::Scalar), std::string_view("scalar"));
        QCOMPARE(isa_name(Isa::Avx2), std::string_view("avx2"));
        QCOMPARE(isa_name(Isa::AvxVnni), std::string_view("avxvnni"));
        QCOMPARE(isa_name(Isa::Avx512), std::string_view("avx512"));
        QCOMPARE(isa_name(Isa::Amx), std::string_view("amx"));
        QCOMPARE(isa_from_name("AVX512AMX"), std::optional<Isa>(Isa::Amx));
        QCOMPARE(isa_from_name("AVX2"), std::optional<Isa>(Isa::Avx2));
        QCOMPARE(isa_from_name("AVX-VNNI"), std::optional<Isa>(Isa::AvxVnni));
        QCOMPARE(isa_from_name("avx512vnni"), std::optional<Isa>(Isa::Avx512));
        QVERIFY(!isa_from_name("neon").has_value());
    }

    void choose_isa_data() {
        QTest::addColumn<QString>("requested"); // "<unset>" for no variable
        QTest::addColumn<QString>("available"); // tier names, comma-separated
        QTest::addColumn<int>("expected");
        QTest::addColumn<bool>("warns");
        const QString all = "avx2,avxvnni,avx512", zen4 = "avx2,avx512";
        const QString sapphire_rapids = "avx2,avxvnni,avx512,amx";
        QTest::newRow("unset, all tiers") << "<unset>" << all << int(Isa::Avx512) << false;
        QTest::newRow("unset, AMX (Sapphire Rapids)")
            << "<unset>" << sapphire_rapids << int(Isa::Amx) << false;
        QTest::newRow("avx512 requested with AMX")
            << "avx512" << sapphire_rapids << int(Isa::Avx512) << false;
        QTest::newRow("amx requested on Zen 4") << "amx" << zen4 << int(Isa::Avx512) << true;
        QTest::newRow("amx requested on Zen 3") << "amx"
                                                << "avx2" << int(Isa::Avx2) << true;
        QTest::newRow("unset, AVX-512 without AVX-VNNI (Zen 4)")
            << "<unset>" << zen4 << int(Isa::Avx512) << false;
        QTest::newRow("unset, AVX-VNNI (Alder Lake)") << "<unset>"
                                                      << "avx2,avxvnni" << int(Isa::AvxVnni) << false;
        QTest::newRow("unset, avx2 only (Zen 3)") << "<unset>"
                                                  << "avx2" << int(Isa::Avx2) << false;
        QTest::newRow("unset, nothing") << "<unset>"
                                        << "" << int(Isa::Scalar) << false;
        QTest::newRow("empty") << ""
                               << "avx2" << int(Isa::Avx2) << false;
        QTest::newRow("scalar requested") << "scalar" << all << int(Isa::Scalar) << false;
        QTest::newRow("avx2 requested and available") << "avx2" << all << int(Isa::Avx2) << false;
        QTest::newRow("avx2 requested, unavailable") << "avx2"
                                                     << "" << int(Isa::Scalar) << true;
        QTest::newRow("avxvnni requested on Zen 4") << "avxvnni" << zen4 << int(Isa::Avx2) << true;
        QTest::newRow("avx512 requested on Zen 3") << "avx512"
                                                   << "avx2" << int(Isa::Avx2) << true;
        QTest::newRow("avx512 requested, available") << "AVX512" << zen4 << int(Isa::Avx512) << false;
        QTest::newRow("unknown name") << "sse9" << all << int(Isa::Scalar) << true;
    }
    void choose_isa() {
        QFETCH(QString, requested);
        QFETCH(QString, available);
        QFETCH(int, expected);
        QFETCH(bool, warns);
        IsaSet tiers;
        for (const QString& name : available.split(',', Qt::SkipEmptyParts))
            tiers.add(*isa_from_name(name.toStdString()));
        const QByteArray bytes = requested.toUtf8();
        const IsaChoice choice =
            hearth::kernels::choose_isa(requested == "<unset>" ? nullptr : bytes.constData(), tiers);
        QCOMPARE(int(choice.isa), expected);
        QCOMPARE(!choice.warning.empty(), warns);
    }

    void tiers_follow_cpu_features() {
        const IsaSet built{Isa::Scalar, Isa::Avx2, Isa::AvxVnni, Isa::Avx512, Isa::Amx};
        CpuFeatures zen4;
        zen4.avx2_fma_f16c = zen4.avx512_core_vnni = zen4.avx512_bf16 = true;
        const IsaSet on_zen4 = isas_supported_by(zen4, built);
        QVERIFY(on_zen4.has(Isa::Avx512) && on_zen4.has(Isa::Avx2) && !on_zen4.has(Isa::AvxVnni));
        QVERIFY(!on_zen4.has(Isa::Amx));
        // AMX needs the OS's grant of the tile data, not only the CPU's bits.
        CpuFeatures sapphire_rapids = zen4;
        sapphire_rapids.avx_vnni = sapphire_rapids.amx_tiles_hardware = true;
        QVERIFY(!isas_supported_by(sapphire_rapids, built).has(Isa::Amx));
        sapphire_rapids.amx_bf16 = true;
        QVERIFY(isas_supported_by(sapphire_rapids, built).has(Isa::Amx));
        QVERIFY(!isas_supported_by(zen4, IsaSet{Isa::Scalar}).has(Isa::Avx512)); // not built
        const IsaSet none = isas_supported_by(CpuFeatures{}, built);
        QVERIFY(none.has(Isa::Scalar) && !none.has(Isa::Avx2));
    }

    // Each tier this CPU runs has a complete table; the others are null, with a reason. The log
    // lists which tiers ran here.
    void every_available_table_is_complete() {
        const KernelTable& reference = reference_kernels();
        for (Isa isa : kIsaTiers) {
            const KernelTable* table = kernels_for(isa);
            if (table == nullptr) {
                QVERIFY(!isa_unavailable_reason(isa).empty());
                qInfo("tier %s: not run here (%s)", isa_name(isa).data(),
                      isa_unavailable_reason(isa).c_str());
                continue;
            }
            qInfo("tier %s: available", isa_name(isa).data());
            QCOMPARE(table->isa, isa);
            QVERIFY(isa_unavailable_reason(isa).empty());
            QVERIFY(table->attend_f16 && table->attend_group_f16 && table->swiglu);
            for (size_t raw = 0; raw < kTensorTypeSlots; ++raw) {
                const TypeKernels& ref = reference.by_type[raw];
                const TypeKernels& mine = table->by_type[raw];
                if (ref.vec_dot == nullptr) continue;
                QVERIFY(mine.vec_dot && mine.quantize && mine.dequantize);
                // A dot product and its activation format come from the same tier's entry.
                QCOMPARE(mine.activation_type, kernels_for(mine.isa)->by_type[raw].activation_type);
                QVERIFY(static_cast<int>(mine.isa) <= static_cast<int>(isa));
                // The metrics name the tier whose code quantizes the activations: that tier's
                // own table has the same quantizer.
                const Isa quantizer_tier = mine.activation_quantizer_isa;
                QVERIFY(static_cast<int>(quantizer_tier) <= static_cast<int>(isa));
                QVERIFY(kernels_for(quantizer_tier)->by_type[raw].activation_quantizer() ==
                        mine.activation_quantizer());
                if (quantizer_tier != Isa::Scalar) {
                    const Isa below = quantizer_tier == Isa::Avx2 ? Isa::Scalar : Isa::Avx2;
                    QVERIFY(kernels_for(below)->by_type[raw].activation_quantizer() !=
                            mine.activation_quantizer());
                }
            }
        }
    }

    void force_isa_switches_active_table() {
        force_isa(Isa::Scalar);
        QCOMPARE(&active_kernels(), &reference_kernels());
        for (Isa isa : kIsaTiers) {
            const KernelTable* table = kernels_for(isa);
            if (table == nullptr) {
                QVERIFY_THROWS_EXCEPTION(std::runtime_error, force_isa(isa));
                continue;
            }
            force_isa(isa);
            QCOMPARE(&active_kernels(), table);
        }
        if (kernels_for(Isa::Avx2)) QVERIFY(cpu_features().avx2_fma_f16c);
        QCOMPARE(kernels_for(Isa::Scalar), &reference_kernels());
    }

    // The vendor as CPUID gives it is the one Linux names (/proc/cpuinfo), and decode's
    // prefetch plan follows it: into L2 on Intel, into L1 elsewhere (decode_prefetch.cpp).
    void vendor_picks_the_decode_prefetch() {
        QFile cpuinfo("/proc/cpuinfo");
        if (!cpuinfo.open(QIODevice::ReadOnly)) QSKIP("no /proc/cpuinfo to compare the vendor with");
        const QString text = QString::fromLatin1(cpuinfo.readAll());
        const qsizetype at = text.indexOf("vendor_id");
        if (at < 0) QSKIP("/proc/cpuinfo names no vendor (not x86)");
        const QString line = text.mid(at, text.indexOf('\n', at) - at);
        QCOMPARE(cpu_features().intel, line.contains("GenuineIntel"));
        const DecodePrefetch& plan = decode_prefetch();
        QCOMPARE(plan.into_l2, cpu_features().intel);
        QVERIFY(plan.row_bytes_ahead >= 64 && plan.group_bytes_ahead >= 64);
    }
};

QTEST_MAIN(TestKernelDispatch)
#include "test_kernel_dispatch.moc"
