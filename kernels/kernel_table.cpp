// The tiers' tables, the names of their kernels and the run-time choice of instruction set.
#include "kernels/kernel_table.h"

#include "kernels/isa_select.h"
#include "kernels/reference/reference_kernels.h"
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

namespace hearth::kernels {

#if HEARTH_X86_KERNELS
// Each x86 tier puts its candidates in front of a copy of the tier below's (x86_*/..._table.cpp).
namespace avx2 {
void add_kernels(KernelTable& table);
}
namespace avxvnni {
void add_kernels(KernelTable& table);
}
namespace avx512 {
void add_kernels(KernelTable& table);
}
namespace amx {
void add_kernels(KernelTable& table);
}
#endif

namespace {

KernelTable build_reference_table() {
    KernelTable table;
    table.isa = Isa::Scalar;
    add_reference_kernels(table);
    return table;
}

char ascii_lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Tiers compiled into this build.
IsaSet built_isas() {
#if HEARTH_X86_KERNELS
    return {Isa::Scalar, Isa::Avx2, Isa::AvxVnni, Isa::Avx512, Isa::Amx};
#else
    return {Isa::Scalar};
#endif
}

IsaSet available_isas() {
    static const IsaSet available = isas_supported_by(cpu_features(), built_isas());
    return available;
}

// The tier a tier's table starts from: the kernels it does not have are those of this one.
Isa lower_tier(Isa isa) {
    switch (isa) {
    case Isa::Scalar:
    case Isa::Avx2:
        return Isa::Scalar;
    case Isa::AvxVnni:
    case Isa::Avx512:
        return Isa::Avx2;
    case Isa::Amx:
        return Isa::Avx512;
    }
    return Isa::Scalar;
}

const KernelTable* kernels_for_any_cpu(Isa isa);

#if HEARTH_X86_KERNELS
// A tier's table: the tier below it, with this tier's own candidates put in front. Building it
// only takes function addresses, so it is safe on a CPU that cannot run them.
KernelTable build_table(Isa isa) {
    KernelTable own = *kernels_for_any_cpu(lower_tier(isa));
    own.isa = isa;
    switch (isa) {
    case Isa::Avx2:
        avx2::add_kernels(own);
        break;
    case Isa::AvxVnni:
        avxvnni::add_kernels(own);
        break;
    case Isa::Avx512:
        avx512::add_kernels(own);
        break;
    case Isa::Amx:
        amx::add_kernels(own);
        break;
    case Isa::Scalar:
        break;
    }
    return own;
}
#endif

// The resolved table of a tier, whether or not this CPU runs it; null where the build has none.
const KernelTable* kernels_for_any_cpu(Isa isa) {
    if (isa == Isa::Scalar) return &reference_kernels();
#if HEARTH_X86_KERNELS
    // One static per tier, each built on first use: a tier's table is built from the tier
    // below it, so they cannot share one initialization.
    switch (isa) {
    case Isa::Avx2: {
        static const KernelTable avx2 = build_table(Isa::Avx2);
        return &avx2;
    }
    case Isa::AvxVnni: {
        static const KernelTable avxvnni = build_table(Isa::AvxVnni);
        return &avxvnni;
    }
    case Isa::Avx512: {
        static const KernelTable avx512 = build_table(Isa::Avx512);
        return &avx512;
    }
    case Isa::Amx: {
        static const KernelTable amx = build_table(Isa::Amx);
        return &amx;
    }
    case Isa::Scalar:
        break;
    }
#endif
    return nullptr;
}

std::atomic<const KernelTable*> g_active{nullptr};
std::once_flag g_chosen_from_environment;

} // namespace

std::string_view isa_name(Isa isa) {
    switch (isa) {
    case Isa::Scalar:
        return "scalar";
    case Isa::Avx2:
        return "avx2";
    case Isa::AvxVnni:
        return "avxvnni";
    case Isa::Avx512:
        return "avx512";
    case Isa::Amx:
        return "amx";
    }
    return "unknown";
}

std::string_view isa_requirements(Isa isa) {
    switch (isa) {
    case Isa::Scalar:
        return "nothing";
    case Isa::Avx2:
        return "AVX2, FMA and F16C";
    case Isa::AvxVnni:
        return "AVX2, FMA, F16C and AVX-VNNI";
    case Isa::Avx512:
        return "AVX-512 F/BW/VL/DQ and VNNI";
    case Isa::Amx:
        return "AVX-512 F/BW/VL/DQ, VNNI and BF16, and AMX-TILE, AMX-BF16 and AMX-INT8 granted by the OS";
    }
    return "unknown";
}

std::string_view backend_name(Backend backend) {
    return backend.device == Device::Vulkan ? "vulkan" : isa_name(backend.tier);
}

namespace {

// Kernel names, numbered in the order the tables are built: each (name, backend) once.
constexpr size_t kMaxKernelNames = 512;
struct KernelNames {
    std::mutex mutex;
    KernelName names[kMaxKernelNames] = {{"", cpu(Isa::Scalar)}}; // kUnnamedKernel
    std::atomic<size_t> count{1};
};
KernelNames& kernel_names() {
    static KernelNames names;
    return names;
}

} // namespace

KernelId kernel_id(std::string_view name, Backend backend) {
    KernelNames& all = kernel_names();
    std::lock_guard lock(all.mutex);
    const size_t count = all.count.load(std::memory_order_relaxed);
    for (size_t i = 0; i < count; ++i)
        if (all.names[i].name == name && all.names[i].backend == backend) return static_cast<KernelId>(i);
    if (count == kMaxKernelNames)
        throw std::logic_error("kernel table: more kernel names than kMaxKernelNames");
    all.names[count] = {name, backend};
    all.count.store(count + 1, std::memory_order_release);
    return static_cast<KernelId>(count);
}

KernelName kernel_name(KernelId id) {
    KernelNames& all = kernel_names();
    return id < all.count.load(std::memory_order_acquire) ? all.names[id] : all.names[kUnnamedKernel];
}

std::optional<Isa> isa_from_name(std::string_view name) {
    std::string lower(name);
    for (char& c : lower)
        c = ascii_lower(c);
    if (lower == "scalar") return Isa::Scalar;
    if (lower == "avx2") return Isa::Avx2;
    if (lower == "avxvnni" || lower == "avx-vnni") return Isa::AvxVnni;
    if (lower == "avx512" || lower == "avx512vnni" || lower == "avx-512") return Isa::Avx512;
    if (lower == "amx" || lower == "avx512amx") return Isa::Amx;
    return std::nullopt;
}

Isa best_isa(IsaSet available) {
    for (Isa isa : {Isa::Amx, Isa::Avx512, Isa::AvxVnni, Isa::Avx2})
        if (available.has(isa)) return isa;
    return Isa::Scalar;
}

IsaChoice choose_isa(const char* requested, IsaSet available) {
    available.add(Isa::Scalar);
    const Isa best = best_isa(available);
    if (requested == nullptr || *requested == '\0') return {best, {}};
    const std::optional<Isa> wanted = isa_from_name(requested);
    if (!wanted)
        return {Isa::Scalar, std::string("HEARTH_ISA=") + requested +
                                 " is not an instruction-set tier (scalar, avx2, avxvnni, avx512 or amx); "
                                 "using scalar kernels"};
    if (available.has(*wanted)) return {*wanted, {}};
    // The best available tier the request's own table would have fallen back to.
    Isa fallback = lower_tier(*wanted);
    while (!available.has(fallback))
        fallback = lower_tier(fallback);
    return {fallback, std::string("HEARTH_ISA=") + requested + ", but this CPU or build lacks " +
                          std::string(isa_requirements(*wanted)) + "; using " +
                          std::string(isa_name(fallback)) + " kernels"};
}

const KernelTable& reference_kernels() {
    static const KernelTable table = build_reference_table();
    return table;
}

const KernelTable* kernels_for(Isa isa) {
    if (!available_isas().has(isa)) return nullptr;
    return kernels_for_any_cpu(isa);
}

std::string isa_unavailable_reason(Isa isa) {
    if (available_isas().has(isa)) return {};
    if (!built_isas().has(isa))
        return "this build has no " + std::string(isa_name(isa)) + " kernels (not an x86-64 build)";
    // Name what is missing beyond the AVX-512 tier, or the AVX2 one, when the CPU has that.
    if (isa == Isa::Amx && cpu_features().avx512_core_vnni)
        return cpu_features().amx_tiles_hardware
                   ? "this CPU has AMX, but the OS did not grant this process the tile state"
                   : "this CPU has AVX-512 but not AMX-BF16 and AMX-INT8 with AVX-512 BF16";
    if (isa != Isa::Avx2 && cpu_features().avx2_fma_f16c)
        return isa == Isa::AvxVnni  ? "this CPU has AVX2 but not AVX-VNNI (VEX vpdpbusd)"
               : isa == Isa::Avx512 ? "this CPU has AVX2 but not AVX-512 F/BW/VL/DQ with VNNI"
                                    : "this CPU has AVX2 but not AVX-512 F/BW/VL/DQ with VNNI, nor AMX";
    return "this CPU lacks " + std::string(isa_requirements(isa));
}

const KernelTable& active_kernels() {
    std::call_once(g_chosen_from_environment, [] {
        if (g_active.load(std::memory_order_acquire) != nullptr) return; // force_isa came first
        const IsaChoice choice = choose_isa(std::getenv("HEARTH_ISA"), available_isas());
        if (!choice.warning.empty()) std::fprintf(stderr, "hearth: %s\n", choice.warning.c_str());
        const KernelTable* expected = nullptr;
        g_active.compare_exchange_strong(expected, kernels_for(choice.isa), std::memory_order_acq_rel);
    });
    return *g_active.load(std::memory_order_acquire);
}

void force_isa(Isa isa) {
    const KernelTable* table = kernels_for(isa);
    if (table == nullptr)
        throw std::runtime_error("the " + std::string(isa_name(isa)) +
                                 " kernels cannot run here: " + isa_unavailable_reason(isa));
    g_active.store(table, std::memory_order_release);
}

} // namespace hearth::kernels
