// The scalar reference table and the run-time choice of instruction set.
#include "kernels/kernel_table.h"

#include "kernels/isa_select.h"
#include "kernels/reference/reference_kernels.h"
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

namespace hearth::kernels {

#if HEARTH_X86_KERNELS
// Each x86 tier adds its kernels to a copy of the tier below it (x86_*/..._table.cpp).
namespace avx2 {
void add_kernels(KernelTable& table);
}
namespace avxvnni {
void add_kernels(KernelTable& table);
}
namespace avx512 {
void add_kernels(KernelTable& table);
}
namespace amx {
void add_kernels(KernelTable& table);
}
#endif

namespace {

KernelTable build_reference_table() {
    KernelTable table;
    table.isa = Isa::Scalar;
    const auto set = [&table](TensorType type, TensorType activation, QuantizeRowFn quantize,
                              DequantizeRowFn dequantize, VecDotFn vec_dot) {
        TypeKernels& k = table.of(type);
        k.isa = Isa::Scalar;
        k.activation_type = activation;
        k.quantize = quantize;
        k.dequantize = dequantize;
        k.vec_dot = vec_dot;
        k.gemm = nullptr; // matmul loops vec_dot over the batch
    };
    using T = TensorType;
    set(T::F32, T::F32, quantize_row_f32_ref, dequantize_row_f32_ref, vec_dot_f32_f32_ref);
    set(T::F16, T::F16, quantize_row_f16_ref, dequantize_row_f16_ref, vec_dot_f16_f16_ref);
    set(T::BF16, T::BF16, quantize_row_bf16_ref, dequantize_row_bf16_ref, vec_dot_bf16_bf16_ref);
    set(T::Q4_0, T::Q8_0, quantize_row_q4_0_ref, dequantize_row_q4_0_ref, vec_dot_q4_0_q8_0_ref);
    set(T::Q4_1, T::Q8_0, quantize_row_q4_1_ref, dequantize_row_q4_1_ref, vec_dot_q4_1_q8_0_ref);
    set(T::Q5_0, T::Q8_0, quantize_row_q5_0_ref, dequantize_row_q5_0_ref, vec_dot_q5_0_q8_0_ref);
    set(T::Q5_1, T::Q8_0, quantize_row_q5_1_ref, dequantize_row_q5_1_ref, vec_dot_q5_1_q8_0_ref);
    set(T::Q8_0, T::Q8_0, quantize_row_q8_0_ref, dequantize_row_q8_0_ref, vec_dot_q8_0_q8_0_ref);
    set(T::Q2_K, T::Q8_K, quantize_row_q2_K_ref, dequantize_row_q2_K_ref, vec_dot_q2_K_q8_K_ref);
    set(T::Q3_K, T::Q8_K, quantize_row_q3_K_ref, dequantize_row_q3_K_ref, vec_dot_q3_K_q8_K_ref);
    set(T::Q4_K, T::Q8_K, quantize_row_q4_K_ref, dequantize_row_q4_K_ref, vec_dot_q4_K_q8_K_ref);
    set(T::Q5_K, T::Q8_K, quantize_row_q5_K_ref, dequantize_row_q5_K_ref, vec_dot_q5_K_q8_K_ref);
    set(T::Q6_K, T::Q8_K, quantize_row_q6_K_ref, dequantize_row_q6_K_ref, vec_dot_q6_K_q8_K_ref);
    set(T::Q8_K, T::Q8_K, quantize_row_q8_K_ref, dequantize_row_q8_K_ref, vec_dot_q8_K_q8_K_ref);
    table.of(T::Q8_0).quantize_activations = quantize_row_q8_0_activations_ref;
    add_interleaved16_ref_kernels(table);
    table.attend_f16 = attend_f16_ref;
    table.attend_group_f16 = attend_group_f16_ref;
    table.attend_group = attend_group_ref;
    table.attend_group_limited = attend_group_limited_ref;
    table.attention_isa = [](int64_t, int64_t, bool) { return Isa::Scalar; };
    table.swiglu = swiglu_ref;
    return table;
}

char ascii_lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Fills what `table` lacks from `lower`: a type without a dot product is taken whole (its
// activation format goes with its dot product); a missing quantizer or dequantizer of a type
// it has is taken alone (the block layout is the same in every tier). A tier that sets a type
// sets it whole (TypeKernels' fields it leaves null are filled here).
void resolve_from(KernelTable& table, const KernelTable& lower) {
    for (size_t raw = 0; raw < kTensorTypeSlots; ++raw) {
        TypeKernels& mine = table.by_type[raw];
        const TypeKernels& below = lower.by_type[raw];
        if (mine.vec_dot == nullptr) {
            const TypeKernels kept = mine;
            mine = below;
            if (kept.quantize) mine.quantize = kept.quantize;
            if (kept.dequantize) mine.dequantize = kept.dequantize;
            if (kept.quantize_activations) mine.quantize_activations = kept.quantize_activations;
            continue;
        }
        if (!mine.quantize) mine.quantize = below.quantize;
        if (!mine.dequantize) mine.dequantize = below.dequantize;
        if (!mine.quantize_activations) mine.quantize_activations = below.quantize_activations;
    }
    if (!table.attend_f16) table.attend_f16 = lower.attend_f16;
    if (!table.attend_group_f16) table.attend_group_f16 = lower.attend_group_f16;
    if (!table.attend_group) table.attend_group = lower.attend_group;
    if (!table.attend_group_limited) table.attend_group_limited = lower.attend_group_limited;
    if (!table.attention_isa) table.attention_isa = lower.attention_isa;
    if (!table.swiglu) table.swiglu = lower.swiglu;
}

// Tiers compiled into this build.
IsaSet built_isas() {
#if HEARTH_X86_KERNELS
    return {Isa::Scalar, Isa::Avx2, Isa::AvxVnni, Isa::Avx512, Isa::Amx};
#else
    return {Isa::Scalar};
#endif
}

IsaSet available_isas() {
    static const IsaSet available = isas_supported_by(cpu_features(), built_isas());
    return available;
}

// The tier a tier's table starts from: the kernels it does not have are those of this one.
Isa lower_tier(Isa isa) {
    switch (isa) {
    case Isa::Scalar:
    case Isa::Avx2:
        return Isa::Scalar;
    case Isa::AvxVnni:
    case Isa::Avx512:
        return Isa::Avx2;
    case Isa::Amx:
        return Isa::Avx512;
    }
    return Isa::Scalar;
}

const KernelTable* kernels_for_any_cpu(Isa isa);

#if HEARTH_X86_KERNELS
// A tier's table: the tier below it, with this tier's own kernels put over it. Building it
// only takes function addresses, so it is safe on a CPU that cannot run them. A type any of
// whose kernels the tier replaced (an activation format may bring only its quantizer) is marked
// as the tier's, so the metrics name the tier that ran.
KernelTable build_table(Isa isa) {
    const KernelTable& lower = *kernels_for_any_cpu(lower_tier(isa));
    KernelTable own = lower;
    own.isa = isa;
    switch (isa) {
    case Isa::Avx2:
        avx2::add_kernels(own);
        break;
    case Isa::AvxVnni:
        avxvnni::add_kernels(own);
        break;
    case Isa::Avx512:
        avx512::add_kernels(own);
        break;
    case Isa::Amx:
        amx::add_kernels(own);
        break;
    case Isa::Scalar:
        break;
    }
    resolve_from(own, lower);
    for (size_t raw = 0; raw < kTensorTypeSlots; ++raw) {
        TypeKernels& mine = own.by_type[raw];
        const TypeKernels& below = lower.by_type[raw];
        const bool replaced = mine.vec_dot != below.vec_dot || mine.gemm != below.gemm ||
                              mine.gemm_rows_multiple_of_8 != below.gemm_rows_multiple_of_8 ||
                              mine.gemv_interleaved16 != below.gemv_interleaved16 ||
                              mine.gemm_interleaved16 != below.gemm_interleaved16 ||
                              mine.gemm_bf16_tiles != below.gemm_bf16_tiles ||
                              mine.gemm_bf16_tiles_interleaved16 != below.gemm_bf16_tiles_interleaved16 ||
                              mine.quantize != below.quantize ||
                              mine.quantize_activations != below.quantize_activations;
        mine.isa = replaced ? isa : below.isa;
        // A tier may replace a type's dot products and keep the tier below's quantizer (the
        // VNNI tiers' 32-element formats keep AVX2's): the metrics name the code that ran.
        mine.activation_quantizer_isa = mine.activation_quantizer() == below.activation_quantizer()
                                            ? below.activation_quantizer_isa
                                            : isa;
    }
    return own;
}
#endif

// The resolved table of a tier, whether or not this CPU runs it; null where the build has none.
const KernelTable* kernels_for_any_cpu(Isa isa) {
    if (isa == Isa::Scalar) return &reference_kernels();
#if HEARTH_X86_KERNELS
    // One static per tier, each built on first use: a tier's table is built from the tier
    // below it, so they cannot share one initialization.
    switch (isa) {
    case Isa::Avx2: {
        static const KernelTable avx2 = build_table(Isa::Avx2);
        return &avx2;
    }
    case Isa::AvxVnni: {
        static const KernelTable avxvnni = build_table(Isa::AvxVnni);
        return &avxvnni;
    }
    case Isa::Avx512: {
        static const KernelTable avx512 = build_table(Isa::Avx512);
        return &avx512;
    }
    case Isa::Amx: {
        static const KernelTable amx = build_table(Isa::Amx);
        return &amx;
    }
    case Isa::Scalar:
        break;
    }
#endif
    return nullptr;
}

std::atomic<const KernelTable*> g_active{nullptr};
std::once_flag g_chosen_from_environment;

} // namespace

std::string_view isa_name(Isa isa) {
    switch (isa) {
    case Isa::Scalar:
        return "scalar";
    case Isa::Avx2:
        return "avx2";
    case Isa::AvxVnni:
        return "avxvnni";
    case Isa::Avx512:
        return "avx512";
    case Isa::Amx:
        return "amx";
    }
    return "unknown";
}

std::string_view isa_requirements(Isa isa) {
    switch (isa) {
    case Isa::Scalar:
        return "nothing";
    case Isa::Avx2:
        return "AVX2, FMA and F16C";
    case Isa::AvxVnni:
        return "AVX2, FMA, F16C and AVX-VNNI";
    case Isa::Avx512:
        return "AVX-512 F/BW/VL/DQ and VNNI";
    case Isa::Amx:
        return "AVX-512 F/BW/VL/DQ, VNNI and BF16, and AMX-TILE, AMX-BF16 and AMX-INT8 granted by the OS";
    }
    return "unknown";
}

std::optional<Isa> isa_from_name(std::string_view name) {
    std::string lower(name);
    for (char& c : lower)
        c = ascii_lower(c);
    if (lower == "scalar") return Isa::Scalar;
    if (lower == "avx2") return Isa::Avx2;
    if (lower == "avxvnni" || lower == "avx-vnni") return Isa::AvxVnni;
    if (lower == "avx512" || lower == "avx512vnni" || lower == "avx-512") return Isa::Avx512;
    if (lower == "amx" || lower == "avx512amx") return Isa::Amx;
    return std::nullopt;
}

Isa best_isa(IsaSet available) {
    for (Isa isa : {Isa::Amx, Isa::Avx512, Isa::AvxVnni, Isa::Avx2})
        if (available.has(isa)) return isa;
    return Isa::Scalar;
}

IsaChoice choose_isa(const char* requested, IsaSet available) {
    available.add(Isa::Scalar);
    const Isa best = best_isa(available);
    if (requested == nullptr || *requested == '\0') return {best, {}};
    const std::optional<Isa> wanted = isa_from_name(requested);
    if (!wanted)
        return {Isa::Scalar, std::string("HEARTH_ISA=") + requested +
                                 " is not an instruction-set tier (scalar, avx2, avxvnni, avx512 or amx); "
                                 "using scalar kernels"};
    if (available.has(*wanted)) return {*wanted, {}};
    // The best available tier the request's own table would have fallen back to.
    Isa fallback = lower_tier(*wanted);
    while (!available.has(fallback))
        fallback = lower_tier(fallback);
    return {fallback, std::string("HEARTH_ISA=") + requested + ", but this CPU or build lacks " +
                          std::string(isa_requirements(*wanted)) + "; using " +
                          std::string(isa_name(fallback)) + " kernels"};
}

const KernelTable& reference_kernels() {
    static const KernelTable table = build_reference_table();
    return table;
}

const KernelTable* kernels_for(Isa isa) {
    if (!available_isas().has(isa)) return nullptr;
    return kernels_for_any_cpu(isa);
}

std::string isa_unavailable_reason(Isa isa) {
    if (available_isas().has(isa)) return {};
    if (!built_isas().has(isa))
        return "this build has no " + std::string(isa_name(isa)) + " kernels (not an x86-64 build)";
    // Name what is missing beyond the AVX-512 tier, or the AVX2 one, when the CPU has that.
    if (isa == Isa::Amx && cpu_features().avx512_core_vnni)
        return cpu_features().amx_tiles_hardware
                   ? "this CPU has AMX, but the OS did not grant this process the tile state"
                   : "this CPU has AVX-512 but not AMX-BF16 and AMX-INT8 with AVX-512 BF16";
    if (isa != Isa::Avx2 && cpu_features().avx2_fma_f16c)
        return isa == Isa::AvxVnni  ? "this CPU has AVX2 but not AVX-VNNI (VEX vpdpbusd)"
               : isa == Isa::Avx512 ? "this CPU has AVX2 but not AVX-512 F/BW/VL/DQ with VNNI"
                                    : "this CPU has AVX2 but not AVX-512 F/BW/VL/DQ with VNNI, nor AMX";
    return "this CPU lacks " + std::string(isa_requirements(isa));
}

const KernelTable& active_kernels() {
    std::call_once(g_chosen_from_environment, [] {
        if (g_active.load(std::memory_order_acquire) != nullptr) return; // force_isa came first
        const IsaChoice choice = choose_isa(std::getenv("HEARTH_ISA"), available_isas());
        if (!choice.warning.empty()) std::fprintf(stderr, "hearth: %s\n", choice.warning.c_str());
        const KernelTable* expected = nullptr;
        g_active.compare_exchange_strong(expected, kernels_for(choice.isa), std::memory_order_acq_rel);
    });
    return *g_active.load(std::memory_order_acquire);
}

void force_isa(Isa isa) {
    const KernelTable* table = kernels_for(isa);
    if (table == nullptr)
        throw std::runtime_error("the " + std::string(isa_name(isa)) +
                                 " kernels cannot run here: " + isa_unavailable_reason(isa));
    g_active.store(table, std::memory_order_release);
}

} // namespace hearth::kernels
