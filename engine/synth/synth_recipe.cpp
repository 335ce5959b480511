#include "engine/synth/synth_recipe.h"
#include <array>

namespace hearth::gguf {

namespace {

using kernels::TensorType;

struct FileTypeInfo {
    FileType file_type;
    std::string_view name;
    TensorType default_type;
};

constexpr std::array<FileTypeInfo, 17> kFileTypes = {{
    {FileType::F32, "F32", TensorType::F32},
    {FileType::F16, "F16", TensorType::F16},
    {FileType::BF16, "BF16", TensorType::BF16},
    {FileType::Q4_0, "Q4_0", TensorType::Q4_0},
    {FileType::Q4_1, "Q4_1", TensorType::Q4_1},
    {FileType::Q5_0, "Q5_0", TensorType::Q5_0},
    {FileType::Q5_1, "Q5_1", TensorType::Q5_1},
    {FileType::Q8_0, "Q8_0", TensorType::Q8_0},
    {FileType::Q2_K, "Q2_K", TensorType::Q2_K},
    {FileType::Q3_K_S, "Q3_K_S", TensorType::Q3_K},
    {FileType::Q3_K_M, "Q3_K_M", TensorType::Q3_K},
    {FileType::Q3_K_L, "Q3_K_L", TensorType::Q3_K},
    {FileType::Q4_K_S, "Q4_K_S", TensorType::Q4_K},
    {FileType::Q4_K_M, "Q4_K_M", TensorType::Q4_K},
    {FileType::Q5_K_S, "Q5_K_S", TensorType::Q5_K},
    {FileType::Q5_K_M, "Q5_K_M", TensorType::Q5_K},
    {FileType::Q6_K, "Q6_K", TensorType::Q6_K},
}};

const FileTypeInfo& info(FileType t) {
    for (const auto& i : kFileTypes)
        if (i.file_type == t) return i;
    return kFileTypes[0];
}

char upper(char c) {
    return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

bool contains(const std::string& s, std::string_view part) {
    return s.find(part) != std::string::npos;
}

bool fits_blocks(TensorType t, int64_t row) {
    return row % kernels::type_traits(t).block_elements == 0;
}

// llama.cpp's substitute when a row is not a whole number of the chosen type's blocks.
TensorType fallback_type(TensorType t, int64_t row) {
    TensorType substitute = TensorType::F16;
    switch (t) {
    case TensorType::Q4_K:
        substitute = TensorType::Q5_0;
        break;
    case TensorType::Q5_K:
        substitute = TensorType::Q5_1;
        break;
    case TensorType::Q6_K:
        substitute = TensorType::Q8_0;
        break;
    // llama.cpp now uses IQ4_NL here (Q4_0 before it existed); the engine has no IQ4_NL.
    case TensorType::Q2_K:
    case TensorType::Q3_K:
        substitute = TensorType::Q4_0;
        break;
    default:
        break;
    }
    return fits_blocks(substitute, row) ? substitute : TensorType::F16;
}

struct TensorContext {
    const ModelShape& shape;
    FileType file_type;
    int64_t layer = -1; // -1 outside the blocks
};

// llama.cpp's special case for the 8-expert models (Mixtral): attn_k and attn_v in Q8_0, and
// attn_output in Q5_K for the mixes below 5 bits.
bool is_eight_expert_model(const ModelShape& shape) {
    return shape.experts.count == 8;
}

bool eight_expert_output_in_q5_k(FileType ft) {
    return ft == FileType::Q2_K || ft == FileType::Q3_K_S || ft == FileType::Q3_K_M ||
           ft == FileType::Q4_K_S || ft == FileType::Q4_K_M;
}

// The type llama.cpp's quantizer picks for a quantizable weight matrix. A fused attn_qkv
// follows attn_v's rule (llama.cpp counts both as "attention-v-like").
TensorType quantized_type(const std::string& name, int64_t row, const TensorContext& c) {
    const FileType ft = c.file_type;
    const TensorType default_type = default_tensor_type(ft);
    const int64_t n_layer = c.shape.n_layer;
    const int64_t i = c.layer;
    TensorType t = default_type;

    const bool is_output =
        name == "output.weight" || (c.shape.tied_embeddings && name == "token_embd.weight");
    if (is_output) {
        if (!fits_blocks(default_type, row))
            t = TensorType::Q8_0;
        else if (default_type != TensorType::Q8_0)
            t = TensorType::Q6_K;
    } else if (name == "token_embd.weight") {
        // kept at the default type for these file types
    } else if (contains(name, "attn_v.weight") || contains(name, "attn_qkv.weight")) {
        const int64_t n_gqa = c.shape.n_head / c.shape.n_head_kv;
        if (ft == FileType::Q2_K)
            t = n_gqa >= 4 ? TensorType::Q4_K : TensorType::Q3_K;
        else if (ft == FileType::Q3_K_M)
            t = i < 2 ? TensorType::Q5_K : TensorType::Q4_K;
        else if (ft == FileType::Q3_K_L)
            t = TensorType::Q5_K;
        else if ((ft == FileType::Q4_K_M || ft == FileType::Q5_K_M) && use_more_bits(i, n_layer))
            t = TensorType::Q6_K;
        else if (ft == FileType::Q4_K_S && i < 4)
            t = TensorType::Q5_K;
        if (is_eight_expert_model(c.shape)) t = TensorType::Q8_0;
    } else if (contains(name, "attn_k.weight")) {
        if (is_eight_expert_model(c.shape)) t = TensorType::Q8_0;
    } else if (contains(name, "ffn_down")) { // ffn_down and ffn_down_exps, by layer
        if (ft == FileType::Q2_K)
            t = TensorType::Q3_K;
        else if (ft == FileType::Q3_K_M)
            t = i < n_layer / 16 ? TensorType::Q5_K : TensorType::Q4_K;
        else if (ft == FileType::Q3_K_L)
            t = TensorType::Q5_K;
        else if ((ft == FileType::Q4_K_M || ft == FileType::Q5_K_M) && use_more_bits(i, n_layer))
            t = TensorType::Q6_K;
        else if (ft == FileType::Q4_K_S && i < n_layer / 8)
            t = TensorType::Q5_K;
    } else if (contains(name, "attn_output.weight")) {
        if (is_eight_expert_model(c.shape)) {
            if (eight_expert_output_in_q5_k(ft)) t = TensorType::Q5_K;
        } else if (ft == FileType::Q2_K) {
            t = TensorType::Q3_K;
        } else if (ft == FileType::Q3_K_M) {
            t = TensorType::Q4_K;
        } else if (ft == FileType::Q3_K_L) {
            t = TensorType::Q5_K;
        }
    }
    return fits_blocks(t, row) ? t : fallback_type(t, row);
}

// llama.cpp quantizes tensors named *weight with two or more dimensions, except norms and
// the experts' router (ffn_gate_inp), which it keeps in F32.
bool is_quantizable(const std::string& name, const std::vector<int64_t>& shape) {
    const bool weight = name.size() >= 6 && name.compare(name.size() - 6, 6, "weight") == 0;
    return weight && shape.size() >= 2 && !contains(name, "_norm.weight") && !contains(name, "ffn_gate_inp");
}

} // namespace

std::string_view file_type_name(FileType t) {
    return info(t).name;
}

std::optional<FileType> file_type_from_name(std::string_view name) {
    for (const auto& i : kFileTypes) {
        if (i.name.size() != name.size()) continue;
        bool same = true;
        for (size_t k = 0; k < name.size() && same; ++k)
            same = upper(name[k]) == i.name[k];
        if (same) return i.file_type;
    }
    return std::nullopt;
}

std::vector<FileType> all_file_types() {
    std::vector<FileType> all;
    for (const auto& i : kFileTypes)
        all.push_back(i.file_type);
    return all;
}

kernels::TensorType default_tensor_type(FileType t) {
    return info(t).default_type;
}

bool is_quantized(FileType t) {
    return t != FileType::F32 && t != FileType::F16 && t != FileType::BF16;
}

bool use_more_bits(int64_t layer, int64_t n_layers) {
    return layer < n_layers / 8 || layer >= 7 * n_layers / 8 || (layer - n_layers / 8) % 3 == 2;
}

std::vector<PlannedTensor> plan_tensors(const ModelShape& shape, FileType file_type) {
    std::vector<PlannedTensor> plan;
    const auto add = [&](std::string name, std::vector<int64_t> dims, TensorInit init, int64_t layer) {
        PlannedTensor t;
        t.name = std::move(name);
        t.shape = std::move(dims);
        t.init = init;
        if (!is_quantizable(t.name, t.shape))
            t.type = TensorType::F32;
        else if (!is_quantized(file_type))
            t.type = default_tensor_type(file_type);
        else
            t.type = quantized_type(t.name, t.shape[0], TensorContext{shape, file_type, layer});
        plan.push_back(std::move(t));
    };
    const auto add_given = [&](std::string name, std::vector<float> values) {
        add(std::move(name), {static_cast<int64_t>(values.size())}, TensorInit::Given, -1);
        plan.back().values = std::move(values);
    };

    const int64_t n_embd = shape.n_embd;
    const int64_t n_q = shape.n_embd_q();
    const int64_t n_kv = shape.n_embd_kv();
    const int64_t head = shape.head_dim();
    add("token_embd.weight", {n_embd, shape.n_vocab}, TensorInit::Weight, -1);
    if (shape.rope_scaling.factor > 0) add_given("rope_freqs.weight", llama3_rope_factors(shape));
    if (shape.long_rope.original_context > 0) {
        add_given("rope_factors_long.weight", shape.long_rope.long_factors);
        add_given("rope_factors_short.weight", shape.long_rope.short_factors);
    }
    for (int64_t i = 0; i < shape.n_layer; ++i) {
        const std::string blk = "blk." + std::to_string(i) + ".";
        const auto weight = [&](const std::string& rest, std::vector<int64_t> dims) {
            add(blk + rest, std::move(dims), TensorInit::Weight, i);
        };
        const auto norm = [&](const std::string& rest, int64_t n) {
            add(blk + rest, {n}, TensorInit::Norm, i);
        };

        norm("attn_norm.weight", n_embd);
        if (shape.fused_qkv) {
            weight("attn_qkv.weight", {n_embd, n_q + 2 * n_kv});
            if (shape.qkv_bias) weight("attn_qkv.bias", {n_q + 2 * n_kv});
        } else {
            weight("attn_q.weight", {n_embd, n_q});
            if (shape.qkv_bias) weight("attn_q.bias", {n_q});
            weight("attn_k.weight", {n_embd, n_kv});
            if (shape.qkv_bias) weight("attn_k.bias", {n_kv});
            weight("attn_v.weight", {n_embd, n_kv});
            if (shape.qkv_bias) weight("attn_v.bias", {n_kv});
        }
        if (shape.qk_norm) {
            norm("attn_q_norm.weight", head);
            norm("attn_k_norm.weight", head);
        }
        weight("attn_output.weight", {n_q, n_embd});
        if (shape.post_norms) norm("post_attention_norm.weight", n_embd);
        norm("ffn_norm.weight", n_embd);
        if (shape.experts.count > 0) {
            const int64_t n_expert = shape.experts.count, n_ff = shape.experts.n_ff;
            weight("ffn_gate_inp.weight", {n_embd, n_expert});
            weight("ffn_gate_exps.weight", {n_embd, n_ff, n_expert});
            weight("ffn_up_exps.weight", {n_embd, n_ff, n_expert});
            weight("ffn_down_exps.weight", {n_ff, n_embd, n_expert});
        } else if (shape.fused_gate_up) {
            weight("ffn_up.weight", {n_embd, 2 * shape.n_ff});
            weight("ffn_down.weight", {shape.n_ff, n_embd});
        } else {
            weight("ffn_gate.weight", {n_embd, shape.n_ff});
            weight("ffn_up.weight", {n_embd, shape.n_ff});
            weight("ffn_down.weight", {shape.n_ff, n_embd});
        }
        if (shape.post_norms) norm("post_ffw_norm.weight", n_embd);
    }
    add("output_norm.weight", {n_embd}, TensorInit::Norm, -1);
    if (!shape.tied_embeddings) add("output.weight", {n_embd, shape.n_vocab}, TensorInit::Weight, -1);
    return plan;
}

} // namespace hearth::gguf
