// hearth-cli info MODEL: what a model file holds, without running it.
#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "engine/gguf/gguf_file.h"
#include "engine/model/model.h"
#include "kernels/kernel_table.h"
#include <cstdio>
#include <map>
#include <string>

namespace hearth::cli {
namespace {

int run_info(const std::vector<std::string>& argv) {
    Args args(argv, {}, {});
    if (args.positional().size() != 1) throw ArgError("expects exactly one MODEL path");
    const std::string& path = args.positional()[0];
    // Loading validates everything the architecture needs, not only the container; the weight
    // matrices stay unread views of the file.
    auto model = engine::Model::load(path, {}, engine::WeightCopy::None);
    const engine::ModelInfo& info = model->info();
    const engine::HyperParams& hp = model->hparams();
    const auto& file = model->file();

    std::printf("file: %s\n", path.c_str());
    std::printf("gguf version: %u\n", file.version());
    std::printf("name: %s\n", info.name.c_str());
    std::printf("architecture: %s\n", hp.arch_name.c_str());
    std::printf("file type: %s\n", info.file_type.c_str());
    std::printf("file size: %lld bytes (%.2f MiB)\n", static_cast<long long>(info.file_bytes),
                info.file_bytes / 1048576.0);
    std::printf("parameters: %lld\n", static_cast<long long>(info.parameters));
    std::printf("context length: %d\n", hp.n_ctx_train);
    std::printf("embedding length: %d\n", hp.n_embd);
    std::printf("layers: %d\n", hp.n_layer);
    std::printf("heads: %d\n", hp.n_head);
    std::printf("kv heads: %d\n", hp.n_head_kv);
    std::printf("head size: %d\n", hp.head_dim);
    std::printf("feed-forward length: %d\n", hp.n_ff);
    std::printf("vocab size: %d\n", hp.n_vocab);
    std::printf("rope: base %g, scale %g, %s layout, %d dims%s\n", hp.rope_freq_base, hp.rope_freq_scale,
                hp.rope_neox ? "neox" : "normal", hp.rope_dim,
                model->weights().rope_freq_factors.empty() ? "" : ", per-frequency factors");
    std::printf("rms norm epsilon: %g\n", hp.rms_eps);
    const auto& tok = model->tokenizer();
    std::printf("tokenizer: %s (pre: %s), %d tokens, bos %d, eos %d\n", info.tokenizer_model.c_str(),
                file.get_string("tokenizer.ggml.pre").value_or("default").c_str(), tok.n_vocab(),
                tok.bos_id(), tok.eos_id());
    for (const std::string& warning : tok.warnings())
        std::printf("tokenizer warning: %s\n", warning.c_str());
    std::printf("chat template: %s\n", model->chat_template().empty() ? "no" : "yes");

    const kernels::KernelTable& active = kernels::active_kernels();
    std::string runnable;
    for (kernels::Isa isa : kernels::kIsaTiers)
        if (kernels::kernels_for(isa))
            runnable += (runnable.empty() ? "" : ", ") + std::string(kernels::isa_name(isa));
    std::printf("kernels: %s (%s; this CPU runs %s)\n", std::string(kernels::isa_name(active.isa)).c_str(),
                std::string(kernels::isa_requirements(active.isa)).c_str(), runnable.c_str());

    struct TypeCount {
        int tensors = 0;
        size_t bytes = 0;
        kernels::TensorType type{};
    };
    std::map<std::string, TypeCount> by_type;
    for (const auto& t : file.tensors()) {
        TypeCount& entry = by_type[std::string(kernels::type_traits(t.type).name)];
        entry.tensors += 1;
        entry.bytes += t.bytes;
        entry.type = t.type;
    }
    std::printf("tensors: %zu\n", file.tensors().size());
    for (const auto& [name, entry] : by_type) {
        // The tier (or device) of the kernel that multiplies a row-major matrix of the type in decode.
        const auto* decode = active.multiplies(entry.type) ? active.of(entry.type).matmul.pick({}) : nullptr;
        std::printf("  %-6s %4d tensors, %.2f MiB, %s kernels\n", name.c_str(), entry.tensors,
                    entry.bytes / 1048576.0,
                    decode ? std::string(kernels::backend_name(decode->backend)).c_str() : "no");
    }
    return kExitOk;
}

} // namespace
HEARTH_CLI_COMMAND("info", run_info, "info MODEL");
} // namespace hearth::cli
