// The AVX-VNNI tier's dot products of the 32-element formats: the shared VNNI source in this tier's
// namespace.
#define HEARTH_VNNI_NS avxvnni
#include "kernels/x86_vnni_shared/vec_dot_q8_0_family.h"
