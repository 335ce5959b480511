// Shared by the VNNI tiers: included by x86_avxvnni/avxvnni_table.cpp and by
// x86_avx512/avx512_table.cpp, each of which names its tier's namespace (HEARTH_VNNI_NS).
// The candidates both VNNI tiers (AVX-VNNI and AVX-512) put in front of the AVX2 tier's. Only
// the kernels' addresses are taken; the file is compiled with the tier's flags, and reached only
// when the CPU runs the tier (kernel_table.cpp checks first).
#pragma once
#include "kernels/x86_vnni_shared/q8_0_family.h"
#include "kernels/x86_vnni_shared/vnni_kernels.h"

namespace hearth::kernels::HEARTH_VNNI_NS {

inline void add_vnni_kernels(KernelTable& table) {
    add_interleaved16_kernels(table);
    add_k_quant_kernels(table); // reads the decode over repacked rows above
    add_q8_0_family_kernels(table);
}

} // namespace hearth::kernels::HEARTH_VNNI_NS
