#pragma once
// The kernel table: for each operation (and weight type), the kernels that can run it, in order
// of preference, each with a guard saying which calls it takes. A caller takes the first
// candidate whose guard holds (Candidates::pick) and names it to the dispatch metrics; nothing
// else chooses a kernel. Each CPU tier's table is the tier below it with the tier's own
// candidates put in front (kernel_table.cpp), and the scalar reference table is the model and
// the test oracle of every other.
#include "kernels/row_layout.h"
#include "kernels/tensor_type.h"
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hearth::kernels {

// The CPU tiers, lowest first.
enum class Isa : uint8_t {
    Scalar,  // portable C++, the oracle
    Avx2,    // AVX2 + FMA + F16C
    AvxVnni, // AVX2 tier + AVX-VNNI (VEX vpdpbusd: Intel since Alder Lake, AMD Zen 5)
    Avx512,  // AVX-512 F/BW/VL/DQ + VNNI (AMD Zen 4 and later, Intel since Ice Lake)
    Amx,     // AVX-512 tier + AMX tiles (BF16, INT8) and AVX-512 BF16 (Intel Xeon since Sapphire Rapids)
};
inline constexpr Isa kIsaTiers[] = {Isa::Scalar, Isa::Avx2, Isa::AvxVnni, Isa::Avx512, Isa::Amx};
inline constexpr int kIsaTierCount = static_cast<int>(std::size(kIsaTiers));
std::string_view isa_name(Isa isa); // "scalar", "avx2", "avxvnni", "avx512", "amx"
// What a tier needs of the CPU, in words ("AVX-512 F/BW/VL/DQ + VNNI").
std::string_view isa_requirements(Isa isa);

// Where a kernel runs: the CPU (in one of its tiers' instruction sets) or a device.
enum class Device : uint8_t { Cpu, Vulkan };
struct Backend {
    Device device = Device::Cpu;
    Isa tier = Isa::Scalar; // the CPU tier whose instructions the kernel uses (Device::Cpu)
    friend bool operator==(Backend, Backend) = default;
};
inline constexpr Backend cpu(Isa tier) {
    return {Device::Cpu, tier};
}
std::string_view backend_name(Backend backend); // the tier's name, or the device's ("vulkan")

// ---- The operations' kernels ----------------------------------------------------------------

// F32 -> a type, n elements (a multiple of its block), and back.
using QuantizeRowFn = void (*)(const float* src, void* dst, int64_t n);
using DequantizeRowFn = void (*)(const void* src, float* dst, int64_t n);

// Dot product of one weight row (in the weight type) with one activation row (in that type's
// activation type), both n elements long: the building block of the simplest matmul kernels.
using VecDotFn = float (*)(int64_t n, const void* weight_row, const void* activation_row);

// Matmul: for weight rows [row_begin, row_end) and every b < batch,
// y[b * y_stride + r] = dot(W[r], A[b]). The activations are already in the candidate's
// activation type, one row every activation_row_bytes. Row-major weights are rows of
// weight_row_bytes from `weights`; weights repacked in groups of 16 rows (interleaved_rows.h)
// are the whole repacked matrix, and row_begin and row_end whole groups.
using GemmFn = void (*)(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin,
                        int64_t row_end, const void* activations, size_t activation_row_bytes, int64_t batch,
                        float* y, int64_t y_stride);

// Matrix x vector over weights repacked in groups of 16 rows: for groups [group_begin,
// group_end) and r < 16, y[16 g + r] = dot(W[16 g + r], a). Registered as a GemmFn through
// gemm_by_packed_gemv (gemm_by_rows.h).
using InterleavedGemvFn = void (*)(int64_t n, const void* packed, int64_t group_begin, int64_t group_end,
                                   const void* activation, float* y);

// One KV head's cached keys or values: row j (position j) at data + j * row_bytes, head_dim
// elements of `type`: F16, or Q8_0 / Q4_0 in blocks of 32 along head_dim (head_dim a multiple
// of 32), each block with its own scale.
struct KvRows {
    const void* data = nullptr;
    TensorType type = TensorType::F16;
    size_t row_bytes = 0;
};
// What attention does beyond causal softmax(q . k * scale): a sliding window, in which each row
// sees only its last `window` keys, its own included (0: every key), and soft-capping of the
// scaled scores, score = softcap * tanh(score / softcap) (0: none), as Gemma 2 does.
struct AttentionLimits {
    int64_t window = 0;
    float softcap = 0;
};
inline constexpr int64_t kMaxAttentionHeadDim = 512;
// Causal attention of a tile of query rows that share one KV head: n_positions consecutive
// positions with n_heads query heads each (a GQA group). Row (position p, head h) is at
// q + p * position_stride + h * head_stride, its output at the same offset from out, and it
// attends to the first n_keys + p keys, each widened exactly (an int8 times its block's scale
// is one rounding). In F32: each score is dot(q, k) * scale, and one pass with an online
// softmax keeps the running maximum, the sum of weights and the weighted sum of values (what
// came before is rescaled when the maximum rises); out = weighted sum / sum of weights. A key
// whose score is -inf weighs nothing; keys before a row's window too, and the kernels skip the
// blocks of keys no row of the tile sees. head_dim <= kMaxAttentionHeadDim.
// A row's output does not depend on the tile's other rows: in a tile of one position it is bit
// for bit the same whatever its heads; in a tile of several positions, whatever the tile's
// shape (a kernel may sum those in another order than single positions: the AVX-512 one does).
using AttendFn = void (*)(const float* q, float* out, size_t head_stride, size_t position_stride,
                          int64_t n_heads, int64_t n_positions, KvRows keys, KvRows values, int64_t n_keys,
                          int64_t head_dim, float scale, AttentionLimits limits);
// Whether the attention kernels read keys or values of this type.
inline bool is_kv_cache_type(TensorType t) {
    return t == TensorType::F16 || t == TensorType::Q8_0 || t == TensorType::Q4_0;
}

// SwiGLU in place over n elements: gate[i] = gate[i] * sigmoid(gate[i]) * up[i], with
// llama.cpp's rounding (its vector exp in blocks of 8, libm's expf for the tail).
using SwigluFn = void (*)(float* gate, const float* up, int64_t n);

// ---- Candidates ---------------------------------------------------------------------------

inline constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();

// The shape of one call, which the guards test.
struct CallShape {
    int64_t batch = 1;                      // matmul: activation rows; attention: positions of the tile
    int64_t rows = 0;                       // matmul: the matrix's rows
    int64_t width = 0;                      // matmul: the row length; attention: the head size
    RowLayout layout = RowLayout::RowMajor; // matmul: the weights' layout
    bool f16_cache = true;                  // attention: F16 keys and values
    Device device = Device::Cpu;            // where the call's data is
};

// Which calls a candidate takes; the defaults take every call.
struct Guard {
    int64_t min_batch = 1;
    int64_t max_batch = kNoLimit;
    // The layout the kernel reads. A kernel of row-major rows also takes a repacked matrix, whose
    // rows matmul unpacks first; one of repacked rows takes only those.
    RowLayout layout = RowLayout::RowMajor;
    int64_t row_multiple = 1;   // the matrix's row count a multiple of this
    int64_t width_multiple = 1; // the row length (or head size) a multiple of this
    int64_t max_width = kNoLimit;
    bool f16_cache_only = false;

    bool holds(const CallShape& call) const {
        return call.batch >= min_batch && call.batch <= max_batch &&
               (layout == RowLayout::RowMajor || call.layout == layout) && call.rows % row_multiple == 0 &&
               call.width % width_multiple == 0 && call.width <= max_width &&
               (call.f16_cache || !f16_cache_only);
    }
    // Whether every call `later` takes, this takes too.
    bool covers(const Guard& later) const {
        return min_batch <= later.min_batch && max_batch >= later.max_batch &&
               (layout == RowLayout::RowMajor || later.layout == layout) &&
               later.row_multiple % row_multiple == 0 && later.width_multiple % width_multiple == 0 &&
               max_width >= later.max_width && (!f16_cache_only || later.f16_cache_only);
    }
};

// A dense number per (kernel name, backend), for the dispatch metrics (kernel_id registers it).
using KernelId = uint16_t;
inline constexpr KernelId kUnnamedKernel = 0; // timings no kernel of the table ran
struct KernelName {
    std::string_view name; // the kernel's function, as named in its source
    Backend backend;
};
KernelId kernel_id(std::string_view name, Backend backend);
KernelName kernel_name(KernelId id);

template <class Fn> struct Candidate {
    std::string_view name = {}; // the kernel's function, as named in its source (a string literal)
    Backend backend = {};
    Guard guard = {};
    Fn fn = nullptr;
    // Matmul: the format of the activation rows it multiplies (F32: the caller's floats as they
    // are), and whether it reads the whole batch of activations for each chunk of rows it is
    // given (matmul then hands out fewer, larger chunks).
    TensorType activation_type = TensorType::F32;
    bool whole_batch_per_chunk = false;
    KernelId id = kUnnamedKernel; // set by put_first

    bool takes(const CallShape& call) const { return backend.device == call.device && guard.holds(call); }
};

// A matmul candidate whose activations come in `activation_type`.
inline Candidate<GemmFn> matmul_kernel(std::string_view name, Backend backend, GemmFn fn,
                                       TensorType activation_type, Guard guard = {}) {
    return {.name = name, .backend = backend, .guard = guard, .fn = fn, .activation_type = activation_type};
}
// Decode (batch 1) over rows repacked in groups of 16.
inline Candidate<GemmFn> repacked_decode_kernel(std::string_view name, Backend backend, GemmFn fn,
                                                TensorType activation_type) {
    return matmul_kernel(name, backend, fn, activation_type,
                         {.max_batch = 1, .layout = RowLayout::Interleaved16});
}

// The candidates of one operation, in order of preference.
template <class Fn> class Candidates {
public:
    static constexpr int kCapacity = 8;

    // The first candidate that takes the call, or null when none does.
    const Candidate<Fn>* pick(const CallShape& call) const {
        for (int i = 0; i < size_; ++i)
            if (items_[i].takes(call)) return &items_[i];
        return nullptr;
    }
    // For the operations whose candidates take every call (row conversions, SwiGLU): the first
    // candidate's kernel, or null where there is none.
    Fn fn() const { return size_ > 0 ? items_[0].fn : nullptr; }
    const Candidate<Fn>* begin() const { return items_; }
    const Candidate<Fn>* end() const { return items_ + size_; }
    int size() const { return size_; }
    bool empty() const { return size_ == 0; }

    // Puts `own` (in its order) in front of the candidates already there, the tier below's.
    // Kernels of repacked rows then go before those of row-major rows (a repacked matrix is
    // unpacked only when no kernel reads it as it is), and a candidate that an earlier one
    // covers, which no call would reach, is dropped.
    void put_first(std::initializer_list<Candidate<Fn>> own);
    // Drops the candidates of this kernel name.
    void remove(std::string_view name);

private:
    Candidate<Fn> items_[kCapacity];
    int size_ = 0;
};

// A type's candidates for each operation on it.
struct TypeCandidates {
    Candidates<GemmFn> matmul;                      // weights of this type x a batch of activations
    Candidates<QuantizeRowFn> quantize;             // F32 -> this type: weights, KV cache rows
    Candidates<QuantizeRowFn> quantize_activations; // F32 -> this type as matmul's activations
    Candidates<DequantizeRowFn> dequantize;
};

// The smallest batch a BF16 tile gemm takes: below it, widening each weight to BF16 costs more
// than the tiles save over the batch.
inline constexpr int64_t kBf16TileMinBatch = 32;

struct KernelTable {
    Isa isa = Isa::Scalar;
    // Indexed by the raw TensorType value; the lists of types no tier runs are empty.
    TypeCandidates by_type[kTensorTypeSlots];
    const TypeCandidates& of(TensorType t) const { return by_type[static_cast<uint32_t>(t)]; }
    TypeCandidates& of(TensorType t) { return by_type[static_cast<uint32_t>(t)]; }
    Candidates<AttendFn> attention;
    Candidates<SwigluFn> swiglu;
    // Floats of queries (positions x the query heads of one KV head) per prefill attention call
    // the engine makes: a kernel prepares each block of keys and values once per call (or pass).
    int64_t attention_tile_floats = 4096;

    // Whether matmul runs weights of this type.
    bool multiplies(TensorType t) const {
        return static_cast<uint32_t>(t) < kTensorTypeSlots && !of(t).matmul.empty();
    }
};

// The scalar reference kernels: portable C++, the oracle for every other table.
const KernelTable& reference_kernels();
// The table of a tier (every list the reference has is set), or nullptr when this CPU or build
// cannot run it.
const KernelTable* kernels_for(Isa isa);
// Why kernels_for(isa) is null, in words ("this CPU lacks AVX-512 F/BW/VL/DQ + VNNI"); empty
// when the tier runs here.
std::string isa_unavailable_reason(Isa isa);
// The table in use: the best tier the CPU supports, unless HEARTH_ISA names another (or
// force_isa was called). Chosen once, on first use.
const KernelTable& active_kernels();
void force_isa(Isa isa); // for tests and the --isa option; throws std::runtime_error if unsupported

// ---- Candidates::put_first and remove ------------------------------------------------------

template <class Fn> void Candidates<Fn>::put_first(std::initializer_list<Candidate<Fn>> own) {
    Candidate<Fn> all[2 * kCapacity];
    int n = 0;
    const auto append = [&](const Candidate<Fn>& c) {
        if (n == 2 * kCapacity) throw std::logic_error("kernel table: too many candidates for one operation");
        all[n++] = c;
    };
    // Repacked-row kernels first, each group in its order: own, then the tier below's.
    for (bool packed : {true, false}) {
        for (Candidate<Fn> c : own)
            if ((c.guard.layout != RowLayout::RowMajor) == packed) {
                c.id = kernel_id(c.name, c.backend);
                append(c);
            }
        for (int i = 0; i < size_; ++i)
            if ((items_[i].guard.layout != RowLayout::RowMajor) == packed) append(items_[i]);
    }
    size_ = 0;
    for (int i = 0; i < n; ++i) {
        bool reachable = true;
        for (int j = 0; j < size_ && reachable; ++j)
            reachable =
                items_[j].backend.device != all[i].backend.device || !items_[j].guard.covers(all[i].guard);
        if (!reachable) continue;
        if (size_ == kCapacity) throw std::logic_error("kernel table: too many candidates for one operation");
        items_[size_++] = all[i];
    }
}

template <class Fn> void Candidates<Fn>::remove(std::string_view name) {
    int kept = 0;
    for (int i = 0; i < size_; ++i)
        if (items_[i].name != name) items_[kept++] = items_[i];
    size_ = kept;
}

} // namespace hearth::kernels
