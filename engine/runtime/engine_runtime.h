#pragma once
// One engine, run by one thread: the loaded model, its forward pass (the kernel threads, the KV
// cache types, the device its first layers run on), the conversations' session store and the
// live metrics. The app's inference worker, `hearth-cli serve` and the command line each own one
// and configure it with one RuntimeConfig; what the engine decides from a config is decided here
// only: the context a conversation gets (the trained context at most), the cache types a model
// can take, the device's placement and the fall back to the CPU when it fails. Not thread-safe,
// except metrics() and a request's cancel token.
#include "engine/runtime/runtime_config.h"
#include "engine/runtime/runtime_request.h"
#include "engine/session/engine_metrics.h"
#include "engine/session/session_store.h"
#include "engine/session/turn_result.h"
#include "engine/vision/image_encoder.h"
#include "engine/vision/vision_projector.h"
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hearth::engine {

// A GPU the config chose that could not be used, or that failed while it ran: every layer runs
// on the CPU since, the conversations kept. The same choice is tried again only once the device,
// its layer count, the context or the model change.
struct DeviceFailure {
    std::string device; // as compute_device_name writes it
    std::string reason;
};

class EngineRuntime {
public:
    // state_dir: where conversations' states are saved when evicted or at the end; empty: never.
    explicit EngineRuntime(std::string state_dir = {});
    // Saves every conversation in memory whose state is kept.
    ~EngineRuntime();
    EngineRuntime(const EngineRuntime&) = delete;
    EngineRuntime& operator=(const EngineRuntime&) = delete;

    // The context a conversation gets: the one asked for, at most the trained context (0: unknown).
    static int32_t effective_context(int32_t trained_context, int32_t requested);
    // The cache types a model of this head size runs with: a quantized cache stores blocks of 32
    // along a head, so another head size keeps F16 rather than failing every reply.
    static KvCacheTypes supported_cache_types(int32_t head_dim, KvCacheTypes wanted);

    // Applies `config` to the loaded model (and to the next one loaded): threads alone resize the
    // kernels' pool; new cache types rebuild the forward pass; a new context resets the sessions
    // (saved first); a new device or layer count moves the forward pass and the caches. Returns
    // the failure when the device it chose cannot be used (every layer then runs on the CPU);
    // without config.fall_back, throws it as hearth::Error instead.
    std::optional<DeviceFailure> configure(const RuntimeConfig& config);
    // Loads the file (the memory check first, then the weights, then a finite-values probe) and
    // puts it on the configured device; throws hearth::Error when it cannot be loaded, the model
    // loaded before staying. Returns the failure when the device cannot take it (it runs on the
    // CPU); without config.fall_back, throws it as hearth::Error instead (the model on the CPU).
    std::optional<DeviceFailure> load(const std::string& path);
    // Saves the conversations and lets the model go.
    void unload();
    // Touches every weight and starts the kernel threads (a no-op right after a load, whose
    // probe did it). Never throws: a real failure shows on the first reply.
    void warm_up();

    // Runs one turn in the request's session (from memory, from its saved state, or new),
    // streaming the reply's text to `on_piece`. A draft model the options name by path is loaded
    // once and shared by every session (speculation_draft); one that cannot be loaded leaves the
    // reason in the result's stats.speculation_error, and the reply decodes plainly. When the device fails
    // meanwhile, every layer goes back to the CPU (on_device_failed is told) and, if `retry_on_cpu` returns
    // true (the caller dropped what it received), the turn runs again there once; else the DeviceError is
    // thrown. Throws hearth::Error as SessionStore::run_turn does, and when no model is loaded.
    TurnResult run(const RuntimeRequest& request, const PieceCallback& on_piece,
                   const std::function<bool()>& retry_on_cpu = {});
    // Called when the device failed while running a turn (run falls back to the CPU).
    void on_device_failed(std::function<void(const DeviceFailure&)> handler);
    // The draft model at `path`, loaded on first use and kept while requests name the same file
    // (unchanged on disk); throws hearth::Error, naming the draft and the loaded model, when it
    // cannot be loaded. The check that it can draft for the loaded model is the session's.
    std::shared_ptr<const Model> speculation_draft(const std::string& path);
    // Loads the image projector (mmproj) of the loaded model: its conversations read the images of
    // their messages from now on. Throws hearth::Error("<path>: <problem>") when it cannot be
    // used (damaged, not a projector, a family not supported, or an output width that is not the
    // model's), the model staying loaded without one. A projector whose image takes more positions
    // than a prompt batch raises the batch (the forward pass is rebuilt, the conversations saved).
    // A model loaded later starts without one.
    void load_image_projector(const std::string& path);
    void unload_image_projector();
    // The projector loaded with the model; empty: none, the model reads no images.
    [[nodiscard]] const std::string& image_projector_path() const { return image_projector_path_; }
    // The loaded projector (null: none). Its vision tower runs where the text model ran when it
    // was loaded: on that GPU when it takes the tower, else on the CPU (tower_device_problem).
    [[nodiscard]] const vision::VisionProjector* image_projector() const {
        return image_encoder_ ? &image_encoder_->projector() : nullptr;
    }
    // The conversation was deleted: drops its cache and deletes its saved state.
    void forget(const std::string& conversation_id);

    [[nodiscard]] bool loaded() const { return inference_ != nullptr; }
    [[nodiscard]] const RuntimeConfig& config() const { return config_; }
    // Valid while loaded().
    [[nodiscard]] const Model& model() const { return *model_; }
    [[nodiscard]] Inference& inference() { return *inference_; }
    [[nodiscard]] const Inference& inference() const { return *inference_; }
    [[nodiscard]] SessionStore& sessions() { return *sessions_; }
    // The context each conversation gets (0 while no model is loaded).
    [[nodiscard]] int32_t context_length() const { return context_length_; }
    // The live figures of this engine, for any thread to read snapshots of; shared so that a
    // reader may outlive the runtime.
    [[nodiscard]] std::shared_ptr<EngineMetrics> metrics() const { return metrics_; }
    // The GPU's figures (time per op) into the metrics: those of forward passes gone and the
    // current one's; cheap enough to call while a reply streams.
    void publish_device_figures();

private:
    // Where a forward pass's first layers run, and the context they were planned for (the
    // automatic layer count depends on it).
    struct Placement {
        ComputeDevice device;
        int32_t gpu_layers = 0;
        int32_t context = 0;
        bool on_cpu() const { return device.kind == ComputeDevice::Kind::Cpu || gpu_layers == 0; }
        bool operator==(const Placement&) const = default;
    };
    Placement wanted_placement() const;
    InferenceOptions inference_options(const Model& model) const;
    // The image projector: its tower on the device of the text model's layers (the CPU if none).
    ComputeDevice projector_device() const;
    std::unique_ptr<vision::VisionProjector> load_projector_file(const std::string& path) const;
    void projector_follows_device();
    void reset_sessions();
    void drop_sessions();
    // Puts the first layers on the configured device; a failure leaves them on the CPU and is
    // returned, or thrown without config.fall_back.
    std::optional<DeviceFailure> apply_device();
    void fall_back_to_cpu(const std::string& reason);
    void retire_device_figures();
    void publish_empty_cache() const; // the metrics' cache figures for caches just made
    void publish_memory() const;

    std::string state_dir_;
    RuntimeConfig config_;
    // Written by the objects below (and by publish_memory) on the runtime's thread.
    std::shared_ptr<EngineMetrics> metrics_ = std::make_shared<EngineMetrics>();
    std::shared_ptr<const Model> model_;
    std::unique_ptr<Inference> inference_;
    std::unique_ptr<SessionStore> sessions_; // after `inference_`: destroyed (and saved) first
    std::set<std::string> unsaved_sessions_; // of requests that keep no state
    int32_t context_length_ = 0;
    // The load's probe already ran the warm-up's tokens through this forward pass.
    bool warmed_by_load_ = false;
    Placement placed_;                          // what `inference_` runs on
    std::optional<Placement> failed_placement_; // a GPU choice that failed: not tried again
    std::vector<DeviceOpTiming> retired_device_ops_;
    uint64_t retired_validation_errors_ = 0;
    std::function<void(const DeviceFailure&)> on_device_failed_;
    // The shared draft model: the file it was read from (path and modification time), and the
    // model, or why it could not be loaded (not tried again until the file changes).
    std::string draft_key_;
    std::shared_ptr<const Model> draft_model_;
    std::string draft_error_;
    // The image projector with its cache of encoded images, and the batch its images need.
    std::shared_ptr<vision::ImageEncoder> image_encoder_;
    std::string image_projector_path_;
    ComputeDevice image_projector_device_; // the device its tower was loaded for
    int32_t image_batch_ = 0;
};

} // namespace hearth::engine
