#pragma once
// The AMX tiles for the AMX tier's kernels (attention_amx.cpp, gemm_q8_0_amx.cpp,
// gemm_bf16_amx.cpp; hearth-bench's peaks): their configuration, loads, stores and int8
// products as our own asm rather than GCC 12's <immintrin.h> versions, whose operands misstate the memory the
// instructions touch (asm alone: any file may include this, whatever its flags); and the int8 gemms' pipeline
// of one product per block.
#include "kernels/kernel_table.h"
#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace hearth::kernels::amx {

// Palette 1: rows and bytes per row of each of the 8 tiles (0 leaves a tile unconfigured).
struct alignas(64) TileConfig {
    uint8_t palette = 1;
    uint8_t start_row = 0;
    uint8_t reserved[14] = {};
    uint16_t bytes_per_row[16] = {};
    uint8_t rows[16] = {};
};

// Not _tile_loadd: GCC 12's version tells the compiler nothing about the memory it reads, so the
// stores that fill a scratch buffer could be moved past the load, or dropped. The operand says
// the instruction reads memory from base on (a "memory" clobber would too, but it makes the
// compiler reload everything else around each tile load). Clang rejects that operand; its builds (the
// fuzzers') take the clobber.
template <int kTile> inline void load_tile(const void* base, size_t stride) {
#if defined(__clang__)
    asm volatile("tileloadd (%0,%1,1), %%tmm%c2" : : "r"(base), "r"(stride), "i"(kTile) : "memory");
#else
    asm volatile("tileloadd (%1,%2,1), %%tmm%c3"
                 :
                 : "m"(*static_cast<const char(*)[]>(base)), "r"(base), "r"(stride), "i"(kTile));
#endif
}

// A tile to zero, a tile stored (row by row, `stride` bytes apart), and C += A . B over signed
// bytes (TDPBSSD: C[m][n] += sum over k of A[m][k] * B[k / 4][4 n + k % 4], in int32), for tile
// numbers known at compile time.
template <int kTile> inline void zero_tile() {
    asm volatile("tilezero %%tmm%c0" : : "i"(kTile));
}
template <int kTile> inline void store_tile(void* base, size_t stride) {
    asm volatile("tilestored %%tmm%c2, (%0,%1,1)" : : "r"(base), "r"(stride), "i"(kTile) : "memory");
}
template <int kC, int kA, int kB> inline void dot_int8_tiles() {
    asm volatile("tdpbssd %%tmm%c0, %%tmm%c1, %%tmm%c2" : : "i"(kB), "i"(kA), "i"(kC));
}
// C += A . B over BF16 pairs (TDPBF16PS: C[m][n] += sum over k of A[m][k] * B[k / 2][2 n + k % 2],
// in F32).
template <int kC, int kA, int kB> inline void dot_bf16_tiles() {
    asm volatile("tdpbf16ps %%tmm%c0, %%tmm%c1, %%tmm%c2" : : "i"(kB), "i"(kA), "i"(kC));
}

// All 8 tiles 16 rows of 64 bytes: a 16 x 16 F32 or int32 sum, or 16 rows of 32 BF16s or 64
// bytes.
inline TileConfig full_tiles() {
    TileConfig config;
    for (int t = 0; t < 8; ++t) {
        config.bytes_per_row[t] = 64;
        config.rows[t] = 16;
    }
    return config;
}

// The tiles configured for the scope of one kernel call, and released after it (so a thread
// that no longer uses them does not carry their 8 KB of state through context switches).
class TilesInUse {
public:
    explicit TilesInUse(const TileConfig& config) {
        // Not _tile_loadconfig: GCC 12's version declares a read of only the first 8 bytes, so
        // the compiler may drop the stores of the rows and widths as dead, leaving every tile
        // unconfigured (the first tile instruction then faults; a GGML_NATIVE llama.cpp built
        // with GCC 12 dies so on this kind of CPU). This operand is the whole 64 bytes.
        asm volatile("ldtilecfg %0" : : "m"(config));
    }
    ~TilesInUse() { asm volatile("tilerelease" ::); }
    TilesInUse(const TilesInUse&) = delete;
    TilesInUse& operator=(const TilesInUse&) = delete;
};

// ---- The int8 gemms' products: one block of 32 (a scale's span) per product.

// Tiles 0 and 1: the 16 x 16 int32 sums of a product, alternately; 2: tile A, 16 activation rows
// of 32 bytes; 4: tile B, 8 rows of 16 weight rows x 4 bytes.
inline TileConfig int8_block_tiles() {
    TileConfig config;
    for (int t : {0, 1}) {
        config.rows[t] = 16;
        config.bytes_per_row[t] = 64;
    }
    config.rows[2] = 16;
    config.bytes_per_row[2] = 32;
    config.rows[4] = 8;
    config.bytes_per_row[4] = 64;
    return config;
}

using BlockSums = int32_t[16][16]; // [activation row][weight row]

// Runs `count` products on int8_block_tiles(): load_operands(k) loads product k's tiles A (2)
// and B (4), and take(sums, k) takes its sums. A product's sums are stored before the next
// product is issued and taken while it runs: loads of the sums wait for their store to retire,
// and a store issued after the next product would wait for that product too.
template <class LoadOperands, class Take>
inline void block_products(int64_t count, LoadOperands&& load_operands, Take&& take) {
    alignas(64) BlockSums sums[2];
    auto issue = [&]<int kC>(int64_t k) {
        zero_tile<kC>();
        load_operands(k);
        dot_int8_tiles<kC, 2, 4>();
    };
    issue.template operator()<0>(0);
    for (int64_t k = 0; k < count; k += 2) {
        store_tile<0>(sums[0], 64);
        if (k + 1 < count) issue.template operator()<1>(k + 1);
        take(sums[0], k);
        if (k + 1 < count) {
            store_tile<1>(sums[1], 64);
            if (k + 2 < count) issue.template operator()<0>(k + 2);
            take(sums[1], k + 1);
        }
    }
}

} // namespace hearth::kernels::amx
