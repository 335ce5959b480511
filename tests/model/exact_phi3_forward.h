#pragma once
// Exact math for a phi3 model with F32 weights: the forward pass in float64, written from the
// architecture's definition and read straight from the file's metadata and tensors (none of the
// engine's code), the yardstick ../shared/testdata/reference is for the test data's files.
// embed -> per layer (RMSNorm -> fused QKV -> NeoX RoPE on the first rope.dimension_count
// values of each head -> causal softmax attention scaled by 1/sqrt(head size) -> output
// projection -> residual -> RMSNorm -> fused gate+up (gate rows first) -> SiLU(gate) * up ->
// down -> residual) -> RMSNorm -> output. The window phi3 files declare is ignored: llama.cpp
// does not apply it, and the sequences here are far shorter.
#include "engine/gguf/gguf_file.h"
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace hearth::test {

class ExactPhi3Forward {
public:
    explicit ExactPhi3Forward(const gguf::GgufFile& file) : file_(file) {
        if (file.get_string("general.architecture") != "phi3") fail("not a phi3 model");
        n_embd_ = metadata_int("phi3.embedding_length");
        n_layer_ = metadata_int("phi3.block_count");
        n_ff_ = metadata_int("phi3.feed_forward_length");
        n_head_ = metadata_int("phi3.attention.head_count");
        n_head_kv_ = file.get_int("phi3.attention.head_count_kv").value_or(n_head_);
        head_dim_ = n_embd_ / n_head_;
        rope_dim_ = file.get_int("phi3.rope.dimension_count").value_or(head_dim_);
        rope_base_ = file.get_float("phi3.rope.freq_base").value_or(10000.0);
        eps_ = file.get_float("phi3.attention.layer_norm_rms_epsilon").value_or(1e-5);
        n_vocab_ = tensor("token_embd.weight", n_embd_).rows;
    }

    int64_t n_vocab() const { return n_vocab_; }
    int64_t rope_dim() const { return rope_dim_; }
    int64_t head_dim() const { return head_dim_; }

    // The logits after every token of the sequence, positions from 0: tokens.size() x n_vocab.
    std::vector<double> logits(std::span<const int32_t> tokens) const {
        const int64_t n = static_cast<int64_t>(tokens.size());
        const Matrix embedding = tensor("token_embd.weight", n_embd_);
        std::vector<std::vector<double>> x(static_cast<size_t>(n));
        for (int64_t t = 0; t < n; ++t) {
            if (tokens[size_t(t)] < 0 || tokens[size_t(t)] >= n_vocab_) fail("a token outside the vocab");
            const float* row = embedding.row(tokens[size_t(t)]);
            x[size_t(t)].assign(row, row + n_embd_);
        }
        const int64_t kv_width = n_head_kv_ * head_dim_;
        for (int64_t layer = 0; layer < n_layer_; ++layer) {
            const std::string blk = "blk." + std::to_string(layer) + ".";
            const Matrix qkv_weight = tensor(blk + "attn_qkv.weight", n_embd_);
            const Matrix out_weight = tensor(blk + "attn_output.weight", n_head_ * head_dim_);
            std::vector<std::vector<double>> q(static_cast<size_t>(n)), k(q), v(q);
            for (int64_t t = 0; t < n; ++t) {
                const std::vector<double> qkv =
                    multiply(qkv_weight, rms_norm(x[size_t(t)], blk + "attn_norm.weight"));
                const auto at = [&](int64_t offset) { return qkv.begin() + offset; };
                q[size_t(t)].assign(at(0), at(n_head_ * head_dim_));
                k[size_t(t)].assign(at(n_head_ * head_dim_), at(n_head_ * head_dim_ + kv_width));
                v[size_t(t)].assign(at(n_head_ * head_dim_ + kv_width),
                                    at(n_head_ * head_dim_ + 2 * kv_width));
                rotate(q[size_t(t)], n_head_, t);
                rotate(k[size_t(t)], n_head_kv_, t);
            }
            const double scale = 1.0 / std::sqrt(double(head_dim_));
            for (int64_t t = 0; t < n; ++t) {
                std::vector<double> attended(static_cast<size_t>(n_head_ * head_dim_), 0.0);
                for (int64_t h = 0; h < n_head_; ++h) {
                    const int64_t kv_head = h / (n_head_ / n_head_kv_);
                    std::vector<double> scores(static_cast<size_t>(t + 1));
                    double largest = -INFINITY;
                    for (int64_t s = 0; s <= t; ++s) {
                        double dot = 0;
                        for (int64_t i = 0; i < head_dim_; ++i)
                            dot += q[size_t(t)][size_t(h * head_dim_ + i)] *
                                   k[size_t(s)][size_t(kv_head * head_dim_ + i)];
                        scores[size_t(s)] = dot * scale;
                        largest = std::max(largest, scores[size_t(s)]);
                    }
                    double total = 0;
                    for (double& score : scores)
                        total += score = std::exp(score - largest);
                    for (int64_t s = 0; s <= t; ++s)
                        for (int64_t i = 0; i < head_dim_; ++i)
                            attended[size_t(h * head_dim_ + i)] +=
                                scores[size_t(s)] / total * v[size_t(s)][size_t(kv_head * head_dim_ + i)];
                }
                add(x[size_t(t)], multiply(out_weight, attended));
            }
            const Matrix up_weight = tensor(blk + "ffn_up.weight", n_embd_);
            const Matrix down_weight = tensor(blk + "ffn_down.weight", n_ff_);
            for (int64_t t = 0; t < n; ++t) {
                const std::vector<double> gate_up =
                    multiply(up_weight, rms_norm(x[size_t(t)], blk + "ffn_norm.weight"));
                std::vector<double> hidden(static_cast<size_t>(n_ff_));
                for (int64_t i = 0; i < n_ff_; ++i) {
                    const double gate = gate_up[size_t(i)];
                    hidden[size_t(i)] = gate / (1.0 + std::exp(-gate)) * gate_up[size_t(n_ff_ + i)];
                }
                add(x[size_t(t)], multiply(down_weight, hidden));
            }
        }
        const std::string output_name =
            file_.find_tensor("output.weight") ? "output.weight" : "token_embd.weight";
        const Matrix output = tensor(output_name, n_embd_);
        std::vector<double> all;
        all.reserve(size_t(n * n_vocab_));
        for (int64_t t = 0; t < n; ++t) {
            const std::vector<double> row = multiply(output, rms_norm(x[size_t(t)], "output_norm.weight"));
            all.insert(all.end(), row.begin(), row.end());
        }
        return all;
    }

private:
    struct Matrix {
        const float* data = nullptr;
        int64_t columns = 0, rows = 0;
        const float* row(int64_t r) const { return data + r * columns; }
    };

    [[noreturn]] void fail(const std::string& problem) const {
        throw std::runtime_error(file_.path() + ": " + problem);
    }
    int64_t metadata_int(const std::string& key) const {
        const auto value = file_.get_int(key);
        if (!value || *value <= 0) fail("no " + key);
        return *value;
    }
    // An F32 tensor whose rows have `columns` values.
    Matrix tensor(const std::string& name, int64_t columns) const {
        const gguf::TensorInfo* info = file_.find_tensor(name);
        if (!info) fail("no tensor " + name);
        if (info->type != kernels::TensorType::F32) fail(name + " is not F32");
        if (info->shape.empty() || info->shape[0] != columns) fail(name + " has rows of another length");
        return {reinterpret_cast<const float*>(info->data), columns, info->elements() / columns};
    }
    std::vector<double> multiply(const Matrix& m, const std::vector<double>& x) const {
        std::vector<double> y(static_cast<size_t>(m.rows));
        for (int64_t r = 0; r < m.rows; ++r) {
            const float* row = m.row(r);
            double sum = 0;
            for (int64_t c = 0; c < m.columns; ++c)
                sum += double(row[c]) * x[size_t(c)];
            y[size_t(r)] = sum;
        }
        return y;
    }
    std::vector<double> rms_norm(const std::vector<double>& x, const std::string& weight_name) const {
        const Matrix weight = tensor(weight_name, n_embd_);
        double squares = 0;
        for (double value : x)
            squares += value * value;
        const double scale = 1.0 / std::sqrt(squares / double(x.size()) + eps_);
        std::vector<double> y(x.size());
        for (size_t i = 0; i < x.size(); ++i)
            y[i] = x[i] * scale * double(weight.data[i]);
        return y;
    }
    static void add(std::vector<double>& x, const std::vector<double>& y) {
        for (size_t i = 0; i < x.size(); ++i)
            x[i] += y[i];
    }
    // NeoX rotation of the first rope_dim values of each head: value i pairs with
    // i + rope_dim / 2 and turns by position * base^(-2i / rope_dim) radians; the rest of the
    // head is left as it is.
    void rotate(std::vector<double>& heads, int64_t count, int64_t position) const {
        const int64_t pairs = rope_dim_ / 2;
        for (int64_t h = 0; h < count; ++h)
            for (int64_t i = 0; i < pairs; ++i) {
                const double theta =
                    double(position) * std::pow(rope_base_, -2.0 * double(i) / double(rope_dim_));
                double& a = heads[size_t(h * head_dim_ + i)];
                double& b = heads[size_t(h * head_dim_ + i + pairs)];
                const double x0 = a, x1 = b;
                a = x0 * std::cos(theta) - x1 * std::sin(theta);
                b = x0 * std::sin(theta) + x1 * std::cos(theta);
            }
    }

    const gguf::GgufFile& file_;
    int64_t n_embd_ = 0, n_layer_ = 0, n_ff_ = 0, n_head_ = 0, n_head_kv_ = 0, head_dim_ = 0, rope_dim_ = 0;
    int64_t n_vocab_ = 0;
    double rope_base_ = 10000, eps_ = 1e-5;
};

} // namespace hearth::test
