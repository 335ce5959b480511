// CPUID and XGETBV: which instruction-set extensions the CPU has and the OS enables.
#include "kernels/isa_select.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace hearth::kernels {

#if defined(__x86_64__) || defined(__i386__)
namespace {

struct Registers {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Registers cpuid(unsigned leaf, unsigned subleaf) {
    Registers r;
    if (!__get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx)) return {};
    return r;
}

bool bit(unsigned reg, int n) {
    return (reg >> n) & 1u;
}

// XCR0: the register state the OS saves on a context switch. Read only when OSXSAVE is set.
uint64_t xcr0() {
    unsigned eax = 0, edx = 0;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return (static_cast<uint64_t>(edx) << 32) | eax;
}

// Linux lends the AMX tile data (8 KiB of state per thread) only to a process that asks for it:
// once granted, every thread of the process may use the tiles. True when granted.
bool request_amx_tile_data() {
#if defined(__linux__) && defined(__x86_64__)
    constexpr long kArchRequestXcompPermission = 0x1023; // ARCH_REQ_XCOMP_PERM
    constexpr long kXfeatureTileData = 18;               // XFEATURE_XTILEDATA
    return syscall(SYS_arch_prctl, kArchRequestXcompPermission, kXfeatureTileData) == 0;
#else
    return false;
#endif
}

} // namespace

CpuFeatures cpu_features() {
    CpuFeatures f;
    const Registers leaf0 = cpuid(0, 0); // the vendor string in EBX, EDX, ECX
    f.intel = leaf0.ebx == 0x756e6547 && leaf0.edx == 0x49656e69 && leaf0.ecx == 0x6c65746e;
    const Registers leaf1 = cpuid(1, 0);
    if (!bit(leaf1.ecx, 27)) return f; // OSXSAVE: without it XGETBV faults
    const uint64_t xcr = xcr0();
    const bool ymm_saved = (xcr & 0x6) == 0x6;   // SSE and AVX state
    const bool zmm_saved = (xcr & 0xE6) == 0xE6; // plus opmask, ZMM_Hi256, Hi16_ZMM
    const bool fma = bit(leaf1.ecx, 12), f16c = bit(leaf1.ecx, 29), avx = bit(leaf1.ecx, 28);
    const Registers leaf7 = cpuid(7, 0);
    const Registers leaf7_1 = cpuid(7, 1);
    const bool avx2 = bit(leaf7.ebx, 5);
    f.avx2_fma_f16c = ymm_saved && avx && avx2 && fma && f16c;
    f.avx_vnni = f.avx2_fma_f16c && bit(leaf7_1.eax, 4);
    const bool avx512f = bit(leaf7.ebx, 16), avx512dq = bit(leaf7.ebx, 17), avx512bw = bit(leaf7.ebx, 30),
               avx512vl = bit(leaf7.ebx, 31), avx512vnni = bit(leaf7.ecx, 11);
    f.avx512_core_vnni =
        f.avx2_fma_f16c && zmm_saved && avx512f && avx512dq && avx512bw && avx512vl && avx512vnni;
    f.avx512_bf16 = f.avx512_core_vnni && bit(leaf7_1.eax, 5);
    const bool tiles_saved = (xcr & 0x60000) == 0x60000; // XTILECFG and XTILEDATA
    // AMX-TILE (bit 24), AMX-BF16 (22) and AMX-INT8 (25): every CPU with AMX so far has all three.
    f.amx_tiles_hardware =
        f.avx512_bf16 && tiles_saved && bit(leaf7.edx, 24) && bit(leaf7.edx, 22) && bit(leaf7.edx, 25);
    // Asked once per process: cpu_features() runs again for each tier's reason and for `info`.
    static const bool tile_data_granted = f.amx_tiles_hardware && request_amx_tile_data();
    f.amx_bf16 = tile_data_granted;
    return f;
}

#else

CpuFeatures cpu_features() {
    return {};
}

#endif

IsaSet isas_supported_by(const CpuFeatures& cpu, IsaSet built) {
    IsaSet tiers{Isa::Scalar};
    if (built.has(Isa::Avx2) && cpu.avx2_fma_f16c) tiers.add(Isa::Avx2);
    if (built.has(Isa::AvxVnni) && cpu.avx_vnni) tiers.add(Isa::AvxVnni);
    if (built.has(Isa::Avx512) && cpu.avx512_core_vnni) tiers.add(Isa::Avx512);
    if (built.has(Isa::Amx) && cpu.avx512_core_vnni && cpu.amx_bf16) tiers.add(Isa::Amx);
    return tiers;
}

} // namespace hearth::kernels
