// The scalar table: every operation of every type the engine runs, in portable C++. A matmul
// is the type's dot product per (row, activation row); F32 batches sum as llama.cpp's do.
#include "kernels/f32_batched_dot.h"
#include "kernels/gemm_by_rows.h"
#include "kernels/reference/reference_kernels.h"

namespace hearth::kernels {
namespace {

struct TypeEntry {
    TensorType type;
    TensorType activation_type;
    QuantizeRowFn quantize;
    std::string_view quantize_name;
    DequantizeRowFn dequantize;
    std::string_view dequantize_name;
    VecDotFn vec_dot;
    std::string_view dot_name;
    GemmFn gemm; // gemm_by_dot<vec_dot>
};

#define HEARTH_REFERENCE_TYPE(type, activation, name, dot)                                                   \
    TypeEntry {                                                                                              \
        TensorType::type, TensorType::activation, quantize_row_##name##_ref, "quantize_row_" #name "_ref",   \
            dequantize_row_##name##_ref, "dequantize_row_" #name "_ref", dot, #dot, gemm_by_dot<dot>         \
    }

const TypeEntry kTypes[] = {
    HEARTH_REFERENCE_TYPE(F32, F32, f32, vec_dot_f32_f32_ref),
    HEARTH_REFERENCE_TYPE(F16, F16, f16, vec_dot_f16_f16_ref),
    HEARTH_REFERENCE_TYPE(BF16, BF16, bf16, vec_dot_bf16_bf16_ref),
    HEARTH_REFERENCE_TYPE(Q4_0, Q8_0, q4_0, vec_dot_q4_0_q8_0_ref),
    HEARTH_REFERENCE_TYPE(Q4_1, Q8_0, q4_1, vec_dot_q4_1_q8_0_ref),
    HEARTH_REFERENCE_TYPE(Q5_0, Q8_0, q5_0, vec_dot_q5_0_q8_0_ref),
    HEARTH_REFERENCE_TYPE(Q5_1, Q8_0, q5_1, vec_dot_q5_1_q8_0_ref),
    HEARTH_REFERENCE_TYPE(Q8_0, Q8_0, q8_0, vec_dot_q8_0_q8_0_ref),
    HEARTH_REFERENCE_TYPE(Q2_K, Q8_K, q2_K, vec_dot_q2_K_q8_K_ref),
    HEARTH_REFERENCE_TYPE(Q3_K, Q8_K, q3_K, vec_dot_q3_K_q8_K_ref),
    HEARTH_REFERENCE_TYPE(Q4_K, Q8_K, q4_K, vec_dot_q4_K_q8_K_ref),
    HEARTH_REFERENCE_TYPE(Q5_K, Q8_K, q5_K, vec_dot_q5_K_q8_K_ref),
    HEARTH_REFERENCE_TYPE(Q6_K, Q8_K, q6_K, vec_dot_q6_K_q8_K_ref),
    HEARTH_REFERENCE_TYPE(Q8_K, Q8_K, q8_K, vec_dot_q8_K_q8_K_ref),
};
#undef HEARTH_REFERENCE_TYPE

constexpr Backend kScalar = cpu(Isa::Scalar);

} // namespace

ReferenceOps reference_ops(TensorType type) {
    for (const TypeEntry& e : kTypes)
        if (e.type == type)
            return {e.quantize, e.dequantize, e.vec_dot, e.activation_type,
                    type == TensorType::Q8_0 ? quantize_row_q8_0_activations_ref : e.quantize};
    return {};
}

void add_reference_kernels(KernelTable& table) {
    for (const TypeEntry& e : kTypes) {
        TypeCandidates& k = table.of(e.type);
        k.quantize.put_first({{.name = e.quantize_name, .backend = kScalar, .fn = e.quantize}});
        k.dequantize.put_first({{.name = e.dequantize_name, .backend = kScalar, .fn = e.dequantize}});
        // gemm_by_dot: one dot product per pair of rows.
        k.matmul.put_first(
            {with_rows_as_single(matmul_kernel(e.dot_name, kScalar, e.gemm, e.activation_type))});
    }
    // The activation formats: Q8_0's with its own choice of scale, the others as their weights.
    for (TensorType t : {TensorType::F16, TensorType::BF16, TensorType::Q8_K})
        table.of(t).quantize_activations.put_first({*table.of(t).quantize.begin()});
    table.of(TensorType::Q8_0)
        .quantize_activations.put_first({{.name = "quantize_row_q8_0_activations_ref",
                                          .backend = kScalar,
                                          .fn = quantize_row_q8_0_activations_ref}});

    table.of(TensorType::F32)
        .matmul.put_first(
            {matmul_kernel("vec_dot_f32_f32_batched_ref", kScalar, gemm_by_dot<vec_dot_f32_f32_batched_ref>,
                           TensorType::F32, {.min_batch = 2, .width_multiple = 8})});
    table.of(TensorType::Q4_K)
        .matmul.put_first({repacked_decode_kernel("gemv_q4_K_q8_K_interleaved16_ref", kScalar,
                                                  gemm_by_packed_gemv<gemv_q4_K_q8_K_interleaved16_ref>,
                                                  TensorType::Q8_K)});
    table.of(TensorType::Q6_K)
        .matmul.put_first({repacked_decode_kernel("gemv_q6_K_q8_K_interleaved16_ref", kScalar,
                                                  gemm_by_packed_gemv<gemv_q6_K_q8_K_interleaved16_ref>,
                                                  TensorType::Q8_K)});
    table.of(TensorType::Q8_0)
        .matmul.put_first({repacked_decode_kernel("gemv_q8_0_q8_0_interleaved16_ref", kScalar,
                                                  gemm_by_packed_gemv<gemv_q8_0_q8_0_interleaved16_ref>,
                                                  TensorType::Q8_0)});
    table.attention.put_first({{.name = "attend_ref", .backend = kScalar, .fn = attend_ref}});
    table.attention_as_decode.put_first(
        {{.name = "attend_ref", .backend = kScalar, .fn = attend_ref}}); // row by row
    table.swiglu.put_first({{.name = "swiglu_ref", .backend = kScalar, .fn = swiglu_ref}});
    table.gelu.put_first({{.name = "gelu_ref", .backend = kScalar, .fn = gelu_ref}});
    table.softmax.put_first({{.name = "softmax_ref", .backend = kScalar, .fn = softmax_ref}});
}

} // namespace hearth::kernels
