// The AVX-VNNI tier's decode over repacked 16-row groups: the shared VNNI source in this tier's namespace.
#define HEARTH_VNNI_NS avxvnni
#include "kernels/x86_vnni_shared/gemv_interleaved16.h"
