#include "engine/model/model.h"
#include "engine/error.h"
#include "kernels/block_formats.h"
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include <filesystem>
#include <future>
#include <malloc.h>
#include <map>
#include <numeric>
#include <string>

namespace hearth::engine {

namespace {

using kernels::TensorType;

// llama.cpp's file type numbers (general.file_type) and their names.
std::string file_type_name(int64_t ftype) {
    static const std::map<int64_t, std::string> names = {
        {0, "F32"},     {1, "F16"},     {2, "Q4_0"},    {3, "Q4_1"},    {7, "Q8_0"},    {8, "Q5_0"},
        {9, "Q5_1"},    {10, "Q2_K"},   {11, "Q3_K_S"}, {12, "Q3_K_M"}, {13, "Q3_K_L"}, {14, "Q4_K_S"},
        {15, "Q4_K_M"}, {16, "Q5_K_S"}, {17, "Q5_K_M"}, {18, "Q6_K"},   {32, "BF16"}};
    auto it = names.find(ftype);
    return it == names.end() ? std::string() : it->second;
}

std::string upper(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return out;
}

// hp: the engine's own reading of the hyperparameters (read_hyperparams), which fails for a
// file it cannot run.
ModelInfo describe(const gguf::GgufFile& file, const HyperParams& hp) {
    ModelInfo info;
    info.path = file.path();
    info.file_bytes = static_cast<int64_t>(file.file_size());
    info.architecture = file.get_string("general.architecture").value_or("unknown");
    info.name = file.get_string("general.name").value_or(std::filesystem::path(file.path()).stem().string());
    if (auto ftype = file.get_int("general.file_type")) info.file_type = file_type_name(*ftype);
    const std::string p = info.architecture + ".";
    auto int_or = [&](const std::string& key, int64_t fallback) {
        auto v = file.get_int(key);
        return static_cast<int32_t>(v ? *v : fallback);
    };
    info.context_length = int_or(p + "context_length", 0);
    info.n_layer = int_or(p + "block_count", 0);
    info.n_embd = int_or(p + "embedding_length", 0);
    info.n_head = int_or(p + "attention.head_count", 0);
    info.n_head_kv = int_or(p + "attention.head_count_kv", info.n_head);
    info.tokenizer_model = file.get_string("tokenizer.ggml.model").value_or("");
    info.has_chat_template = file.find("tokenizer.chat_template") != nullptr;
    if (const auto* tokens = file.get_array("tokenizer.ggml.tokens"))
        info.n_vocab = static_cast<int32_t>(tokens->items.size());

    // The quantization that holds most of the weight bytes names the model's type.
    std::map<TensorType, size_t> bytes_by_type;
    for (const auto& t : file.tensors()) {
        info.parameters += t.elements();
        if (t.shape.size() >= 2) bytes_by_type[t.type] += t.bytes;
    }
    size_t best = 0;
    for (const auto& [type, bytes] : bytes_by_type)
        if (bytes > best) {
            best = bytes;
            info.quantization = upper(kernels::type_traits(type).name);
        }
    if (info.file_type.empty()) info.file_type = info.quantization;
    info.head_dim = hp.head_dim;
    info.kv_bytes_per_token = info.kv_bytes_per_token_as(TensorType::F16, TensorType::F16);
    return info;
}

class WeightBinder {
public:
    explicit WeightBinder(const gguf::GgufFile& file) : file_(file) {}

    const gguf::TensorInfo* find(const std::string& name) const { return file_.find_tensor(name); }

    // A (rows x cols) matrix, stored in GGUF as shape [cols, rows].
    kernels::WeightMatrix matrix(const std::string& name, int64_t cols, int64_t rows) const {
        const auto* t = find(name);
        if (!t) file_.fail("missing tensor " + name);
        if (t->shape.size() != 2 || t->shape[0] != cols || t->shape[1] != rows)
            file_.fail("tensor " + name + " has shape " + shape_text(t->shape) + ", expected [" +
                       std::to_string(cols) + ", " + std::to_string(rows) + "]");
        if (!kernels::reference_kernels().multiplies(t->type))
            file_.fail("tensor " + name + " has type " + std::string(kernels::type_traits(t->type).name) +
                       ", which the engine cannot multiply");
        return kernels::WeightMatrix{t->type, rows, cols, t->data};
    }

    // A 3-D tensor [cols, rows, n] as one matrix of n x rows rows (n stacked matrices).
    kernels::WeightMatrix stacked(const std::string& name, int64_t cols, int64_t rows, int64_t n) const {
        const auto* t = find(name);
        if (!t) file_.fail("missing tensor " + name);
        if (t->shape.size() != 3 || t->shape[0] != cols || t->shape[1] != rows || t->shape[2] != n)
            file_.fail("tensor " + name + " has shape " + shape_text(t->shape) + ", expected [" +
                       std::to_string(cols) + ", " + std::to_string(rows) + ", " + std::to_string(n) + "]");
        if (!kernels::reference_kernels().multiplies(t->type))
            file_.fail("tensor " + name + " has type " + std::string(kernels::type_traits(t->type).name) +
                       ", which the engine cannot multiply");
        return kernels::WeightMatrix{t->type, rows * n, cols, t->data};
    }

    // A vector of n values, converted to F32; empty if absent and not required.
    std::vector<float> vector(const std::string& name, int64_t n, bool required) const {
        const auto* t = find(name);
        if (!t) {
            if (required) file_.fail("missing tensor " + name);
            return {};
        }
        if (t->elements() != n || (t->shape.size() != 1 && !(t->shape.size() == 2 && t->shape[1] == 1)))
            file_.fail("tensor " + name + " has shape " + shape_text(t->shape) + ", expected [" +
                       std::to_string(n) + "]");
        const kernels::DequantizeRowFn dequantize = kernels::reference_kernels().of(t->type).dequantize.fn();
        if (!dequantize)
            file_.fail("tensor " + name + " has type " + std::string(kernels::type_traits(t->type).name) +
                       ", which the engine cannot read");
        std::vector<float> out(static_cast<size_t>(n));
        dequantize(t->data, out.data(), n);
        return out;
    }

    static std::string shape_text(const std::vector<int64_t>& shape) {
        std::string s = "[";
        for (size_t i = 0; i < shape.size(); ++i)
            s += (i ? ", " : "") + std::to_string(shape[i]);
        return s + "]";
    }

private:
    const gguf::GgufFile& file_;
};

} // namespace

int64_t ModelInfo::kv_bytes_per_token_as(TensorType key_type, TensorType value_type) const {
    const auto head_bytes = [this](TensorType type) {
        const bool fits = head_dim > 0 && head_dim % kernels::type_traits(type).block_elements == 0;
        return static_cast<int64_t>(kernels::row_bytes(fits ? type : TensorType::F16, head_dim));
    };
    return int64_t{n_layer} * n_head_kv * (head_bytes(key_type) + head_bytes(value_type));
}

int64_t ModelInfo::estimated_bytes(int32_t n_ctx, TensorType key_type, TensorType value_type) const {
    return file_bytes + kv_bytes_per_token_as(key_type, value_type) * n_ctx;
}

ModelInfo Model::read_info(const std::string& path) {
    return read_info(*gguf::GgufFile::open(path));
}

ModelInfo Model::read_info(const gguf::GgufFile& file) {
    return describe(file, read_hyperparams(file));
}

std::shared_ptr<const Model> Model::load(const std::string& path,
                                         const std::function<void(const ModelInfo&)>& before_weights,
                                         WeightCopy copy) {
    std::shared_ptr<Model> model(new Model());
    const std::shared_ptr<gguf::GgufFile> loading = gguf::GgufFile::open_for_loading(path);
    model->file_ = loading;
    const gguf::GgufFile& file = *loading;
    HyperParams& hp = model->hparams_;
    hp = read_hyperparams(file);
    model->info_ = describe(file, hp);
    if (before_weights) before_weights(model->info_);

    WeightBinder bind(file);
    const auto* embd = bind.find("token_embd.weight");
    if (!embd) file.fail("missing tensor token_embd.weight");
    if (embd->shape.size() != 2) file.fail("tensor token_embd.weight must have 2 dimensions");
    hp.n_vocab = static_cast<int32_t>(embd->shape[1]);
    if (const gguf::Array* tokens = file.get_array("tokenizer.ggml.tokens");
        tokens != nullptr && tokens->items.size() > static_cast<size_t>(hp.n_vocab))
        file.fail("the tokenizer has " + std::to_string(tokens->items.size()) +
                  " tokens but token_embd.weight only " + std::to_string(hp.n_vocab) + " rows");

    // The tokenizer is built (tens of ms for a vocabulary of 128k tokens and 280k merges) while
    // the weights are bound and their cached copy checked; its errors still come first. It holds
    // its own copy of the vocabulary, so the file's arrays go as soon as it is built (the weights
    // read only tensors), and before any copy of the weights is made in memory.
    std::future<std::unique_ptr<tokenizer::Tokenizer>> tokenizer = std::async(std::launch::async, [loading] {
        std::unique_ptr<tokenizer::Tokenizer> built = tokenizer::Tokenizer::from_gguf(*loading);
        loading->release_large_arrays();
        ::malloc_trim(0); // the arrays' memory back to the system, not kept in the heap's free lists
        return built;
    });
    try {
        bind_weights(*model, file, copy, [&tokenizer] { tokenizer.wait(); });
    } catch (...) {
        tokenizer.get();
        throw;
    }
    model->tokenizer_ = tokenizer.get();
    model->chat_template_ = file.get_string("tokenizer.chat_template").value_or("");
    // The tokenizer holds its own copy of the vocabulary: the file's is not kept beside the weights.
    loading->release_large_arrays();
    return model;
}

void Model::bind_weights(Model& model, const gguf::GgufFile& file, WeightCopy copy,
                         const std::function<void()>& before_copying) {
    const HyperParams& hp = model.hparams_;
    WeightBinder bind(file);
    ModelWeights& w = model.weights_;
    w.token_embd = bind.matrix("token_embd.weight", hp.n_embd, hp.n_vocab);
    if (!kernels::reference_kernels().of(w.token_embd.type).dequantize.fn())
        file.fail("token_embd.weight has a type the engine cannot read");
    w.output_norm = bind.vector("output_norm.weight", hp.n_embd, true);
    w.output =
        bind.find("output.weight") ? bind.matrix("output.weight", hp.n_embd, hp.n_vocab) : w.token_embd;
    w.rope_freq_factors = bind.vector("rope_freqs.weight", hp.rope_dim / 2, false);

    const ArchitectureTraits& traits = hp.traits;
    const bool layer_norm = traits.norm == NormKind::LayerNorm;
    w.output_norm_b = bind.vector("output_norm.bias", hp.n_embd, layer_norm);
    if (traits.positions == PositionKind::Learned) {
        const auto* pos = bind.find("position_embd.weight");
        if (!pos) file.fail("missing tensor position_embd.weight");
        if (pos->shape.size() != 2 || pos->shape[0] != hp.n_embd)
            file.fail("tensor position_embd.weight has shape " + WeightBinder::shape_text(pos->shape) +
                      ", expected [" + std::to_string(hp.n_embd) + ", n_positions]");
        w.n_positions = static_cast<int32_t>(pos->shape[1]);
        const kernels::DequantizeRowFn dequantize =
            kernels::reference_kernels().of(pos->type).dequantize.fn();
        if (!dequantize) file.fail("position_embd.weight has a type the engine cannot read");
        w.position_embd.resize(static_cast<size_t>(w.n_positions) * static_cast<size_t>(hp.n_embd));
        dequantize(pos->data, w.position_embd.data(), static_cast<int64_t>(w.position_embd.size()));
    }
    w.rope_factors_long = bind.vector("rope_factors_long.weight", hp.rope_dim / 2, false);
    w.rope_factors_short = bind.vector("rope_factors_short.weight", hp.rope_dim / 2, false);

    const bool gated = traits.ffn == FfnKind::Swiglu || traits.ffn == FfnKind::GeluGated;
    const bool moe = traits.ffn == FfnKind::MixtureOfExperts;
    const int64_t qw = hp.q_width(), kvw = hp.kv_width();
    w.layers.resize(static_cast<size_t>(hp.n_layer));
    for (int32_t i = 0; i < hp.n_layer; ++i) {
        const std::string b = "blk." + std::to_string(i) + ".";
        LayerWeights& l = w.layers[static_cast<size_t>(i)];
        l.attn_norm = bind.vector(b + "attn_norm.weight", hp.n_embd, true);
        l.attn_norm_b = bind.vector(b + "attn_norm.bias", hp.n_embd, layer_norm);
        if (traits.fused_qkv) {
            l.wqkv = bind.matrix(b + "attn_qkv.weight", hp.n_embd, qw + 2 * kvw);
            std::vector<float> bias = bind.vector(b + "attn_qkv.bias", qw + 2 * kvw, traits.qkv_bias);
            if (!bias.empty()) {
                l.bq.assign(bias.begin(), bias.begin() + qw);
                l.bk.assign(bias.begin() + qw, bias.begin() + qw + kvw);
                l.bv.assign(bias.begin() + qw + kvw, bias.end());
            }
        } else {
            l.wq = bind.matrix(b + "attn_q.weight", hp.n_embd, qw);
            l.wk = bind.matrix(b + "attn_k.weight", hp.n_embd, kvw);
            l.wv = bind.matrix(b + "attn_v.weight", hp.n_embd, kvw);
            l.bq = bind.vector(b + "attn_q.bias", qw, traits.qkv_bias);
            l.bk = bind.vector(b + "attn_k.bias", kvw, traits.qkv_bias);
            l.bv = bind.vector(b + "attn_v.bias", kvw, traits.qkv_bias);
        }
        if (l.bq.empty() != l.bk.empty() || l.bq.empty() != l.bv.empty())
            file.fail("layer " + std::to_string(i) + " has some of the Q, K, V biases but not all");
        l.wo = bind.matrix(b + "attn_output.weight", qw, hp.n_embd);
        l.bo = bind.vector(b + "attn_output.bias", hp.n_embd, traits.linear_biases);
        l.q_norm = bind.vector(b + "attn_q_norm.weight", hp.head_dim, traits.qk_norm);
        l.k_norm = bind.vector(b + "attn_k_norm.weight", hp.head_dim, traits.qk_norm);
        if (l.q_norm.empty() != l.k_norm.empty())
            file.fail("layer " + std::to_string(i) + " has one of the Q/K norms but not the other");
        l.post_attn_norm = bind.vector(b + "post_attention_norm.weight", hp.n_embd, traits.post_norms);
        l.ffn_norm = bind.vector(b + "ffn_norm.weight", hp.n_embd, true);
        l.ffn_norm_b = bind.vector(b + "ffn_norm.bias", hp.n_embd, layer_norm);
        l.post_ffn_norm = bind.vector(b + "post_ffw_norm.weight", hp.n_embd, traits.post_norms);
        if (moe) {
            l.router = bind.matrix(b + "ffn_gate_inp.weight", hp.n_embd, hp.n_expert);
            l.gate_exps = bind.stacked(b + "ffn_gate_exps.weight", hp.n_embd, hp.n_ff_expert, hp.n_expert);
            l.up_exps = bind.stacked(b + "ffn_up_exps.weight", hp.n_embd, hp.n_ff_expert, hp.n_expert);
            l.down_exps = bind.stacked(b + "ffn_down_exps.weight", hp.n_ff_expert, hp.n_embd, hp.n_expert);
        } else if (traits.fused_gate_up) {
            l.w_gate_up = bind.matrix(b + "ffn_up.weight", hp.n_embd, 2 * int64_t{hp.n_ff});
            l.w_down = bind.matrix(b + "ffn_down.weight", hp.n_ff, hp.n_embd);
        } else {
            if (gated) l.w_gate = bind.matrix(b + "ffn_gate.weight", hp.n_embd, hp.n_ff);
            l.w_up = bind.matrix(b + "ffn_up.weight", hp.n_embd, hp.n_ff);
            l.w_down = bind.matrix(b + "ffn_down.weight", hp.n_ff, hp.n_embd);
            l.b_up = bind.vector(b + "ffn_up.bias", hp.n_ff, traits.linear_biases);
            l.b_down = bind.vector(b + "ffn_down.bias", hp.n_embd, traits.linear_biases);
        }
    }

    // Copies of the weights in the layout decode reads fastest; a matrix that is cut into row
    // ranges afterwards (fused Q/K/V, fused gate+up, experts) only where the cuts fall on whole
    // groups of the repacked layout.
    std::vector<kernels::WeightMatrix*> matrices{&w.token_embd, &w.output};
    for (LayerWeights& l : w.layers) {
        for (kernels::WeightMatrix* m :
             {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down, &l.router})
            matrices.push_back(m);
        if (can_cut_after_repacking(l.wqkv, std::gcd(qw, kvw))) matrices.push_back(&l.wqkv);
        if (can_cut_after_repacking(l.w_gate_up, hp.n_ff)) matrices.push_back(&l.w_gate_up);
        if (can_cut_after_repacking(l.gate_exps, hp.n_ff_expert)) matrices.push_back(&l.gate_exps);
        if (can_cut_after_repacking(l.up_exps, hp.n_ff_expert)) matrices.push_back(&l.up_exps);
        if (can_cut_after_repacking(l.down_exps, hp.n_embd)) matrices.push_back(&l.down_exps);
    }
    if (copy == WeightCopy::Repacked) {
        model.repacked_.repack(matrices, file, repack_cache_options(), before_copying);
        // Binding copied the small vectors (norms, biases) out of the file, and a file system
        // with large folios maps 2 MiB of it for each: those pages are given back (a matrix that
        // is still read from the file faults its pages in again).
        const gguf::TensorInfo& first = file.tensors().front();
        file.release_pages(first.data - first.offset, file.file_size() - file.data_offset());
    }

    for (LayerWeights& l : w.layers) {
        if (l.wqkv.data) {
            l.wq = row_range(l.wqkv, 0, qw);
            l.wk = row_range(l.wqkv, qw, qw + kvw);
            l.wv = row_range(l.wqkv, qw + kvw, qw + 2 * kvw);
        }
        if (l.w_gate_up.data) {
            l.w_gate = row_range(l.w_gate_up, 0, hp.n_ff);
            l.w_up = row_range(l.w_gate_up, hp.n_ff, 2 * int64_t{hp.n_ff});
        }
        if (moe) {
            l.experts.resize(static_cast<size_t>(hp.n_expert));
            const int64_t ff = hp.n_ff_expert, dim = hp.n_embd;
            for (int64_t e = 0; e < hp.n_expert; ++e) {
                ExpertWeights& x = l.experts[static_cast<size_t>(e)];
                x.w_gate = row_range(l.gate_exps, e * ff, (e + 1) * ff);
                x.w_up = row_range(l.up_exps, e * ff, (e + 1) * ff);
                x.w_down = row_range(l.down_exps, e * dim, (e + 1) * dim);
            }
        }
    }
}

} // namespace hearth::engine
