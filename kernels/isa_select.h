#pragma once
// How active_kernels() picks its instruction set; a pure function so that the
// HEARTH_ISA rules can be tested without a second process.
#include "kernels/kernel_table.h"
#include <optional>
#include <string>
#include <string_view>

namespace hearth::kernels {

// Parses "scalar" or "avx2" (case-insensitive); nullopt otherwise.
std::optional<Isa> isa_from_name(std::string_view name);

struct IsaChoice {
    Isa isa;
    std::string warning; // non-empty when the request could not be honoured
};

// The ISA to use given the HEARTH_ISA value (nullptr or empty when unset) and whether this
// CPU and build can run AVX2: the request when it can be met, else scalar with a warning;
// without a request, the best available.
IsaChoice choose_isa(const char* requested, bool avx2_available);

// Whether the CPU has AVX2, FMA and F16C (what the AVX2 kernels are compiled for).
bool cpu_has_avx2_fma_f16c();

} // namespace hearth::kernels
