#pragma once
// A model that breaks in the middle of a reply: stories260K (F32) written again with one token's
// embedding row set to +infinity. It loads, and the load's probe (two BOS tokens) computes finite
// logits, but the forward pass of any position that reads that token computes NaN (the norm
// scales infinity by 0), and so does every later position that attends to it. stories260K ties
// its output to the embedding: the copy gets the original table as its own output.weight, so the
// logits of the other positions stay the original's.
#include "engine/error.h"
#include "engine/forward/inference.h"
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/sampling/sampler.h"
#include <algorithm>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace hearth::test {

// The greedy reply to `prompt`, token by token as ChatSession::reply computes it, up to the first
// token fit to damage (its last): a few tokens in, new to the prompt and to the reply so far, not
// the BOS token the load's probe reads. Empty when the reply ends first or takes 40 tokens.
inline std::vector<int32_t> greedy_reply_to_damage(engine::Inference& inference,
                                                   std::span<const int32_t> prompt) {
    const auto& tok = inference.model().tokenizer();
    auto cache = inference.new_cache(static_cast<int32_t>(prompt.size()) + 64);
    std::span<const float> logits = inference.eval(*cache, prompt);
    std::vector<int32_t> reply;
    while (reply.size() < 40) {
        const int32_t next = engine::argmax(logits);
        if (tok.is_end_of_generation(next)) break;
        const bool seen = std::count(prompt.begin(), prompt.end(), next) > 0 ||
                          std::count(reply.begin(), reply.end(), next) > 0;
        reply.push_back(next);
        if (reply.size() >= 3 && !seen && next != tok.bos_id()) return reply;
        logits = inference.eval(*cache, std::span<const int32_t>(&reply.back(), 1));
    }
    return {};
}

inline void write_damaged_token_model(const std::string& source, const std::string& out, int32_t token) {
    const auto file = gguf::GgufFile::open(source);
    gguf::GgufWriter writer;
    writer.copy_prefix(*file, ""); // all of it
    const bool tied = file->find_tensor("output.weight") == nullptr;
    for (const gguf::TensorInfo& t : file->tensors()) {
        std::vector<std::byte> data(t.data, t.data + t.bytes);
        if (t.name == "token_embd.weight") {
            if (t.type != kernels::TensorType::F32 || t.shape.size() != 2 || token < 0 || token >= t.shape[1])
                throw Error(source + ": expected an F32 token_embd.weight holding token " +
                            std::to_string(token));
            if (tied) writer.add_tensor("output.weight", t.shape, t.type, data);
            const size_t row = static_cast<size_t>(t.shape[0]);
            const float inf = std::numeric_limits<float>::infinity();
            for (size_t i = 0; i < row; ++i)
                std::memcpy(data.data() + (static_cast<size_t>(token) * row + i) * sizeof(float), &inf,
                            sizeof inf);
        }
        writer.add_tensor(t.name, t.shape, t.type, std::move(data));
    }
    writer.write(out);
}

} // namespace hearth::test
