// The AVX-512 tier's dot products of the 32-element formats: the shared VNNI source in this tier's namespace.
#define HEARTH_VNNI_NS avx512
#define HEARTH_AVX512 1
#include "kernels/x86_vnni_shared/vec_dot_q8_0_family.h"
