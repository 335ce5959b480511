#pragma once
// The AMX tiles' configuration and loads, for the AMX tier's kernels (attention_amx.cpp,
// gemm_q8_0_amx.cpp): our own asm rather than GCC 12's <immintrin.h> versions, whose operands
// misstate the memory the instructions read.
#include <cstddef>
#include <cstdint>
#include <immintrin.h>

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
// the instruction reads memory from base on (a "memory" clobber would too, but cost 5-15% in the
// attention kernel).
template <int kTile> inline void load_tile(const void* base, size_t stride) {
    asm volatile("tileloadd (%1,%2,1), %%tmm%c3"
                 :
                 : "m"(*static_cast<const char(*)[]>(base)), "r"(base), "r"(stride), "i"(kTile));
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
    ~TilesInUse() { _tile_release(); }
    TilesInUse(const TilesInUse&) = delete;
    TilesInUse& operator=(const TilesInUse&) = delete;
};

} // namespace hearth::kernels::amx
