#include "app/cli/model_options.h"
#include "kernels/isa_select.h"
#include "kernels/kernel_table.h"

namespace hearth::cli {

std::set<std::string> model_value_options(std::set<std::string> extra) {
    extra.insert(
        {"-m", "--model", "-t", "--threads", "-b", "--batch", "--isa", "--cache-type-k", "--cache-type-v"});
    return extra;
}

engine::KvCacheTypes kv_cache_types(const Args& args) {
    const auto read = [&args](const char* option) {
        const std::optional<std::string> name = args.value(option);
        if (!name) return kernels::TensorType::F16;
        const std::optional<kernels::TensorType> type = engine::kv_cache_type_from_name(*name);
        if (!type) throw ArgError(std::string(option) + " expects f16, q8_0 or q4_0, got '" + *name + "'");
        return *type;
    };
    return {read("--cache-type-k"), read("--cache-type-v")};
}

engine::InferenceOptions inference_options(const Args& args) {
    if (auto isa = args.value("--isa")) {
        const std::optional<kernels::Isa> tier = kernels::isa_from_name(*isa);
        if (!tier) throw ArgError("--isa expects scalar, avx2, avxvnni, avx512 or amx, got '" + *isa + "'");
        if (kernels::kernels_for(*tier) == nullptr)
            throw ArgError("--isa " + *isa + ": " + kernels::isa_unavailable_reason(*tier));
        kernels::force_isa(*tier);
    }
    engine::InferenceOptions options;
    options.n_threads = args.get_int("-t", args.get_int("--threads", 0));
    options.n_batch = args.get_int("-b", args.get_int("--batch", options.n_batch));
    if (options.n_threads < 0 || options.n_batch < 1) throw ArgError("threads and batch must be positive");
    options.cache_types = kv_cache_types(args);
    return options;
}

} // namespace hearth::cli
