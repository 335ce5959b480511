// The kernel tables (their candidates, in order, with guards) and the run-time choice of
// instruction set.
#include "kernels/decode_prefetch.h"
#include "kernels/interleaved_rows.h"
#include "kernels/isa_select.h"
#include "kernels/kernel_table.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/tensor_type.h"

#include <QFile>
#include <QTest>
#include <algorithm>
#include <stdexcept>

using namespace hearth::kernels;

namespace {

constexpr TensorType kWeightTypes[] = {TensorType::F32,  TensorType::F16,  TensorType::BF16, TensorType::Q4_0,
                                       TensorType::Q4_1, TensorType::Q5_0, TensorType::Q5_1, TensorType::Q8_0,
                                       TensorType::Q2_K, TensorType::Q3_K, TensorType::Q4_K, TensorType::Q5_K,
                                       TensorType::Q6_K, TensorType::Q8_K};

} // namespace

class TestKernelDispatch : public QObject {
    Q_OBJECT
private slots:
    void cleanupTestCase() { force_isa(Isa::Scalar); }

    void reference_table_is_complete() {
        const KernelTable& table = reference_kernels();
        QCOMPARE(table.isa, Isa::Scalar);
        for (TensorType t : kWeightTypes) {
            const TypeCandidates& k = table.of(t);
            QVERIFY(k.quantize.fn() == reference_ops(t).quantize);
            QVERIFY(k.dequantize.fn() == reference_ops(t).dequantize);
            QVERIFY(table.multiplies(t));
            // The activations can be quantized (F32 ones are read as they are).
            for (const Candidate<GemmFn>& c : k.matmul) {
                QCOMPARE(c.backend, cpu(Isa::Scalar));
                QCOMPARE(c.activation_type, reference_ops(t).activation_type);
                if (c.activation_type != TensorType::F32)
                    QVERIFY(table.of(c.activation_type).quantize_activations.fn() ==
                            reference_ops(c.activation_type).quantize_activations);
            }
        }
        QVERIFY(!table.multiplies(TensorType::Q8_1)); // not a weight type we run
        QVERIFY(table.attention.fn() != nullptr && table.swiglu.fn() != nullptr);
    }

    // Candidates go in front of the tier below's, kernels of repacked rows before those of
    // row-major rows, and one an earlier candidate covers is dropped.
    void put_first_orders_and_drops() {
        const auto c = [](std::string_view name, Guard guard) {
            return Candidate<GemmFn>{.name = name, .backend = cpu(Isa::Scalar), .guard = guard};
        };
        const auto names = [](const Candidates<GemmFn>& list) {
            std::string out;
            for (const Candidate<GemmFn>& k : list)
                out += std::string(k.name) + " ";
            return out;
        };
        Candidates<GemmFn> list;
        list.put_first({c("any", {})});
        list.put_first({c("prefill", {.min_batch = 16})});
        QCOMPARE(names(list), std::string("prefill any "));
        list.put_first({c("decode_repacked", {.max_batch = 1, .layout = RowLayout::Interleaved16})});
        QCOMPARE(names(list), std::string("decode_repacked prefill any "));
        // Covers decode_repacked (any batch of repacked rows) but not the row-major ones.
        list.put_first(
            {c("repacked", {.layout = RowLayout::Interleaved16}), c("rows_of_8", {.row_multiple = 8})});
        QCOMPARE(names(list), std::string("repacked rows_of_8 prefill any "));
        list.put_first({c("everything", {})});
        QCOMPARE(names(list), std::string("repacked everything "));
        list.remove("repacked");
        QCOMPARE(names(list), std::string("everything "));
        // A device's kernel covers no CPU kernel, nor the other way round.
        Candidate<GemmFn> gpu = c("gpu", {});
        gpu.backend = {Device::Vulkan, Isa::Scalar};
        list.put_first({gpu});
        QCOMPARE(names(list), std::string("gpu everything "));
        QCOMPARE(list.pick({})->name, std::string_view("everything"));
        QCOMPARE(list.pick({.device = Device::Vulkan})->name, std::string_view("gpu"));
        QCOMPARE(backend_name(gpu.backend), std::string_view("vulkan"));
        QCOMPARE(backend_name(cpu(Isa::Avx512)), std::string_view("avx512"));
    }

    // A device's guards: the features a kernel needs, the keys attention reads and the
    // workgroups of one pass; a candidate needing fewer features covers one needing more.
    void device_guards() {
        const Guard subgroups{.features = kSubgroupArithmetic};
        QVERIFY(subgroups.holds({.features = kSubgroupArithmetic}));
        QVERIFY(!subgroups.holds({.features = 0}));
        QVERIFY(Guard{}.holds({.features = kSubgroupArithmetic}));
        QVERIFY(Guard{}.covers(subgroups));
        QVERIFY(!subgroups.covers(Guard{}));
        const Guard split{.min_keys = 256, .max_workgroups = 127};
        QVERIFY(split.holds({.keys = 256, .workgroups = 127}));
        QVERIFY(!split.holds({.keys = 255, .workgroups = 1}));
        QVERIFY(!split.holds({.keys = 4096, .workgroups = 128}));
        QVERIFY(Guard{}.holds({.keys = 0, .workgroups = 100000}));
        QVERIFY(Guard{}.covers(split));
        QVERIFY(!split.covers(Guard{}));
        QVERIFY(Guard{.min_keys = 128}.covers(split) && !split.covers(Guard{.min_keys = 128}));
        // pick: the first whose guard holds.
        Candidates<GemmFn> list;
        const Backend gpu{Device::Vulkan, Isa::Scalar};
        list.put_first({{.name = "with_subgroups", .backend = gpu, .guard = subgroups},
                        {.name = "without", .backend = gpu, .guard = {}}});
        QCOMPARE(list.size(), 2);
        QCOMPARE(list.pick({.device = Device::Vulkan, .features = kSubgroupArithmetic})->name,
                 std::string_view("with_subgroups"));
        QCOMPARE(list.pick({.device = Device::Vulkan})->name, std::string_view("without"));
        QVERIFY(list.pick({}) == nullptr); // a CPU call
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

    // Each tier this CPU runs has a complete table: every operation of every type the reference
    // runs has candidates, of this tier or those below it, that together take every call; no
    // candidate is unreachable. The others are null, with a reason. The log lists which tiers ran.
    void every_available_table_is_complete() {
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
            const auto own_or_below = [isa](Backend b) {
                return b.device == Device::Cpu && static_cast<int>(b.tier) <= static_cast<int>(isa);
            };
            for (TensorType t : kWeightTypes) {
                const TypeCandidates& k = table->of(t);
                QString order;
                for (const Candidate<GemmFn>& c : k.matmul)
                    order +=
                        QString(" %1:%2").arg(backend_name(c.backend).data(), std::string(c.name).c_str());
                qInfo("  %s matmul:%s", type_traits(t).name.data(), qPrintable(order));
                QVERIFY(k.quantize.fn() && k.dequantize.fn());
                QVERIFY(own_or_below(k.quantize.begin()->backend) &&
                        own_or_below(k.dequantize.begin()->backend));
                const bool repackable =
                    t == TensorType::Q4_K || t == TensorType::Q6_K || t == TensorType::Q8_0;
                for (RowLayout layout : {RowLayout::RowMajor, RowLayout::Interleaved16}) {
                    if (layout == RowLayout::Interleaved16 && !repackable) continue;
                    for (int64_t batch = 1; batch <= 70; ++batch) {
                        const Candidate<GemmFn>* c =
                            k.matmul.pick({.batch = batch, .rows = 48, .width = 768, .layout = layout});
                        QVERIFY2(c != nullptr, qPrintable(QString("%1 batch %2: no kernel")
                                                              .arg(type_traits(t).name.data())
                                                              .arg(batch)));
                    }
                }
                for (const Candidate<GemmFn>& c : k.matmul) {
                    QVERIFY(own_or_below(c.backend));
                    QVERIFY(kernel_name(c.id).name == c.name && kernel_name(c.id).backend == c.backend);
                    if (c.activation_type != TensorType::F32)
                        QVERIFY(table->of(c.activation_type).quantize_activations.fn() != nullptr);
                }
                // Each verify-pass kernel names a decode kernel of its backend that the type has.
                for (const Candidate<GemmFn>& c : k.matmul_as_decode) {
                    QVERIFY(own_or_below(c.backend));
                    QVERIFY(kernel_name(c.id).name == c.name && kernel_name(c.id).backend == c.backend);
                    const bool names_a_decode_kernel =
                        std::any_of(k.matmul.begin(), k.matmul.end(), [&](const Candidate<GemmFn>& d) {
                            return d.name == c.rows_as_decode_of && d.backend == c.backend &&
                                   d.guard.min_batch == 1;
                        });
                    QVERIFY2(names_a_decode_kernel, qPrintable(QString("%1: %2 follows no decode kernel %3")
                                                                   .arg(type_traits(t).name.data())
                                                                   .arg(c.name.data())
                                                                   .arg(c.rows_as_decode_of.data())));
                }
                // No candidate is covered by one before it.
                for (auto later = k.matmul.begin(); later != k.matmul.end(); ++later)
                    for (auto earlier = k.matmul.begin(); earlier != later; ++earlier)
                        QVERIFY2(!earlier->guard.covers(later->guard),
                                 qPrintable(QString("%1: %2 hides %3")
                                                .arg(type_traits(t).name.data())
                                                .arg(earlier->name.data())
                                                .arg(later->name.data())));
            }
            for (int64_t head_dim : {32, 40, 64, 80, 96, 128, 256, 512})
                for (int64_t positions : {1, 2, 9, 73})
                    for (bool f16 : {true, false})
                        QVERIFY(
                            table->attention.pick({.batch = positions, .width = head_dim, .f16_cache = f16}));
            QVERIFY(table->swiglu.fn() != nullptr);
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
        QVERIFY(plan.row_bytes_ahead >= 64 && plan.group_bytes_ahead % 64 == 0);
        // Repacked groups: ahead on Intel, each super-block's own lines as it starts elsewhere.
        QCOMPARE(plan.group_bytes_ahead > 0, cpu_features().intel);
        // Row-major rows: all of them on Intel; elsewhere only rows short enough that a row's
        // lines asked for at once do not hold up its loads.
        QCOMPARE(plan.longest_prefetched_row == SIZE_MAX, cpu_features().intel);
        if (!cpu_features().intel) QVERIFY(plan.longest_prefetched_row >= plan.row_bytes_ahead);
        // Repacked super-blocks: all of them on Intel; elsewhere Q4_K's, not Q6_K's.
        QCOMPARE(plan.longest_prefetched_block == SIZE_MAX, cpu_features().intel);
        if (!cpu_features().intel) {
            QVERIFY(plan.longest_prefetched_block >= sizeof(InterleavedQ4_K));
            QVERIFY(plan.longest_prefetched_block < sizeof(InterleavedQ6_K));
        }
    }
};

QTEST_MAIN(TestKernelDispatch)
#include "test_kernel_dispatch.moc"
