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

// Defined by the AVX2 kernels (kernels/x86_avx2/avx2_table.cpp); nullptr while they are not built.
// A null entry in that table means "use the reference kernel": matmul falls back per type.
const KernelTable* avx2_kernel_table();

namespace {

KernelTable build_reference_table() {
    KernelTable table;
    table.isa = Isa::Scalar;
    const auto set = [&table](TensorType type, TensorType activation, QuantizeRowFn quantize,
                              DequantizeRowFn dequantize, VecDotFn vec_dot) {
        TypeKernels& k = table.by_type[static_cast<uint32_t>(type)];
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
    table.by_type[static_cast<uint32_t>(T::Q8_0)].quantize_activations = quantize_row_q8_0_activations_ref;
    table.attend_f16 = attend_f16_ref;
    table.attend_group_f16 = attend_group_f16_ref;
    table.swiglu = swiglu_ref;
    return table;
}

char ascii_lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool avx2_usable() {
    return cpu_has_avx2_fma_f16c() && avx2_kernel_table() != nullptr;
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
    }
    return "unknown";
}

std::optional<Isa> isa_from_name(std::string_view name) {
    std::string lower(name);
    for (char& c : lower)
        c = ascii_lower(c);
    if (lower == "scalar") return Isa::Scalar;
    if (lower == "avx2") return Isa::Avx2;
    return std::nullopt;
}

bool cpu_has_avx2_fma_f16c() {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
#else
    return false;
#endif
}

IsaChoice choose_isa(const char* requested, bool avx2_available) {
    const Isa best = avx2_available ? Isa::Avx2 : Isa::Scalar;
    if (requested == nullptr || *requested == '\0') return {best, {}};
    const std::optional<Isa> wanted = isa_from_name(requested);
    if (!wanted)
        return {Isa::Scalar, std::string("HEARTH_ISA=") + requested +
                                 " is not an instruction set (scalar or avx2); using scalar kernels"};
    if (*wanted == Isa::Avx2 && !avx2_available)
        return {Isa::Scalar, "HEARTH_ISA=avx2, but this CPU or build cannot run the AVX2 kernels; "
                             "using scalar kernels"};
    return {*wanted, {}};
}

const KernelTable& reference_kernels() {
    static const KernelTable table = build_reference_table();
    return table;
}

const KernelTable* kernels_for(Isa isa) {
    switch (isa) {
    case Isa::Scalar:
        return &reference_kernels();
    case Isa::Avx2:
        return avx2_usable() ? avx2_kernel_table() : nullptr;
    }
    return nullptr;
}

const KernelTable& active_kernels() {
    std::call_once(g_chosen_from_environment, [] {
        if (g_active.load(std::memory_order_acquire) != nullptr) return; // force_isa came first
        const IsaChoice choice = choose_isa(std::getenv("HEARTH_ISA"), avx2_usable());
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
                                 " kernels cannot run on this CPU or build");
    g_active.store(table, std::memory_order_release);
}

} // namespace hearth::kernels
