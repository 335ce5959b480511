#include "engine/forward/transformer_ops.h"
#include "kernels/dispatch_metrics.h"
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace hearth::engine {
void embed_tokens(const kernels::WeightMatrix& table, const int32_t* tokens, int32_t n, float* out) {
    const kernels::DequantizeRowFn dequantize = kernels::active_kernels().of(table.type).dequantize.fn();
    const size_t row_bytes = kernels::row_bytes(table.type, table.cols);
    const auto* base = static_cast<const std::byte*>(table.data);
    // A repacked table (interleaved_rows.h): each token's row back in the file's layout first.
    thread_local std::vector<std::byte> row;
    if (table.layout == kernels::RowLayout::Interleaved16 && row.size() < row_bytes) row.resize(row_bytes);
    for (int32_t t = 0; t < n; ++t) {
        const std::byte* src = base + static_cast<size_t>(tokens[t]) * row_bytes;
        if (table.layout == kernels::RowLayout::Interleaved16) {
            kernels::unpack_rows16(table.type, table.data, table.cols, tokens[t], tokens[t] + 1, row.data());
            src = row.data();
        }
        dequantize(src, out + static_cast<size_t>(t) * table.cols, table.cols);
    }
}

void rms_norm_rows(const float* x, const float* weight, int32_t rows, int32_t dim, float eps, float* out) {
    for (int32_t r = 0; r < rows; ++r) {
        const float* row = x + static_cast<size_t>(r) * dim;
        float* dst = out + static_cast<size_t>(r) * dim;
        // Squares in float summed in double, mean and scale in float: ggml's order of rounding.
        double sum = 0;
        for (int32_t i = 0; i < dim; ++i)
            sum += static_cast<double>(row[i] * row[i]);
        const float mean = static_cast<float>(sum / dim);
        const float scale = 1.0f / std::sqrt(mean + eps);
        for (int32_t i = 0; i < dim; ++i)
            dst[i] = row[i] * scale * weight[i];
    }
}

void layer_norm_rows(const float* x, const float* weight, const float* bias, int32_t rows, int32_t dim,
                     float eps, float* out) {
    for (int32_t r = 0; r < rows; ++r) {
        const float* row = x + static_cast<size_t>(r) * dim;
        float* dst = out + static_cast<size_t>(r) * dim;
        // Sums in double, as ggml's norm does; the centred values in float.
        double sum = 0;
        for (int32_t i = 0; i < dim; ++i)
            sum += row[i];
        const float mean = static_cast<float>(sum / dim);
        double squares = 0;
        for (int32_t i = 0; i < dim; ++i) {
            const float centred = row[i] - mean;
            squares += static_cast<double>(centred * centred);
        }
        const float scale = 1.0f / std::sqrt(static_cast<float>(squares / dim) + eps);
        for (int32_t i = 0; i < dim; ++i)
            dst[i] = (row[i] - mean) * scale * weight[i] + bias[i];
    }
}

void scale_values(float* x, size_t count, float factor) {
    for (size_t i = 0; i < count; ++i)
        x[i] *= factor;
}

void soft_cap_values(float* x, size_t count, float cap) {
    const float inverse = 1.0f / cap;
    for (size_t i = 0; i < count; ++i)
        x[i] = cap * std::tanh(x[i] * inverse);
}

float gelu(float x) {
    kernels::active_kernels().gelu.fn()(&x, 1);
    return x;
}

void gelu_values(float* x, size_t count) {
    kernels::active_kernels().gelu.fn()(x, static_cast<int64_t>(count));
}

void geglu_rows(float* gate, const float* up, int32_t rows, int32_t dim, kernels::ThreadPool& pool) {
    const kernels::GeluFn gelu_row = kernels::active_kernels().gelu.fn();
    pool.for_each(rows, [&](int64_t r) {
        const size_t offset = static_cast<size_t>(r) * static_cast<size_t>(dim);
        gelu_row(gate + offset, dim);
        for (int32_t i = 0; i < dim; ++i)
            gate[offset + i] *= up[offset + i];
    });
}

void add_bias_rows(float* x, const float* bias, int32_t rows, int32_t dim) {
    for (int32_t r = 0; r < rows; ++r) {
        float* row = x + static_cast<size_t>(r) * dim;
        for (int32_t i = 0; i < dim; ++i)
            row[i] += bias[i];
    }
}

void add_rows(float* x, const float* y, size_t count) {
    for (size_t i = 0; i < count; ++i)
        x[i] += y[i];
}

void swiglu_rows(float* gate, const float* up, int32_t rows, int32_t dim, kernels::ThreadPool& pool) {
    const kernels::SwigluFn swiglu = kernels::active_kernels().swiglu.fn();
    // Row by row (decode's single row runs on the caller: not worth waking the pool).
    pool.for_each(rows, [&](int64_t r) {
        const size_t offset = static_cast<size_t>(r) * static_cast<size_t>(dim);
        swiglu(gate + offset, up + offset, dim);
    });
}

std::vector<float> rope_frequency_factors(const HyperParams& hp, const std::vector<float>& freq_factors) {
    const int32_t pairs = hp.rope_dim / 2;
    std::vector<float> factors(static_cast<size_t>(pairs), 1.0f);
    for (int32_t i = 0; i < pairs && !freq_factors.empty(); ++i)
        factors[static_cast<size_t>(i)] = freq_factors[static_cast<size_t>(i)];
    return factors;
}

const std::vector<float>& short_rope_factors(const ModelWeights& w) {
    return w.rope_factors_short.empty() ? w.rope_freq_factors : w.rope_factors_short;
}

bool uses_long_rope_factors(const HyperParams& hp, const ModelWeights& w, int32_t n_ctx) {
    return !w.rope_factors_long.empty() && n_ctx > hp.n_ctx_orig;
}

RopeConfig global_rope(const HyperParams& hp) {
    return {hp.rope_freq_base, hp.rope_freq_scale, hp.rope_attn_factor};
}

RopeConfig local_rope(const HyperParams& hp) {
    return {hp.rope_freq_base_swa, hp.rope_freq_scale_swa, hp.rope_attn_factor};
}

bool local_rope_differs(const HyperParams& hp) {
    return hp.has_local_layers() &&
           (hp.rope_freq_base_swa != hp.rope_freq_base || hp.rope_freq_scale_swa != hp.rope_freq_scale);
}

RopeConfig layer_rope(const HyperParams& hp, int32_t layer) {
    return hp.layer_is_local(layer) ? local_rope(hp) : global_rope(hp);
}

// Angles are computed in float as a running product, the way ggml does, so that the
// rotated keys match llama.cpp's to the last bit where possible.
void rope_tables(const HyperParams& hp, const RopeConfig& config, const float* freq_factors, int32_t n_past,
                 int32_t n, float* out) {
    const int32_t pairs = hp.rope_dim / 2;
    const float theta_scale = std::pow(config.freq_base, -2.0f / static_cast<float>(hp.rope_dim));
    const float m = config.attn_factor;
    for (int32_t t = 0; t < n; ++t) {
        float theta_base = static_cast<float>(n_past + t);
        float* row = out + static_cast<size_t>(t) * hp.rope_dim;
        for (int32_t i = 0; i < pairs; ++i) {
            const float theta = config.freq_scale * (theta_base / freq_factors[i]);
            // m is 1 but for LongRoPE; x * 1.0f is exact, so the others keep their bits.
            row[2 * i] = std::cos(theta) * m;
            row[2 * i + 1] = std::sin(theta) * m;
            theta_base *= theta_scale;
        }
    }
}

void apply_rope(const HyperParams& hp, const float* tables, int32_t n, float* x, int32_t n_heads) {
    if (hp.traits.positions != PositionKind::Rope) return;
    const int32_t pairs = hp.rope_dim / 2;
    for (int32_t t = 0; t < n; ++t) {
        const float* cs = tables + static_cast<size_t>(t) * hp.rope_dim;
        for (int32_t h = 0; h < n_heads; ++h) {
            float* head = x + (static_cast<size_t>(t) * n_heads + h) * hp.head_dim;
            for (int32_t i = 0; i < pairs; ++i) {
                // NeoX pairs element i with i + rope_dim/2; the original layout pairs neighbours.
                const int32_t a = hp.rope_neox ? i : 2 * i;
                const int32_t b = hp.rope_neox ? i + pairs : 2 * i + 1;
                const float c = cs[2 * i], s = cs[2 * i + 1];
                const float x0 = head[a], x1 = head[b];
                // ggml's x0*cos - x1*sin and x0*sin + x1*cos, as its build contracts them: the
                // first product fused, the second rounded. Unfused, 1 in ~10^3 keys lands on the
                // other side of an F16 rounding in the cache.
                head[a] = std::fma(x0, c, -(x1 * s));
                head[b] = std::fma(x0, s, x1 * c);
            }
        }
    }
}

void store_kv(KvCache& cache, int32_t layer, int32_t n_past, int32_t n, const float* k, const float* v) {
    using Part = KvCache::Part;
    // Each head's row is rounded on its own: blocks of 32 never straddle two heads.
    const kernels::QuantizeRowFn round_key =
        kernels::active_kernels().of(cache.type(Part::Keys)).quantize.fn();
    const kernels::QuantizeRowFn round_value =
        kernels::active_kernels().of(cache.type(Part::Values)).quantize.fn();
    const int32_t width = cache.kv_width(), head_dim = cache.head_dim();
    for (int32_t t = 0; t < n; ++t)
        for (int32_t h = 0; h < cache.n_head_kv(); ++h) {
            const size_t from = static_cast<size_t>(t) * width + static_cast<size_t>(h) * head_dim;
            round_key(k + from, cache.data(Part::Keys, layer, h, n_past + t), head_dim);
            round_value(v + from, cache.data(Part::Values, layer, h, n_past + t), head_dim);
        }
}

// One kernel call per (KV head, tile of positions): the query heads that share a KV head, at a
// few consecutive positions, attend together, so that each block of keys and values is widened
// once and used by all of them while it is in L1 (kernel_table.h). A tile holds about the
// table's attention_tile_floats of queries: 4096 (9 positions of a 7-head group of 64), or the
// AMX tier's 32768 (73 positions), whose kernel converts each block of keys once per pass of
// many rows. Each tile's kernel is the table's first attention candidate that takes its shape. Items go
// KV-head-major, so the threads walk the keys and values of one KV head at a time, which stay in L2 across
// the tiles of a batch, and the last tile (the most keys) first, so that the longest items do not start last.
// With fewer items than threads (decode of a model with few KV heads, on many cores) each tile's query heads
// are split into parts. The kernel gives every row the same bits in any tile or part, and the tiles depend
// only on the model and the tier, so the result does not depend on the thread count.
LayerAttention layer_attention(const HyperParams& hp, int32_t layer) {
    LayerAttention how;
    how.scale = hp.attention_scale;
    how.limits.softcap = hp.attn_softcap;
    if (hp.layer_is_local(layer)) how.limits.window = hp.sliding_window;
    return how;
}

namespace {

// A batch whose rows attend both ways (an image's, to each other): one row per kernel call, each
// a tile of one position with its group's heads, so that its bits do not depend on the threads
// or the rows beside it. A row at position p sees the keys up to the batch's last, its window
// (when the layer has one) widened by the later keys it sees, so that the keys it skips stay
// those `window` or more positions before p. A window that reaches past no key is none.
void attend_both_ways(const HyperParams& hp, const KvCache& cache, int32_t layer, int32_t n_past, int32_t n,
                      const float* q, float* out, kernels::ThreadPool& pool, const LayerAttention& how) {
    using Part = KvCache::Part;
    const kernels::KernelTable& table = kernels::active_kernels();
    const int32_t head_dim = hp.head_dim;
    const int32_t group = hp.n_head / hp.n_head_kv;
    const kernels::Candidate<kernels::AttendFn>* kernel =
        table.attention.pick({.batch = 1, .width = head_dim, .f16_cache = cache.types() == KvCacheTypes{}});
    if (kernel == nullptr)
        throw std::logic_error("attention: no kernel for head size " + std::to_string(head_dim));
    namespace metrics = kernels::dispatch_metrics;
    metrics::ScopedTimer timer(metrics::Op::Attention, cache.type(Part::Keys), kernel->id);
    const size_t head_stride = static_cast<size_t>(head_dim);
    const size_t position_stride = static_cast<size_t>(hp.n_head) * head_stride;
    pool.for_each(int64_t{n} * hp.n_head_kv, [&](int64_t item) {
        const int32_t kv_head = static_cast<int32_t>(item / n);
        const int32_t row = static_cast<int32_t>(item % n);
        const int64_t n_keys = int64_t{n_past} + n;
        kernels::AttentionLimits limits = how.limits;
        if (limits.window > 0) limits.window += n - 1 - row;
        if (limits.window >= n_keys) limits.window = 0;
        const size_t first =
            static_cast<size_t>(row) * position_stride + static_cast<size_t>(kv_head * group) * head_stride;
        const kernels::KvRows keys{cache.data(Part::Keys, layer, kv_head), cache.type(Part::Keys),
                                   cache.head_row_bytes(Part::Keys)};
        const kernels::KvRows values{cache.data(Part::Values, layer, kv_head), cache.type(Part::Values),
                                     cache.head_row_bytes(Part::Values)};
        kernel->fn(q + first, out + first, head_stride, position_stride, group, 1, keys, values, n_keys,
                   head_dim, how.scale, limits);
    });
}

} // namespace

void attend(const HyperParams& hp, const KvCache& cache, int32_t layer, int32_t n_past, int32_t n,
            const float* q, float* out, kernels::ThreadPool& pool, const LayerAttention& how) {
    if (n <= 0) return;
    using Part = KvCache::Part;
    const kernels::KernelTable& table = kernels::active_kernels();
    const int32_t head_dim = hp.head_dim;
    const int32_t group = hp.n_head / hp.n_head_kv;
    const float scale = how.scale;
    if (how.batch_sees_itself) {
        attend_both_ways(hp, cache, layer, n_past, n, q, out, pool, how);
        return;
    }
    // A verify pass's rows take the kernels that give each row decode's bits in any tile.
    const bool as_decode = how.rows_as_decode && n > 1;
    const kernels::Candidates<kernels::AttendFn>& candidates =
        as_decode ? table.attention_as_decode : table.attention;
    // A window no row reaches past (the last row sees n_past + n keys) masks nothing: such
    // calls take the plain kernels, as a model without a window does.
    kernels::AttentionLimits limits = how.limits;
    if (limits.window > 0 && n_past + n <= limits.window) limits.window = 0;
    // As few tiles as hold the batch, of equal sizes (128 positions in tiles of at most 73: two of
    // 64, not 73 and 55, which left one of two threads waiting on the other).
    const int32_t most_positions =
        std::clamp(static_cast<int32_t>(table.attention_tile_floats / (group * head_dim)), 1, n);
    const int32_t tiles = (n + most_positions - 1) / most_positions;
    const int32_t tile_positions = (n + tiles - 1) / tiles;
    // The kernels of a whole tile and of the last one, which may be shorter.
    const bool f16 = cache.types() == KvCacheTypes{};
    const auto kernel_for = [&](int32_t positions) {
        return candidates.pick({.batch = positions, .width = head_dim, .f16_cache = f16});
    };
    const kernels::Candidate<kernels::AttendFn>* whole_tile = kernel_for(tile_positions);
    const kernels::Candidate<kernels::AttendFn>* last_tile = kernel_for(n - (tiles - 1) * tile_positions);
    if (whole_tile == nullptr || last_tile == nullptr)
        throw std::logic_error("attention: no kernel for head size " + std::to_string(head_dim));
    namespace metrics = kernels::dispatch_metrics;
    metrics::ScopedTimer timer(metrics::Op::Attention, cache.type(Part::Keys), whole_tile->id);
    const int64_t items_per_part = static_cast<int64_t>(tiles) * hp.n_head_kv;
    const int64_t parts = std::min<int64_t>(group, (pool.size() + items_per_part - 1) / items_per_part);
    const int32_t heads_per_part = static_cast<int32_t>((group + parts - 1) / parts);
    const size_t head_stride = static_cast<size_t>(head_dim);
    const size_t position_stride = static_cast<size_t>(hp.n_head) * head_stride;
    pool.for_each(items_per_part * parts, [&](int64_t item) {
        const int64_t tile_index = item / parts;
        const int32_t kv_head = static_cast<int32_t>(tile_index / tiles);
        const int32_t first_position =
            (tiles - 1 - static_cast<int32_t>(tile_index % tiles)) * tile_positions;
        const int32_t positions = std::min(tile_positions, n - first_position);
        const int32_t first_head = static_cast<int32_t>(item % parts) * heads_per_part;
        const int32_t heads = std::min(heads_per_part, group - first_head);
        if (heads <= 0) return;
        const size_t first_row = static_cast<size_t>(first_position) * position_stride +
                                 static_cast<size_t>(kv_head * group + first_head) * head_stride;
        // Causal: each position sees the keys up to and including its own.
        const int64_t n_keys = n_past + first_position + 1;
        const kernels::KvRows keys{cache.data(Part::Keys, layer, kv_head), cache.type(Part::Keys),
                                   cache.head_row_bytes(Part::Keys)};
        const kernels::KvRows values{cache.data(Part::Values, layer, kv_head), cache.type(Part::Values),
                                     cache.head_row_bytes(Part::Values)};
        (positions == tile_positions ? whole_tile : last_tile)
            ->fn(q + first_row, out + first_row, head_stride, position_stride, heads, positions, keys, values,
                 n_keys, head_dim, scale, limits);
    });
}

} // namespace hearth::engine
