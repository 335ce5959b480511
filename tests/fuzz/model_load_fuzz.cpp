// Fuzz target: a model load from arbitrary bytes: the GGUF reader, the hyperparameters, the
// tokenizer, and every tensor bound and shape-checked (Model::load), and the picker's
// Model::read_info. Anything but a loaded model or a hearth::Error is a bug.
#include "engine/error.h"
#include "engine/model/model.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace hearth;

// A loaded model must be usable as far as loading promises: its tokenizer works and its
// figures are sane.
void use(const engine::Model& model) {
    const auto& hp = model.hparams();
    if (hp.n_layer <= 0 || hp.n_embd <= 0 || hp.n_head <= 0 || hp.n_head_kv <= 0 || hp.head_dim <= 0)
        fuzz::invariant_failed("a loaded model with an empty dimension");
    if (model.weights().layers.size() != static_cast<size_t>(hp.n_layer))
        fuzz::invariant_failed("layers bound do not match block_count");
    const auto& tokenizer = model.tokenizer();
    for (const int32_t id : tokenizer.encode("Hello, world! <|im_start|>", true, true)) {
        if (id < 0 || id >= tokenizer.n_vocab()) fuzz::invariant_failed("token id out of range");
        (void)tokenizer.token_to_piece(id, true);
    }
    (void)model.info().estimated_bytes(hp.n_ctx_train > 0 ? hp.n_ctx_train : 512);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static fuzz::MemoryFile memory;
    const std::string path = memory.write(data, size);
    try {
        (void)engine::Model::read_info(path);
    } catch (const Error&) {
    }
    try {
        use(*engine::Model::load(path));
    } catch (const Error&) {
    }
    return 0;
}
