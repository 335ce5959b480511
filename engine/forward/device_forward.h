#pragma once
// The forward pass on a GPU: the first layers of a model (all of them when they fit) run on a
// Vulkan device (kernels/vulkan), the rest on the CPU (Inference's own steps).
//
// What crosses between host and device memory: the weights once, at construction, in their
// file's block layout; per forward pass the token ids (or an image's input rows) up and, back, either the
// logits (the whole model on the device) or the residual stream after the device's last layer (n_embd floats
// per token), never anything per layer. One command buffer per forward pass. The KV cache of the device's
// layers lives in device memory (KvCacheDevicePart, in the host cache's layout and types); its rows cross
// only when the host reads or writes them (saved states, context shift).
#include "engine/forward/compute_device.h"
#include "engine/forward/inference.h"
#include "engine/forward/kv_cache.h"
#include "engine/model/model.h"
#include "kernels/candidates.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hearth::engine {

// GPU time of one kind of operation in a forward pass, or summed over several: per operation
// and the device's candidate that ran it (kernel_name(kernel): "matmul_vec" on "vulkan";
// kUnnamedKernel for the operations of one shader).
struct DeviceOpTiming {
    std::string name; // "matmul", "attention", ...
    kernels::KernelId kernel = kernels::kUnnamedKernel;
    uint64_t dispatches = 0;
    uint64_t ns = 0;
};

// Adds `more` to `total` op by op (by name and kernel); ops `total` lacks are appended, in their
// order.
void add_timings(std::vector<DeviceOpTiming>& total, const std::vector<DeviceOpTiming>& more);

// Bytes that crossed between host and device memory in forward passes (not counting the
// weights' upload nor KV rows brought over for saved states or context shifts).
struct DeviceTraffic {
    uint64_t to_device = 0;
    uint64_t from_device = 0;
    int64_t tokens = 0; // the tokens those passes computed
    uint64_t bytes() const { return to_device + from_device; }
};

class DeviceForward {
public:
    // Opens the device of options.device, plans how many layers it takes (options.n_gpu_layers;
    // -1: as many as fit in its device-local memory with their KV cache of
    // options.device_context positions) and uploads their weights. Returns null when no layer
    // is to run there (n_gpu_layers 0; the device is still checked). Throws hearth::Error with
    // the reason when there is no such device, the build has no Vulkan backend, the device lacks
    // memory or a weight type: the caller may run on the CPU instead.
    static std::unique_ptr<DeviceForward> create(std::shared_ptr<const Model> model,
                                                 const InferenceOptions& options);
    virtual ~DeviceForward() = default;

    virtual const GpuDeviceInfo& device() const = 0;
    // The device runs layers [0, n_layers()).
    virtual int32_t n_layers() const = 0;
    // Every layer, the final norm and the logits.
    virtual bool whole_model() const = 0;
    // Bytes of device memory the weights take.
    virtual uint64_t weight_bytes() const = 0;

    // Gives a cache the device's part of its rows (the device's layers), in device memory.
    // Throws hearth::Error when the device has too little memory left for them.
    virtual void attach(KvCache& cache) = 0;

    // Evaluates n tokens at positions cache.size() .. on the device's layers; writes their keys
    // and values in the cache's device part (given one first if it has none, or another
    // device's) but leaves the token list to the caller. With the whole model, writes the logits
    // of every row (all_logits) or of the last to logits_out; else the residual stream
    // (n, n_embd) to residual_out. Throws DeviceError (compute_device.h) when the device fails;
    // when it is lost, the cache's contents are forgotten (KvCache::drop_device).
    virtual void forward(KvCache& cache, const int32_t* tokens, int32_t n, bool all_logits, float* logits_out,
                         float* residual_out) = 0;
    // The same for one image's n positions (Inference::eval_image): their input rows
    // `embeddings` (n, n_embd), as they are, take the place of token embeddings, and the rows
    // attend both ways among themselves. With the whole model, the last row's logits.
    virtual void forward_image(KvCache& cache, const float* embeddings, int32_t n, float* logits_out,
                               float* residual_out) = 0;

    // Per-op GPU times of the last timed forward pass, in order of first use (a device may time
    // only some passes: VulkanForward one in 200 ms).
    virtual std::vector<DeviceOpTiming> timings() const = 0;
    // The same summed over every timed forward pass since construction, in order of first use.
    virtual std::vector<DeviceOpTiming> total_timings() const = 0;
    // What crossed in the last forward pass, and in all of them.
    virtual DeviceTraffic last_traffic() const = 0;
    virtual DeviceTraffic total_traffic() const = 0;
    // Bytes that cross per decoded token (a forward pass of one token): its id up, and the
    // logits or the residual stream down.
    virtual uint64_t bytes_per_decoded_token() const = 0;
    // Errors the Vulkan validation layer reported so far (0 when it is off), and the last one.
    virtual uint64_t validation_errors() const = 0;
    virtual std::string last_validation_message() const = 0;
};

} // namespace hearth::engine
