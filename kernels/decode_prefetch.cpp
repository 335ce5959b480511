// The decode prefetch plan per CPU vendor:
// - AMD: into L1; row-major rows 2 KB ahead; repacked groups each super-block's own lines as it
//   starts, all asked for at once. Zen 4, 2 threads, tg32 medians of 8 interleaved rounds, this
//   plan over 4 KB ahead: Llama 3.2 1B Q4_K_M avx512 x1.14 (faster in 8 of 8 rounds), avx2
//   x1.04; 1 KB ahead in between; no prefetch at all was slower on avx2 (bench_kernels
//   matmul_pool_repacked). Q8_0, Q5_K_M and Qwen2.5-0.5B Q4_K_M: x0.99-1.04.
//   Row-major rows up to 2 KB only: a longer row's lines all asked for as it starts (an FFN
//   down row of Q6_K over 8192 columns: 105 lines) held up its own loads; the hardware
//   prefetcher alone reads such rows a third faster (bench_kernels matmul_pool_repacked
//   q6_K_16384x8192_dram, avx2: 4.2-4.5 -> 2.8-3.1 ms; rows of 4096 columns unchanged). tg32,
//   interleaved rounds, avx2: Llama 3.2 1B Q5_K_M faster in 4 of 4 (31.1-32.5 -> 34.1-37.1),
//   Q4_K_M 3 of 4, Qwen2.5-0.5B Q4_K_M 4 of 4; avx512 Qwen2.5-0.5B 5 of 5 (x1.01-1.08).
//   Repacked super-blocks up to 2304 bytes (Q4_K's) only: Q6_K's (3360 bytes) read faster
//   without (bench_kernels matmul_pool_repacked q6_K_65536x2048_dram, avx2: 2.83-3.18 -> 2.40-2.85
//   ms, row-major 2.54-3.00). avx2 Llama 3.2 1B Q4_K_M tg32 with Q6_K repacked, 3 rounds: with
//   this prefetch 34.4-38.4 t/s, without 41.4-43.5, Q6_K row-major 35.7-38.9; without against
//   row-major in 4 later rounds: the same within noise.
// - Intel: into L2, 1 KB ahead of the groups, every row-major row. An L1 prefetch holds one of the
//   core's few L1 fill buffers until its line arrives; an L2 one leaves them to the loads.
#include "kernels/decode_prefetch.h"
#include "kernels/isa_select.h"

namespace hearth::kernels {

const DecodePrefetch& decode_prefetch() {
    static const DecodePrefetch plan = [] {
        DecodePrefetch p;
        if (cpu_features().intel) {
            p.into_l2 = true;
            p.group_bytes_ahead = 1024;
        } else {
            p.longest_prefetched_row = 2048;
            p.longest_prefetched_block = 2304;
        }
        return p;
    }();
    return plan;
}

} // namespace hearth::kernels
