#include "app/cli/model_options.h"
#include "kernels/kernel_table.h"

namespace hearth::cli {

std::set<std::string> model_value_options(std::set<std::string> extra) {
    extra.insert({"-m", "--model", "-t", "--threads", "-b", "--batch", "--isa"});
    return extra;
}

engine::InferenceOptions inference_options(const Args& args) {
    if (auto isa = args.value("--isa")) {
        if (*isa == "scalar") kernels::force_isa(kernels::Isa::Scalar);
        else if (*isa == "avx2") kernels::force_isa(kernels::Isa::Avx2);
        else throw ArgError("--isa expects scalar or avx2, got '" + *isa + "'");
    }
    engine::InferenceOptions options;
    options.n_threads = args.get_int("-t", args.get_int("--threads", 0));
    options.n_batch = args.get_int("-b", args.get_int("--batch", options.n_batch));
    if (options.n_threads < 0 || options.n_batch < 1) throw ArgError("threads and batch must be positive");
    return options;
}

} // namespace hearth::cli
