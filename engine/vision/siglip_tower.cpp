#include "engine/vision/siglip_tower.h"
#include "engine/error.h"
#include "engine/forward/transformer_ops.h"
#include "kernels/fp16.h"
#include "kernels/kernel_table.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>

namespace hearth::vision {
namespace {

// fn(first, count) over `rows` rows, in one part per thread (each row computed alone).
template <class F> void for_rows(int64_t rows, kernels::ThreadPool& pool, F&& fn) {
    const int parts = static_cast<int>(std::min<int64_t>(rows, pool.size()));
    if (parts < 2) {
        fn(int64_t{0}, rows);
        return;
    }
    pool.for_each_part(rows, parts, [&](int64_t begin, int64_t end) { fn(begin, end - begin); });
}

// Stores v as element i of a row of `type` (F32 or F16).
void store_as(kernels::TensorType type, std::byte* row, int64_t i, float v) {
    if (type == kernels::TensorType::F16) {
        const kernels::fp16_bits h = kernels::fp32_to_fp16(v);
        std::memcpy(row + 2 * i, &h, 2);
    } else {
        std::memcpy(row + 4 * i, &v, 4);
    }
}

float gelu_quick(float x) {
    return x / (1.0f + std::exp(-1.702f * x));
}

} // namespace

void image_patches(const VisionHyperParams& hp, const float* pixels, float* patches,
                   kernels::ThreadPool& pool) {
    const int32_t p = hp.patch_size, side = hp.patches_per_side(), image = hp.image_size;
    const int64_t patch_len = 3 * int64_t{p} * p;
    for_rows(hp.n_patches(), pool, [&](int64_t first, int64_t count) {
        for (int64_t patch = first; patch < first + count; ++patch) {
            const int32_t py = static_cast<int32_t>(patch / side), px = static_cast<int32_t>(patch % side);
            float* row = patches + patch * patch_len;
            for (int32_t c = 0; c < 3; ++c)
                for (int32_t ky = 0; ky < p; ++ky) {
                    const float* src =
                        pixels + (static_cast<size_t>(c) * image + py * p + ky) * image + px * p;
                    std::copy(src, src + p, row + (c * p + ky) * p);
                }
        }
    });
}

SiglipTower::SiglipTower(const MmprojFile& file) : hp_(file.hparams()) {
    const int64_t d = hp_.n_embd, f = hp_.n_ff, p = hp_.patch_size, n = hp_.n_patches();
    const int64_t patch_len = 3 * p * p;
    patch_w = file.floats("v.patch_embd.weight", {p, p, 3, d});
    patch_matrix = kernels::WeightMatrix{kernels::TensorType::F32, d, patch_len, patch_w.data()};
    patch_b = file.floats("v.patch_embd.bias", {d});
    position_embd = file.floats("v.position_embd.weight", {d, n});
    for (int32_t i = 0; i < hp_.n_layer; ++i) {
        const std::string prefix = "v.blk." + std::to_string(i) + ".";
        Block b;
        b.ln1_w = file.floats(prefix + "ln1.weight", {d});
        b.ln1_b = file.floats(prefix + "ln1.bias", {d});
        b.ln2_w = file.floats(prefix + "ln2.weight", {d});
        b.ln2_b = file.floats(prefix + "ln2.bias", {d});
        b.wq = file.matrix(prefix + "attn_q.weight", d, d);
        b.wk = file.matrix(prefix + "attn_k.weight", d, d);
        b.wv = file.matrix(prefix + "attn_v.weight", d, d);
        b.wo = file.matrix(prefix + "attn_out.weight", d, d);
        b.bq = file.floats(prefix + "attn_q.bias", {d});
        b.bk = file.floats(prefix + "attn_k.bias", {d});
        b.bv = file.floats(prefix + "attn_v.bias", {d});
        b.bo = file.floats(prefix + "attn_out.bias", {d});
        b.w_up = file.matrix(prefix + "ffn_up.weight", f, d);
        b.b_up = file.floats(prefix + "ffn_up.bias", {f});
        b.w_down = file.matrix(prefix + "ffn_down.weight", d, f);
        b.b_down = file.floats(prefix + "ffn_down.bias", {d});
        blocks_.push_back(std::move(b));
    }
    post_ln_w = file.floats("v.post_ln.weight", {d});
    post_ln_b = file.floats("v.post_ln.bias", {d});

    const int64_t hd = hp_.head_dim();
    const auto rows = static_cast<size_t>(n);
    patches_.resize(rows * patch_len);
    for (auto* buffer : {&xb_, &q_, &k_, &v_, &attn_, &proj_})
        buffer->resize(rows * d);
    up_.resize(rows * f);
    head_q_.resize(rows * hd);
    head_out_.resize(rows * hd);
    if (!blocks_.empty() && blocks_[0].wk.type != kernels::TensorType::F32)
        kv_type_ = kernels::TensorType::F16;
    const size_t kv_bytes = kernels::type_traits(kv_type_).block_bytes;
    head_k_.resize(rows * hd * kv_bytes);
    head_v_t_.resize(rows * hd * kv_bytes);
    scores_.resize(rows * rows);

    size_t bytes = kernels::matmul_scratch_bytes(kernels::TensorType::F32, patch_len, n);
    bytes = std::max(bytes, kernels::matmul_scratch_bytes(kv_type_, hd, n));
    bytes = std::max(bytes, kernels::matmul_scratch_bytes(kv_type_, n, n));
    for (const Block& b : blocks_) {
        size_t qkv = 0;
        for (const auto* m : {&b.wq, &b.wk, &b.wv})
            qkv += kernels::matmul_scratch_bytes(m->type, m->cols, n);
        bytes = std::max({bytes, qkv, kernels::matmul_scratch_bytes(b.wo.type, d, n),
                          kernels::matmul_scratch_bytes(b.w_up.type, d, n),
                          kernels::matmul_scratch_bytes(b.w_down.type, f, n)});
    }
    matmul_scratch_.resize(bytes);
}

void SiglipTower::forward(const float* pixels, float* x, kernels::ThreadPool& pool) {
    const int32_t d = hp_.n_embd, f = hp_.n_ff, n = hp_.n_patches();

    // Patch embedding: the patches times the weight, plus bias and position.
    image_patches(hp_, pixels, patches_.data(), pool);
    kernels::matmul(patch_matrix, patches_.data(), n, x, pool, matmul_scratch_);
    for_rows(n, pool, [&](int64_t first, int64_t count) {
        float* rows = x + first * d;
        engine::add_bias_rows(rows, patch_b.data(), static_cast<int32_t>(count), d);
        engine::add_rows(rows, position_embd.data() + first * d, static_cast<size_t>(count) * d);
    });

    const auto layer_norm = [&](const float* in, const std::vector<float>& w, const std::vector<float>& b,
                                float* out) {
        for_rows(n, pool, [&](int64_t first, int64_t count) {
            engine::layer_norm_rows(in + first * d, w.data(), b.data(), static_cast<int32_t>(count), d,
                                    hp_.eps, out + first * d);
        });
    };
    const auto add_residual = [&](std::vector<float>& y, const std::vector<float>& bias) {
        for_rows(n, pool, [&](int64_t first, int64_t count) {
            engine::add_bias_rows(y.data() + first * d, bias.data(), static_cast<int32_t>(count), d);
            engine::add_rows(x + first * d, y.data() + first * d, static_cast<size_t>(count) * d);
        });
    };

    for (const Block& b : blocks_) {
        layer_norm(x, b.ln1_w, b.ln1_b, xb_.data());
        const kernels::MatmulOutput qkv[] = {{&b.wq, q_.data()}, {&b.wk, k_.data()}, {&b.wv, v_.data()}};
        kernels::matmul_group(qkv, xb_.data(), n, pool, matmul_scratch_);
        for_rows(n, pool, [&](int64_t first, int64_t count) {
            const auto rows = static_cast<int32_t>(count);
            engine::add_bias_rows(q_.data() + first * d, b.bq.data(), rows, d);
            engine::add_bias_rows(k_.data() + first * d, b.bk.data(), rows, d);
            engine::add_bias_rows(v_.data() + first * d, b.bv.data(), rows, d);
        });
        attention(pool);
        kernels::matmul(b.wo, attn_.data(), n, proj_.data(), pool, matmul_scratch_);
        add_residual(proj_, b.bo);

        layer_norm(x, b.ln2_w, b.ln2_b, xb_.data());
        kernels::matmul(b.w_up, xb_.data(), n, up_.data(), pool, matmul_scratch_);
        for_rows(n, pool, [&](int64_t first, int64_t count) {
            float* rows = up_.data() + first * f;
            engine::add_bias_rows(rows, b.b_up.data(), static_cast<int32_t>(count), f);
            const size_t values = static_cast<size_t>(count) * f;
            if (hp_.use_gelu)
                engine::gelu_values(rows, values);
            else
                for (size_t i = 0; i < values; ++i)
                    rows[i] = gelu_quick(rows[i]);
        });
        kernels::matmul(b.w_down, up_.data(), n, proj_.data(), pool, matmul_scratch_);
        add_residual(proj_, b.b_down);
    }
    layer_norm(x, post_ln_w, post_ln_b, x);
}

// Every patch attends to every patch, one head at a time: scores = Q K^T (the head's keys as
// the weight matrix), softmax of scores / sqrt(head_dim) per row, out = P V (its values
// transposed as the weight matrix).
void SiglipTower::attention(kernels::ThreadPool& pool) {
    const int32_t d = hp_.n_embd, n = hp_.n_patches(), hd = hp_.head_dim();
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    if (kv_type_ == kernels::TensorType::F16) return fused_attention(pool, scale);
    const kernels::WeightMatrix keys{kv_type_, n, hd, head_k_.data()};
    const kernels::WeightMatrix values_t{kv_type_, hd, n, head_v_t_.data()};
    for (int32_t head = 0; head < hp_.n_head; ++head) {
        const size_t column = static_cast<size_t>(head) * hd;
        for_rows(n, pool, [&](int64_t first, int64_t count) {
            for (int64_t r = first; r < first + count; ++r) {
                const size_t from = static_cast<size_t>(r) * d + column;
                std::copy_n(q_.data() + from, hd, head_q_.data() + r * hd);
                for (int32_t i = 0; i < hd; ++i) {
                    store_as(kv_type_, head_k_.data(), r * hd + i, k_[from + i]);
                    store_as(kv_type_, head_v_t_.data(), int64_t{i} * n + r, v_[from + i]);
                }
            }
        });
        kernels::matmul(keys, head_q_.data(), n, scores_.data(), pool, matmul_scratch_);
        const kernels::SoftmaxFn softmax = kernels::active_kernels().softmax.fn();
        for_rows(n, pool, [&](int64_t first, int64_t count) {
            for (int64_t r = first; r < first + count; ++r)
                softmax(scores_.data() + r * n, n, scale);
        });
        kernels::matmul(values_t, scores_.data(), n, head_out_.data(), pool, matmul_scratch_);
        for_rows(n, pool, [&](int64_t first, int64_t count) {
            for (int64_t r = first; r < first + count; ++r)
                std::copy_n(head_out_.data() + r * hd, hd,
                            attn_.data() + static_cast<size_t>(r) * d + column);
        });
    }
}

// The same attention with F16 keys and values, through the kernels' attention: each query's
// scores, softmax and weighted values in one pass (an online softmax in F32), no n x n matrix. A
// tile of queries goes to the kernel as the query heads of one position, which see every key.
void SiglipTower::fused_attention(kernels::ThreadPool& pool, float scale) {
    const int32_t d = hp_.n_embd, n = hp_.n_patches(), hd = hp_.head_dim();
    const kernels::KernelTable& table = kernels::active_kernels();
    const kernels::Candidate<kernels::AttendFn>* kernel =
        table.attention.pick({.batch = 1, .width = hd, .f16_cache = true});
    if (kernel == nullptr) throw Error("vision attention: no kernel for head size " + std::to_string(hd));
    const auto tile = static_cast<int32_t>(std::clamp<int64_t>(table.attention_tile_floats / hd, 1, n));
    const int32_t tiles = (n + tile - 1) / tile;
    const size_t row_bytes = static_cast<size_t>(hd) * sizeof(kernels::fp16_bits);
    const kernels::KvRows keys{head_k_.data(), kernels::TensorType::F16, row_bytes};
    const kernels::KvRows values{head_v_t_.data(), kernels::TensorType::F16, row_bytes}; // rows here
    for (int32_t head = 0; head < hp_.n_head; ++head) {
        const size_t column = static_cast<size_t>(head) * hd;
        for_rows(n, pool, [&](int64_t first, int64_t count) {
            for (int64_t r = first; r < first + count; ++r) {
                const size_t from = static_cast<size_t>(r) * d + column;
                std::copy_n(q_.data() + from, hd, head_q_.data() + r * hd);
                for (int32_t i = 0; i < hd; ++i) {
                    store_as(kv_type_, head_k_.data(), r * hd + i, k_[from + i]);
                    store_as(kv_type_, head_v_t_.data(), r * hd + i, v_[from + i]);
                }
            }
        });
        pool.for_each(tiles, [&](int64_t t) {
            const int64_t first = t * tile;
            const int64_t queries = std::min<int64_t>(tile, n - first);
            const size_t offset = static_cast<size_t>(first) * hd;
            kernel->fn(head_q_.data() + offset, head_out_.data() + offset, static_cast<size_t>(hd),
                       static_cast<size_t>(queries) * hd, queries, 1, keys, values, n, hd, scale, {});
        });
        for_rows(n, pool, [&](int64_t first, int64_t count) {
            for (int64_t r = first; r < first + count; ++r)
                std::copy_n(head_out_.data() + r * hd, hd,
                            attn_.data() + static_cast<size_t>(r) * d + column);
        });
    }
}

} // namespace hearth::vision
