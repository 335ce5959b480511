// The decode prefetch plan per CPU vendor:
// - AMD (Zen 3 to 5): into L1, 2 KB ahead of row-major rows and 4 KB ahead of repacked groups.
// - Intel: into L2, 1 KB ahead of the groups. An L1 prefetch holds one of the core's few L1 fill
//   buffers until its line arrives; an L2 one leaves them to the loads.
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
