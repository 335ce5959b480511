#pragma once
// Candidates: for one operation, the kernels that can run it, in order of preference, each with
// a guard saying which calls it takes and the backend (CPU tier or device) it runs on. A caller
// takes the first candidate whose guard holds (Candidates::pick) and names it to the metrics;
// nothing else chooses a kernel. The CPU's tables (kernel_table.h) and the Vulkan backend's
// (vulkan/vulkan_kernel_table.h) are lists of these.
#include "kernels/row_layout.h"
#include "kernels/tensor_type.h"
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
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

// ---- Candidates ---------------------------------------------------------------------------

inline constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();

// What a device may lack that a kernel needs (bits of CallShape::features and Guard::features).
enum DeviceFeature : uint32_t {
    kSubgroupArithmetic = 1, // subgroup reductions in compute shaders
};

// The shape of one call, which the guards test.
struct CallShape {
    int64_t batch = 1;                      // matmul: activation rows; attention: positions of the tile
    int64_t rows = 0;                       // matmul: the matrix's rows
    int64_t width = 0;                      // matmul: the row length; attention: the head size
    RowLayout layout = RowLayout::RowMajor; // matmul: the weights' layout
    bool f16_cache = true;                  // attention: F16 keys and values
    Device device = Device::Cpu;            // where the call's data is
    uint32_t features = 0;                  // the DeviceFeature bits of that device
    // Attention on a device: the keys of the blocks the call reads, and the workgroups of one
    // pass over them.
    int64_t keys = 0;
    int64_t workgroups = 0;
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
    uint32_t features = 0; // the DeviceFeature bits the kernel needs
    int64_t min_keys = 0;
    int64_t max_workgroups = kNoLimit;

    bool holds(const CallShape& call) const {
        return call.batch >= min_batch && call.batch <= max_batch &&
               (layout == RowLayout::RowMajor || call.layout == layout) && call.rows % row_multiple == 0 &&
               call.width % width_multiple == 0 && call.width <= max_width &&
               (call.f16_cache || !f16_cache_only) && (call.features & features) == features &&
               call.keys >= min_keys && call.workgroups <= max_workgroups;
    }
    // Whether every call `later` takes, this takes too.
    bool covers(const Guard& later) const {
        return min_batch <= later.min_batch && max_batch >= later.max_batch &&
               (layout == RowLayout::RowMajor || later.layout == layout) &&
               later.row_multiple % row_multiple == 0 && later.width_multiple % width_multiple == 0 &&
               max_width >= later.max_width && (!f16_cache_only || later.f16_cache_only) &&
               (later.features & features) == features && min_keys <= later.min_keys &&
               max_workgroups >= later.max_workgroups;
    }
};

// A dense number per (kernel name, backend), for the dispatch metrics (kernel_id registers it).
using KernelId = uint16_t;
inline constexpr KernelId kUnnamedKernel = 0; // timings no kernel of the table ran
struct KernelName {
    std::string_view name; // the kernel's function as named in its source, or a device's shader
    Backend backend;
};
KernelId kernel_id(std::string_view name, Backend backend);
KernelName kernel_name(KernelId id);

template <class Fn> struct Candidate {
    // The kernel's function as named in its source, or a device's shader as named in its
    // backend's folder (a string literal).
    std::string_view name = {};
    Backend backend = {};
    Guard guard = {};
    Fn fn = {};
    // Matmul: the format of the activation rows it multiplies (F32: the caller's floats as they
    // are), and whether it reads the whole batch of activations for each chunk of rows it is
    // given (matmul then hands out fewer, larger chunks).
    TensorType activation_type = TensorType::F32;
    bool whole_batch_per_chunk = false;
    // Matmul: each row of any batch it takes comes out bit for bit as a batch of that row alone
    // (a dot product per pair of rows, a repacked group decoded once for rows summed apart), so
    // that it runs a verify pass's rows together (matmul's as_decode).
    bool rows_as_single = false;
    // Matmul as decode (TypeCandidates::matmul_as_decode): the decode kernel, by name and of the
    // same backend, whose single rows this one's batch rows each equal bit for bit.
    std::string_view rows_as_decode_of = {};
    KernelId id = kUnnamedKernel; // set by put_first

    bool takes(const CallShape& call) const { return backend.device == call.device && guard.holds(call); }
};

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
    // candidate's kernel, or null (Fn{}) where there is none.
    Fn fn() const { return size_ > 0 ? items_[0].fn : Fn{}; }
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

// put_first and remove are defined in candidates_impl.h and instantiated for each kind of
// kernel in candidates.cpp, a file built without any tier's flags: instantiated in a tier's
// files (AVX-512 flags), the one copy the linker keeps could be the AVX-512 one, which faults
// on a CPU without it while the reference table is built.

} // namespace hearth::kernels
