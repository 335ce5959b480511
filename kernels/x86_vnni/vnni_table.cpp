// The VNNI tiers' own kernels (AVX-VNNI and AVX-512). Built only when the CPU runs the tier
// (kernel_table.cpp checks first), so it may be compiled with the tier's flags.
#include "kernels/x86_vnni/vnni_kernels.h"

namespace hearth::kernels::HEARTH_VNNI_NS {

void add_kernels(KernelTable& table) {
    add_k_quant_kernels(table);
}

} // namespace hearth::kernels::HEARTH_VNNI_NS
