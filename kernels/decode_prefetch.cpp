// The decode prefetch plan per CPU vendor, as measured (hearth-bench tg, 2 threads):
// - AMD (Zen 3 to 5, where the kernels were first tuned): into L1, 2 KB ahead of row-major rows
//   and 4 KB ahead of repacked groups (Qwen2.5-0.5B Q4_K_M decode 27 -> 36 tok/s with them).
// - Intel (the AMX Xeon, family 6 model 167): into L2. An L1 prefetch holds one of the core's
//   few L1 fill buffers until its line arrives; an L2 one leaves them to the loads. Qwen2.5-0.5B
//   Q8_0 43.5 -> 46.6 tok/s (2 KB ahead), Llama-3.2-1B Q4_K_M 25.7 -> 31.3 (1 KB ahead of the
//   groups; 0.25 to 2 KB alike, 4 KB 29).
#include "kernels/decode_prefetch.h"
#include "kernels/isa_select.h"

namespace hearth::kernels {

const DecodePrefetch& decode_prefetch() {
    static const DecodePrefetch plan = [] {
        DecodePrefetch p;
        if (cpu_features().intel) {
            p.into_l2 = true;
            p.group_bytes_ahead = 1024;
        }
        return p;
    }();
    return plan;
}

} // namespace hearth::kernels
