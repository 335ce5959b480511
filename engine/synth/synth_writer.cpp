#include "engine/synth/synth_writer.h"
#include "engine/error.h"
#include "engine/gguf/gguf_value.h"
#include "engine/synth/synth_vocab.h"
#include "kernels/kernel_table.h"
#include <algorithm>
#include <cstring>
#include <map>
#include <thread>
#include <vector>

namespace hearth::gguf {

namespace {

using kernels::TensorType;

uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// A random stream seeded by (seed, stream, index) alone, so that the output does
// not depend on how rows are split over threads.
class Random {
public:
    Random(uint64_t seed, uint64_t stream, uint64_t index) {
        state_ = seed;
        state_ = splitmix64(state_) ^ (stream * 0xD1B54A32D192ED03ull);
        state_ = splitmix64(state_) ^ index;
        splitmix64(state_);
    }
    uint64_t next() { return splitmix64(state_); }
    // Mean 0, variance 1: the sum of four 16-bit uniforms (Irwin-Hall), which is close
    // to normal and cheap: one 64-bit draw and one conversion per value.
    float standard_normalish() {
        const uint64_t r = next();
        const uint32_t sum = uint32_t(r & 0xFFFF) + uint32_t((r >> 16) & 0xFFFF) +
                             uint32_t((r >> 32) & 0xFFFF) + uint32_t(r >> 48);
        constexpr float kMean = 4 * 65535.0f / 2;
        constexpr float kInverseStd = 1.0f / (65536.0f * 0.57735026919f); // 1 / (65536 sqrt(4 / 12))
        return (static_cast<float>(sum) - kMean) * kInverseStd;
    }

private:
    uint64_t state_;
};

// Streams of the generator: tensors use their index, pools sit above them.
constexpr uint64_t kPoolStreamBase = uint64_t{1} << 40;

void random_values(Random& random, float center, float std, float* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
        out[i] = center + std * random.standard_normalish();
}

// Quantized blocks of one type, each made from its own random values. Weight rows
// of block-quantized types are assembled from blocks drawn at random from the pool:
// statistically a random matrix, without running the (slow) quantizer search on
// every block of a large model.
class BlockPool {
public:
    BlockPool(TensorType type, kernels::QuantizeRowFn quantize, const SynthOptions& o) {
        const auto traits = kernels::type_traits(type);
        block_bytes_ = traits.block_bytes;
        count_ = static_cast<size_t>(std::max<int64_t>(4096, (int64_t{1} << 20) / traits.block_elements));
        blocks_.resize(count_ * block_bytes_);
        std::vector<float> values(static_cast<size_t>(traits.block_elements));
        for (size_t i = 0; i < count_; ++i) {
            Random random(o.seed, kPoolStreamBase + static_cast<uint64_t>(type), i);
            random_values(random, 0.0f, o.weight_std, values.data(), traits.block_elements);
            quantize(values.data(), blocks_.data() + i * block_bytes_, traits.block_elements);
        }
    }
    void fill_row(Random& random, std::byte* dst, size_t blocks) const {
        for (size_t b = 0; b < blocks; ++b)
            std::memcpy(dst + b * block_bytes_, blocks_.data() + (random.next() % count_) * block_bytes_,
                        block_bytes_);
    }

private:
    size_t block_bytes_ = 0;
    size_t count_ = 0;
    std::vector<std::byte> blocks_;
};

bool uses_pool(const PlannedTensor& t, const SynthOptions& o) {
    return !o.exact && t.init == TensorInit::Weight && kernels::type_traits(t.type).block_elements > 1;
}

// Runs work(begin, end) over [0, count) split into `threads` contiguous parts.
template <typename Work> void parallel_rows(int64_t count, int threads, const Work& work) {
    const int64_t parts = std::min<int64_t>(threads, count);
    if (parts <= 1) {
        work(0, count);
        return;
    }
    std::vector<std::thread> pool;
    for (int64_t k = 1; k < parts; ++k)
        pool.emplace_back(work, count * k / parts, count * (k + 1) / parts);
    work(0, count / parts);
    for (auto& th : pool)
        th.join();
}

int thread_count(int requested) {
    if (requested > 0) return requested;
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

} // namespace

void add_model_metadata(GgufWriter& w, const ModelShape& s, FileType file_type) {
    const std::string a = s.architecture + ".";
    const auto u32 = [](int64_t v) { return uint32_value(static_cast<uint32_t>(v)); };
    w.set("general.architecture", string_value(s.architecture));
    w.set("general.name", string_value(s.display_name));
    w.set("general.file_type", uint32_value(static_cast<uint32_t>(file_type)));
    w.set("general.quantization_version", uint32_value(2));
    w.set(a + "vocab_size", u32(s.n_vocab));
    w.set(a + "context_length", u32(s.n_ctx));
    w.set(a + "embedding_length", u32(s.n_embd));
    w.set(a + "block_count", u32(s.n_layer));
    w.set(a + "feed_forward_length", u32(s.n_ff));
    w.set(a + "attention.head_count", u32(s.n_head));
    w.set(a + "attention.head_count_kv", u32(s.n_head_kv));
    w.set(a + "attention.layer_norm_rms_epsilon", float32_value(static_cast<float>(s.rms_norm_eps)));
    w.set(a + "rope.freq_base", float32_value(static_cast<float>(s.rope_freq_base)));
    w.set(a + "rope.dimension_count", u32(s.rotated_dims()));
    if (s.head_size > 0) {
        w.set(a + "attention.key_length", u32(s.head_size));
        w.set(a + "attention.value_length", u32(s.head_size));
    }
    if (s.sliding_window > 0) w.set(a + "attention.sliding_window", u32(s.sliding_window));
    if (s.rope_freq_base_swa > 0)
        w.set(a + "rope.freq_base_swa", float32_value(static_cast<float>(s.rope_freq_base_swa)));
    if (s.rope_linear_factor > 0) {
        w.set(a + "rope.scaling.type", string_value("linear"));
        w.set(a + "rope.scaling.factor", float32_value(static_cast<float>(s.rope_linear_factor)));
    }
    if (s.long_rope.original_context > 0) {
        w.set(a + "rope.scaling.original_context_length", u32(s.long_rope.original_context));
        w.set(a + "rope.scaling.attn_factor",
              float32_value(static_cast<float>(s.long_rope.attn_factor(s.n_ctx))));
    }
    if (s.experts.count > 0) {
        w.set(a + "expert_count", u32(s.experts.count));
        w.set(a + "expert_used_count", u32(s.experts.used));
        w.set(a + "expert_feed_forward_length", u32(s.experts.n_ff));
    }
}

SynthResult synthesize(const SynthOptions& options, const GgufFile& vocab, const std::string& out_path,
                       const std::function<void(const std::string&)>& note) {
    ModelShape shape = options.shape;
    const int64_t n_tokens = vocab_token_count(vocab);
    const bool padded = options.pad_vocab && n_tokens < shape.n_vocab;
    if (n_tokens != shape.n_vocab && !padded) {
        if (note)
            note("the vocab has " + std::to_string(n_tokens) + " tokens, " + shape.name + " has " +
                 std::to_string(shape.n_vocab) + ": the model follows the vocab");
        shape.n_vocab = n_tokens;
    }
    if (shape.n_head <= 0 || shape.n_head_kv <= 0 || shape.n_head % shape.n_head_kv != 0 ||
        (shape.head_size <= 0 && shape.n_embd % shape.n_head != 0))
        throw Error(out_path + ": shape " + shape.name + " has inconsistent head counts");

    const std::vector<PlannedTensor> plan = plan_tensors(shape, options.file_type);
    const kernels::KernelTable& kernels = kernels::reference_kernels();
    std::map<TensorType, BlockPool> pools;
    for (const auto& t : plan) {
        const kernels::QuantizeRowFn quantize = kernels.of(t.type).quantize.fn();
        if (!quantize)
            throw Error(out_path + ": the kernels have no quantizer for " +
                        std::string(kernels::type_traits(t.type).name) + " (tensor " + t.name + ")");
        if (uses_pool(t, options) && !pools.count(t.type))
            pools.try_emplace(t.type, t.type, quantize, options);
    }

    GgufWriter w;
    add_model_metadata(w, shape, options.file_type);
    write_vocab(w, vocab, shape.n_vocab);

    const int threads = thread_count(options.threads);
    for (size_t index = 0; index < plan.size(); ++index) {
        const PlannedTensor& t = plan[index];
        const int64_t n = t.shape[0];
        const size_t row_bytes = kernels::row_bytes(t.type, n);
        const size_t blocks_per_row = static_cast<size_t>(n / kernels::type_traits(t.type).block_elements);
        const BlockPool* pool = uses_pool(t, options) ? &pools.at(t.type) : nullptr;
        const kernels::QuantizeRowFn quantize = kernels.of(t.type).quantize.fn();
        const float center = t.init == TensorInit::Norm ? 1.0f : 0.0f;

        auto fill = [&, index, n, row_bytes, blocks_per_row, pool, quantize,
                     center](int64_t first, int64_t count, std::byte* dst) {
            parallel_rows(count, threads, [&](int64_t begin, int64_t end) {
                std::vector<float> values(static_cast<size_t>(n));
                for (int64_t r = begin; r < end; ++r) {
                    std::byte* out = dst + static_cast<size_t>(r) * row_bytes;
                    Random random(options.seed, index, static_cast<uint64_t>(first + r));
                    if (pool) {
                        pool->fill_row(random, out, blocks_per_row);
                        continue;
                    }
                    if (t.init == TensorInit::Given)
                        std::copy(t.values.begin(), t.values.end(), values.begin());
                    else
                        random_values(random, center, options.weight_std, values.data(), n);
                    quantize(values.data(), out, n);
                }
            });
        };
        w.add_tensor(t.name, t.shape, t.type, fill);
    }
    w.write(out_path);

    SynthResult result;
    result.shape = shape;
    result.tensor_count = plan.size();
    result.file_bytes = GgufFile::open(out_path)->file_size(); // also checks what was written
    return result;
}

} // namespace hearth::gguf
