// The decode prefetch plan per CPU vendor, each tuned with hearth-bench's decode on 2 threads:
// - AMD (Zen 3 to 5, where the kernels were first tuned): into L1, 2 KB ahead of row-major rows
//   and 4 KB ahead of repacked groups.
// - Intel (the AMX Xeon, family 6 model 167): into L2. An L1 prefetch holds one of the core's
//   few L1 fill buffers until its line arrives; an L2 one leaves them to the loads. 2 KB ahead
//   of rows; 1 KB ahead of the groups (shorter distances did as well, 4 KB worse).
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
