#version 450
// MoE router: per row (one thread each) the softmax over the experts' logits, the k most
// probable (ties to the lower index) and their probabilities, renormalized over the chosen
// ones if asked.
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WORKGROUP = 64;
const uint MAX_EXPERTS = 1024u;
const uint MAX_CHOSEN = 64u;

layout(std430, binding = 0) readonly buffer Logits { float logits[]; };
layout(std430, binding = 1) writeonly buffer Ids { int ids[]; };
layout(std430, binding = 2) writeonly buffer Weights { float weights[]; };

layout(push_constant) uniform Push {
    uint logits_offset, ids_offset, weights_offset;
    uint n, n_expert, k, renormalize;
} p;

void main() {
    uint row = linear_group() * WORKGROUP + gl_LocalInvocationID.x;
    if (row >= p.n) return;
    uint base = p.logits_offset + row * p.n_expert;
    float top = -1.0 / 0.0;
    for (uint e = 0u; e < p.n_expert; ++e)
        top = max(top, logits[base + e]);
    float total = 0.0;
    for (uint e = 0u; e < p.n_expert; ++e)
        total += exp(logits[base + e] - top);

    uint taken[MAX_EXPERTS / 32u];
    for (uint w = 0u; w < MAX_EXPERTS / 32u; ++w)
        taken[w] = 0u;
    float chosen_weight[MAX_CHOSEN];
    float chosen_sum = 0.0;
    for (uint j = 0u; j < p.k; ++j) {
        uint best = 0u;
        float best_logit = -1.0 / 0.0;
        bool found = false;
        for (uint e = 0u; e < p.n_expert; ++e) {
            if ((taken[e / 32u] & (1u << (e % 32u))) != 0u) continue;
            float l = logits[base + e];
            if (!found || l > best_logit) {
                best = e;
                best_logit = l;
                found = true;
            }
        }
        taken[best / 32u] |= 1u << (best % 32u);
        float probability = exp(best_logit - top) / total;
        chosen_weight[j] = probability;
        chosen_sum += probability;
        ids[p.ids_offset + row * p.k + j] = int(best);
    }
    for (uint j = 0u; j < p.k; ++j)
        weights[p.weights_offset + row * p.k + j] = p.renormalize != 0u ? chosen_weight[j] / chosen_sum : chosen_weight[j];
}
