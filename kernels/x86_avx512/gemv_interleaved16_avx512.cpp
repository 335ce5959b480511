// The AVX-512 tier's decode over repacked 16-row groups: the shared VNNI source in this tier's namespace.
#define HEARTH_VNNI_NS avx512
#define HEARTH_AVX512 1
#include "kernels/x86_vnni_shared/gemv_interleaved16.h"
