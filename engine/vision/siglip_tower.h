#pragma once
// The SigLIP vision transformer of an mmproj file (v.*): patch embedding (a stride-p
// convolution as one F32 matrix product), learned position embeddings, pre-norm blocks
// (LayerNorm, attention with biases over every patch, LayerNorm, GELU MLP with biases) and a
// final LayerNorm. No class token, no pre-LayerNorm, no mask. Every product runs on the active
// kernel table's matmul on the given pool; scratch is allocated here, once. Attention's keys and
// values take the block weights' precision: F32 in an F32 file, else F16 (as llama.cpp's flash
// attention casts them; the F16 products sum in F32), which is what makes a 4096-patch tower fast.
#include "engine/vision/mmproj_file.h"
#include "kernels/matmul.h"
#include "kernels/thread_pool.h"
#include <cstddef>
#include <vector>

namespace hearth::vision {

// The patch embedding's input: each patch's pixels in the convolution weight's (channel, row,
// column) order, one row of 3 * patch * patch per patch, patches row-major. pixels:
// (3, image_size, image_size); patches: (n_patches, 3 * patch * patch).
void image_patches(const VisionHyperParams& hp, const float* pixels, float* patches,
                   kernels::ThreadPool& pool);

class SiglipTower {
public:
    explicit SiglipTower(const MmprojFile& file);
    const VisionHyperParams& hparams() const { return hp_; }
    // pixels: (3, image_size, image_size), normalized; out: (n_patches, n_embd), patches row-major.
    void forward(const float* pixels, float* out, kernels::ThreadPool& pool);

private:
    struct Block {
        std::vector<float> ln1_w, ln1_b, ln2_w, ln2_b; // (n_embd)
        kernels::WeightMatrix wq, wk, wv, wo;          // (n_embd, n_embd)
        std::vector<float> bq, bk, bv, bo;             // (n_embd)
        kernels::WeightMatrix w_up, w_down;            // (n_ff, n_embd), (n_embd, n_ff)
        std::vector<float> b_up, b_down;               // (n_ff), (n_embd)
    };
    void attention(kernels::ThreadPool& pool);                    // q_, k_, v_ -> attn_
    void fused_attention(kernels::ThreadPool& pool, float scale); // the same, F16 keys and values
    VisionHyperParams hp_;
    std::vector<float> patch_w;         // (n_embd, 3 * patch * patch), F32 whatever the file's type
    kernels::WeightMatrix patch_matrix; // over patch_w
    std::vector<float> patch_b;         // (n_embd)
    std::vector<float> position_embd;   // (n_patches, n_embd)
    std::vector<Block> blocks_;
    std::vector<float> post_ln_w, post_ln_b; // (n_embd)
    // Scratch, (rows, width) each.
    std::vector<float> patches_;                 // (n_patches, 3 * patch * patch) the convolution's input
    std::vector<float> xb_;                      // (n_patches, n_embd) normed input of a sublayer
    std::vector<float> q_, k_, v_, attn_, proj_; // (n_patches, n_embd)
    std::vector<float> up_;                      // (n_patches, n_ff)
    std::vector<float> head_q_, head_out_;       // (n_patches, head_dim) one head's rows
    kernels::TensorType kv_type_ = kernels::TensorType::F32; // of head_k_ and head_v_t_
    std::vector<std::byte> head_k_;   // (n_patches, head_dim) one head's keys, in kv_type_
    std::vector<std::byte> head_v_t_; // (head_dim, n_patches) one head's values, transposed (F16: rows)
    std::vector<float> scores_;       // (n_patches, n_patches)
    std::vector<std::byte> matmul_scratch_;
};

} // namespace hearth::vision
