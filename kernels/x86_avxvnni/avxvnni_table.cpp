// The AVX-VNNI tier: the shared VNNI kernels in front of the AVX2 tier's candidates.
#define HEARTH_VNNI_NS avxvnni
#include "kernels/x86_vnni_shared/vnni_table.h"

namespace hearth::kernels::avxvnni {

void add_kernels(KernelTable& table) {
    add_vnni_kernels(table);
}

} // namespace hearth::kernels::avxvnni
