#pragma once
// How active_kernels() picks its instruction-set tier; pure functions over what the CPU
// offers, so that the HEARTH_ISA rules can be tested without a second process or CPU.
#include "kernels/kernel_table.h"
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hearth::kernels {

// Parses a tier name (case-insensitive): "scalar", "avx2", "avxvnni" (or "avx-vnni"),
// "avx512" (or "avx512vnni"), "amx" (or "avx512amx"); nullopt otherwise.
std::optional<Isa> isa_from_name(std::string_view name);

// A set of tiers.
class IsaSet {
public:
    constexpr IsaSet() = default;
    constexpr IsaSet(std::initializer_list<Isa> tiers) {
        for (Isa isa : tiers)
            add(isa);
    }
    constexpr void add(Isa isa) { bits_ |= 1u << static_cast<unsigned>(isa); }
    constexpr bool has(Isa isa) const { return (bits_ >> static_cast<unsigned>(isa)) & 1u; }

private:
    uint32_t bits_ = 0;
};

// The tier the engine prefers among those available: AMX, then AVX-512, then AVX-VNNI, then
// AVX2, then scalar (which is always available).
Isa best_isa(IsaSet available);

struct IsaChoice {
    Isa isa;
    std::string warning; // non-empty when the request could not be honoured
};

// The tier to use given the HEARTH_ISA value (nullptr or empty when unset) and the tiers this
// CPU and build run: the request when it can be met; a request that cannot be met gets the
// best available tier below it, an unknown name gets scalar, each with a warning; without a
// request, the best available.
IsaChoice choose_isa(const char* requested, IsaSet available);

// What the CPU offers, read from CPUID, with XGETBV for the register state the OS saves.
struct CpuFeatures {
    bool avx2_fma_f16c = false;    // and the OS saves ymm state
    bool avx_vnni = false;         // VEX vpdpbusd
    bool avx512_core_vnni = false; // F, BW, VL, DQ and VNNI, and the OS saves zmm and mask state
    bool avx512_bf16 = false;
    bool amx_tiles_hardware = false; // AMX-TILE, -BF16 and -INT8, and the OS saves tile state (XCR0)
    bool amx_bf16 = false;           // and the OS granted this process the tile data (arch_prctl)
    bool intel = false;              // the vendor is GenuineIntel
};
CpuFeatures cpu_features();

// The tiers a CPU with these features runs, given the tiers this build has kernels for.
IsaSet isas_supported_by(const CpuFeatures& cpu, IsaSet built);

} // namespace hearth::kernels
