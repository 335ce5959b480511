// The AVX2+FMA+F16C tier's candidates, in front of the scalar tier's. Compiled without AVX
// flags: it only takes the kernels' addresses.
#include "kernels/f32_batched_dot.h"
#include "kernels/gemm_by_rows.h"
#include "kernels/x86_avx2/avx2_kernels.h"

#include <tuple>

namespace hearth::kernels::avx2 {
namespace {

constexpr Backend kAvx2 = cpu(Isa::Avx2);

// A type's blocked kernel, which also serves decode (gemm_avx2.cpp). The float and 32-element
// block formats' batches keep each row's dot product bits (test_matmul_as_decode) and run a
// verify pass's rows together. The K-quants' stay row by row there: Q4_K's batches sum in
// another order, and the others' blocked batches of 2 cost more than two rows one by one
// (Llama-3.2-1B Q5_K_M, avx2, a 2-token pass: 2.04 decode steps blocked, 1.35-1.46 row by row).
Candidate<GemmFn> gemm(std::string_view name, TensorType type, TensorType activation_type) {
    return with_rows_as_single(matmul_kernel(name, kAvx2, gemm_for(type), activation_type),
                               gemm_for_float(type) != nullptr || gemm_for_block32(type) != nullptr);
}

template <class Fn> Candidate<Fn> kernel(std::string_view name, Fn fn) {
    return {.name = name, .backend = kAvx2, .fn = fn};
}

// llama.cpp repacks the Q4_0 and Q4_K matrices whose row count is a multiple of 8 and sums their
// batches in that layout's order: these kernels keep that order over row-major rows.
Candidate<GemmFn> groups_of_8(std::string_view name, GemmFn fn, TensorType activation_type) {
    return matmul_kernel(name, kAvx2, fn, activation_type, {.min_batch = 2, .row_multiple = 8});
}

// K-quant batches that decode each super-block once per few activation rows, on the stack,
// rather than into the gemm's panels. Zen 4, Llama 3.2 1B, 2 threads, prefill t/s these / the
// gemm: Q2_K pp2 46-50/29, pp4 66-72/47, pp8 76-82/67, pp12 85/82, pp16 87/91, pp32 87/107;
// Q5_K_M (its Q5_K takes 4 madds a pair of sub-blocks and row) pp2 45/35, pp4 50/48, pp8 53/64.
// Q6_K (Llama 3.2 1B Q4_K_M's, verify passes, ms): 4 rows 59-64/63-68, 5 78-79/83-87, 8 112/114.
constexpr int64_t kLowBitRowsMaxBatch = 15;
constexpr int64_t kQ5KRowsMaxBatch = 4;
constexpr int64_t kQ6KRowsMaxBatch = 16;
Candidate<GemmFn> small_batches(std::string_view name, TensorType type, int64_t max_batch) {
    return matmul_kernel(name, kAvx2, small_batch_gemm_for(type), TensorType::Q8_K,
                         {.min_batch = 2, .max_batch = max_batch});
}

// A verify pass over the 32-element formats' rows decodes each block once for up to this many
// rows (one pass); larger ones take the blocked gemm, whose rows keep decode's bits too.
constexpr int64_t kBlock32RowsAsDecodeMaxBatch = 4;

// F32 decode: one dot product per pair of rows, the same for a row in any batch.
Candidate<GemmFn> f32_by_dot() {
    return with_rows_as_single(
        matmul_kernel("vec_dot_f32_f32", kAvx2, gemm_by_dot<vec_dot_f32_f32>, TensorType::F32));
}

// Batches a repacked matrix's rows kernel takes: beyond them, rows are unpacked for the blocked
// kernels. Zen 5, Llama 3.2 1B Q4_K_M, prefill t/s rows kernel / unpacked groups of 8: pp16
// 74.5/53.2, pp32 65-72/(~80), pp64 79.7/120.6.
constexpr int64_t kAvx2RepackedRowsMaxBatch = kDecodeExactMaxBatch;

} // namespace

void add_kernels(KernelTable& table) {
    using T = TensorType;
    // F32 batches of 2 or more sum as llama.cpp's tinyBLAS does (f32_batched_dot.h).
    table.of(T::F32).matmul.put_first({matmul_kernel("gemm_f32_f32_batched", kAvx2, gemm_f32_f32_batched,
                                                     T::F32, {.min_batch = 2, .width_multiple = 8}),
                                       f32_by_dot()});
    table.of(T::F32).matmul_as_decode.put_first({rows_as_decode_kernel(
        "gemm_f32_f32_rows_as_decode", kAvx2, gemm_f32_f32_rows_as_decode, T::F32, "vec_dot_f32_f32")});
    table.of(T::F16).matmul.put_first({gemm("gemm_f16_f16", T::F16, T::F16)});
    table.of(T::BF16).matmul.put_first({gemm("gemm_bf16_bf16", T::BF16, T::BF16)});
    table.of(T::Q4_0).matmul.put_first(
        {groups_of_8("gemm_q4_0_q8_0_groups_of_8", gemm_q4_0_q8_0_groups_of_8, T::Q8_0),
         gemm("gemm_q4_0_q8_0", T::Q4_0, T::Q8_0)});
    table.of(T::Q4_1).matmul.put_first({gemm("gemm_q4_1_q8_0", T::Q4_1, T::Q8_0)});
    table.of(T::Q5_0).matmul.put_first({gemm("gemm_q5_0_q8_0", T::Q5_0, T::Q8_0)});
    table.of(T::Q5_1).matmul.put_first({gemm("gemm_q5_1_q8_0", T::Q5_1, T::Q8_0)});
    table.of(T::Q8_0).matmul.put_first(
        {repacked_rows_kernel("gemv_q8_0_q8_0_interleaved16", kAvx2, gemm_q8_0_q8_0_interleaved16_rows,
                              T::Q8_0, kAvx2RepackedRowsMaxBatch),
         gemm("gemm_q8_0_q8_0", T::Q8_0, T::Q8_0)});
    table.of(T::Q2_K).matmul.put_first({small_batches("gemm_q2_K_q8_K_rows", T::Q2_K, kLowBitRowsMaxBatch),
                                        gemm("gemm_q2_K_q8_K", T::Q2_K, T::Q8_K)});
    table.of(T::Q3_K).matmul.put_first({small_batches("gemm_q3_K_q8_K_rows", T::Q3_K, kLowBitRowsMaxBatch),
                                        gemm("gemm_q3_K_q8_K", T::Q3_K, T::Q8_K)});
    table.of(T::Q4_K).matmul.put_first(
        {repacked_rows_kernel("gemv_q4_K_q8_K_interleaved16", kAvx2, gemm_q4_K_q8_K_interleaved16_rows,
                              T::Q8_K, kAvx2RepackedRowsMaxBatch),
         groups_of_8("gemm_q4_K_q8_K_groups_of_8", gemm_q4_K_q8_K_groups_of_8, T::Q8_K),
         gemm("gemm_q4_K_q8_K", T::Q4_K, T::Q8_K)});
    table.of(T::Q5_K).matmul.put_first({small_batches("gemm_q5_K_q8_K_rows", T::Q5_K, kQ5KRowsMaxBatch),
                                        gemm("gemm_q5_K_q8_K", T::Q5_K, T::Q8_K)});
    // A verify pass over the K-quants' row-major rows: each super-block decoded once for 4 rows,
    // every row the dot product's bits, whatever the batch.
    for (const auto& [type, rows, decode] : {std::tuple{T::Q2_K, "gemm_q2_K_q8_K_rows", "gemm_q2_K_q8_K"},
                                             std::tuple{T::Q3_K, "gemm_q3_K_q8_K_rows", "gemm_q3_K_q8_K"},
                                             std::tuple{T::Q5_K, "gemm_q5_K_q8_K_rows", "gemm_q5_K_q8_K"},
                                             std::tuple{T::Q6_K, "gemm_q6_K_q8_K_rows", "gemm_q6_K_q8_K"}})
        table.of(type).matmul_as_decode.put_first(
            {rows_as_decode_kernel(rows, kAvx2, small_batch_gemm_for(type), T::Q8_K, decode)});
    // And over the 32-element formats' rows, whose blocked batches keep the dot products' bits too
    // but decode a panel first: one pass of 4 rows here, larger batches blocked. Xeon (family 6
    // model 207), Llama-3.2-1B Q4_0, a k-token pass in decode steps, these / blocked: k=2
    // 1.48 / 2.09, 4 2.43 / 3.01, 8 (two passes) 4.53 / 3.48.
    for (const auto& [type, rows, decode] :
         {std::tuple{T::Q8_0, "gemm_q8_0_q8_0_rows_as_decode", "gemm_q8_0_q8_0"},
          std::tuple{T::Q4_0, "gemm_q4_0_q8_0_rows_as_decode", "gemm_q4_0_q8_0"},
          std::tuple{T::Q5_0, "gemm_q5_0_q8_0_rows_as_decode", "gemm_q5_0_q8_0"},
          std::tuple{T::Q4_1, "gemm_q4_1_q8_0_rows_as_decode", "gemm_q4_1_q8_0"},
          std::tuple{T::Q5_1, "gemm_q5_1_q8_0_rows_as_decode", "gemm_q5_1_q8_0"}})
        table.of(type).matmul_as_decode.put_first(
            {rows_as_decode_kernel(rows, kAvx2, rows_as_decode_gemm_for_block32(type), T::Q8_0, decode,
                                   {.max_batch = kBlock32RowsAsDecodeMaxBatch})});
    table.of(T::Q6_K).matmul.put_first(
        {repacked_rows_kernel("gemv_q6_K_q8_K_interleaved16", kAvx2, gemm_q6_K_q8_K_interleaved16_rows,
                              T::Q8_K, kAvx2RepackedRowsMaxBatch),
         small_batches("gemm_q6_K_q8_K_rows", T::Q6_K, kQ6KRowsMaxBatch),
         gemm("gemm_q6_K_q8_K", T::Q6_K, T::Q8_K)});

    table.of(T::F16).quantize.put_first({kernel<QuantizeRowFn>("quantize_row_f16", quantize_row_f16)});
    table.of(T::Q8_0).quantize.put_first({kernel<QuantizeRowFn>("quantize_row_q8_0", quantize_row_q8_0)});
    table.of(T::Q8_K).quantize.put_first({kernel<QuantizeRowFn>("quantize_row_q8_K", quantize_row_q8_K)});
    table.of(T::F16).quantize_activations.put_first({*table.of(T::F16).quantize.begin()});
    table.of(T::Q8_K).quantize_activations.put_first({*table.of(T::Q8_K).quantize.begin()});
    table.of(T::Q8_0).quantize_activations.put_first(
        {kernel<QuantizeRowFn>("quantize_row_q8_0_activations", quantize_row_q8_0_activations)});

    const auto dequantize = [&](T type, std::string_view name, DequantizeRowFn fn) {
        table.of(type).dequantize.put_first({kernel(name, fn)});
    };
    dequantize(T::F16, "dequantize_row_f16", dequantize_row_f16);
    dequantize(T::BF16, "dequantize_row_bf16", dequantize_row_bf16);
    dequantize(T::Q4_0, "dequantize_row_q4_0", dequantize_row_q4_0);
    dequantize(T::Q4_1, "dequantize_row_q4_1", dequantize_row_q4_1);
    dequantize(T::Q5_0, "dequantize_row_q5_0", dequantize_row_q5_0);
    dequantize(T::Q5_1, "dequantize_row_q5_1", dequantize_row_q5_1);
    dequantize(T::Q8_0, "dequantize_row_q8_0", dequantize_row_q8_0);
    dequantize(T::Q4_K, "dequantize_row_q4_K", dequantize_row_q4_K);
    dequantize(T::Q5_K, "dequantize_row_q5_K", dequantize_row_q5_K);
    dequantize(T::Q6_K, "dequantize_row_q6_K", dequantize_row_q6_K);

    table.attention.put_first({kernel<AttendFn>("attend", attend)});
    // Its rows never depend on their tile (attention_avx2.cpp): decode's bits in any tile.
    table.attention_as_decode.put_first({kernel<AttendFn>("attend", attend)});
    table.swiglu.put_first({kernel<SwigluFn>("swiglu", swiglu)});
    table.gelu.put_first({kernel<GeluFn>("gelu", gelu)});
    table.softmax.put_first({kernel<SoftmaxFn>("softmax", softmax)});
}

} // namespace hearth::kernels::avx2
