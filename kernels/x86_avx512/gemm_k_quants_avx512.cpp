// The AVX-512 tier's Q2_K to Q6_K prefill: the shared VNNI source in this tier's namespace.
#define HEARTH_VNNI_NS avx512
#define HEARTH_AVX512 1
#include "kernels/x86_vnni_shared/gemm_k_quants.h"
