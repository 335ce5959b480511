#pragma once
// tiny-phi3 made a LongRoPE model (as Phi-3.5 and Phi-4-mini are), for the suites that need
// one: the test data holds none.
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_value.h"
#include "engine/gguf/gguf_writer.h"
#include "tests/support/test_support.h"
#include <cstring>
#include <string>
#include <vector>

namespace hearth::test {

// tiny-phi3's metadata and tensors, plus rope_factors_short/long of rope_dim / 2 values, the
// original context length n_ctx_orig and the attention factor, written to `path`.
inline void write_longrope_phi3(const std::string& path, const std::vector<float>& short_factors,
                                const std::vector<float>& long_factors, int32_t n_ctx_orig,
                                float attn_factor) {
    const auto source = gguf::GgufFile::open(testdata("models/tiny-phi3.gguf"));
    gguf::GgufWriter writer;
    writer.copy_prefix(*source, "");
    writer.set("phi3.rope.scaling.original_context_length", gguf::uint32_value(uint32_t(n_ctx_orig)));
    writer.set("phi3.rope.scaling.attn_factor", gguf::float32_value(attn_factor));
    writer.copy_tensors(*source);
    auto bytes_of = [](const std::vector<float>& v) {
        std::vector<std::byte> b(v.size() * sizeof(float));
        std::memcpy(b.data(), v.data(), b.size());
        return b;
    };
    const int64_t n = static_cast<int64_t>(short_factors.size());
    writer.add_tensor("rope_factors_short.weight", {n}, kernels::TensorType::F32, bytes_of(short_factors));
    writer.add_tensor("rope_factors_long.weight", {n}, kernels::TensorType::F32, bytes_of(long_factors));
    writer.write(path);
}

} // namespace hearth::test
