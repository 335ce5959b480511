#include "engine/runtime/engine_runtime.h"
#include "engine/error.h"
#include "engine/forward/device_forward.h"
#include "engine/forward/inference.h"
#include "engine/model/memory_check.h"
#include "engine/model/model.h"
#include "engine/vision/image_encoder.h"
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

namespace hearth::engine {

namespace {
// Two tokens through the whole network, in one batch as a prompt's are: the logits after them.
std::span<const float> eval_probe(Inference& inference) {
    const auto& tokenizer = inference.model().tokenizer();
    const int32_t token = tokenizer.bos_id() >= 0 ? tokenizer.bos_id() : 0;
    auto cache = inference.new_cache(8);
    const int32_t tokens[] = {token, token};
    return inference.eval(*cache, tokens);
}

// A file whose weights hold NaN or infinities is well formed and loads, but computes nothing
// of use (and NaN logits break the sampler's ordering): refused before it replaces the model in
// use. Every weight matrix takes part in the probe's logits; only the embedding rows of tokens
// other than the probe's do not.
void check_computes_finite_values(Inference& inference, const std::string& path) {
    const std::span<const float> logits = eval_probe(inference);
    if (!std::all_of(logits.begin(), logits.end(), [](float v) { return std::isfinite(v); }))
        throw Error(path + ": the model computes NaN or infinite values: its weights are damaged");
}
} // namespace

EngineRuntime::EngineRuntime(std::string state_dir) : state_dir_(std::move(state_dir)) {}

EngineRuntime::~EngineRuntime() {
    drop_sessions(); // saves every conversation in memory, while the model is still there
}

int32_t EngineRuntime::effective_context(int32_t trained_context, int32_t requested) {
    return trained_context > 0 ? std::min(requested, trained_context) : requested;
}

KvCacheTypes EngineRuntime::supported_cache_types(int32_t head_dim, KvCacheTypes wanted) {
    return head_dim % 32 == 0 ? wanted : KvCacheTypes{};
}

InferenceOptions EngineRuntime::inference_options(const Model& model) const {
    // Without the fall back, a type the head cannot take fails the load's probe, naming it.
    InferenceOptions options(config_.threads, std::max(config_.n_batch, image_batch_),
                             config_.fall_back
                                 ? supported_cache_types(model.hparams().head_dim, config_.cache_types)
                                 : config_.cache_types);
    return options; // on the CPU: the device comes after the load's checks (apply_device)
}

EngineRuntime::Placement EngineRuntime::wanted_placement() const {
    const Placement wanted{config_.device, config_.gpu_layers, context_length_};
    return wanted.on_cpu() ? Placement{} : wanted;
}

void EngineRuntime::drop_sessions() {
    if (sessions_)
        for (const std::string& id : unsaved_sessions_)
            sessions_->forget(id); // also deletes a state saved when it was evicted
    unsaved_sessions_.clear();
    sessions_.reset(); // saves the conversations of the old forward pass
}

void EngineRuntime::reset_sessions() {
    drop_sessions();
    if (inference_) {
        SessionStoreOptions options;
        options.n_ctx = context_length_;
        options.memory_budget_bytes = config_.memory_budget_bytes;
        options.state_dir = state_dir_;
        options.saved_format = config_.saved_format;
        options.save_on_close = !state_dir_.empty();
        sessions_ = std::make_unique<SessionStore>(*inference_, options, *metrics_);
        sessions_->set_image_encoder(image_encoder_);
    }
    publish_empty_cache();
    publish_memory();
}

void EngineRuntime::publish_empty_cache() const {
    // No conversation is in the new caches yet: the last reply's figures were the old ones'.
    metrics_->kv_tokens.store(0, std::memory_order_relaxed);
    metrics_->kv_capacity.store(sessions_ ? context_length_ : 0, std::memory_order_relaxed);
}

void EngineRuntime::publish_memory() const {
    if (!sessions_) metrics_->kv_bytes.store(0, std::memory_order_relaxed);
    metrics_->model_bytes.store(model_ ? model_->info().file_bytes : 0, std::memory_order_relaxed);
}

std::optional<DeviceFailure> EngineRuntime::configure(const RuntimeConfig& config) {
    // A GPU chosen again is tried again, even one that failed before.
    if (config.device != config_.device || config.gpu_layers != config_.gpu_layers) failed_placement_.reset();
    config_ = config;
    if (!model_) return std::nullopt;
    if (sessions_) {
        sessions_->set_memory_budget(config.memory_budget_bytes);
        // The conversations in memory are saved in the new format from now on.
        sessions_->set_saved_format(config.saved_format);
    }
    const InferenceOptions options = inference_options(*model_);
    const int32_t context = effective_context(model_->hparams().n_ctx_train, config.context_length);
    // New cache types or a new batch take a new forward pass.
    const bool new_forward_pass =
        options.cache_types != inference_->cache_types() || options.n_batch != inference_->n_batch();
    // Threads alone only resize the kernels' pool: every conversation keeps its cache.
    if (!new_forward_pass) inference_->set_threads(options.n_threads);
    if (new_forward_pass || context != context_length_) {
        drop_sessions(); // sessions hold the old forward pass and cache sizes (saved first)
        if (new_forward_pass) {
            retire_device_figures();
            inference_ = std::make_unique<Inference>(model_, options);
            placed_ = {};
            warmed_by_load_ = false;
        }
        context_length_ = context;
        reset_sessions();
    }
    // A new device, or none: the conversations' caches move along (SessionStore::move_caches_to_host).
    return apply_device();
}

ComputeDevice EngineRuntime::projector_device() const {
    return placed_.on_cpu() ? ComputeDevice{} : placed_.device;
}

// The vision tower goes where the text model went: the projector is loaded again for that device.
// Should that fail, the one loaded stays.
void EngineRuntime::projector_follows_device() {
    if (!image_encoder_ || image_projector_device_ == projector_device()) return;
    try {
        image_encoder_ = std::make_shared<vision::ImageEncoder>(load_projector_file(image_projector_path_));
        image_projector_device_ = projector_device();
        if (sessions_) sessions_->set_image_encoder(image_encoder_);
    } catch (const Error&) {
    }
}

std::unique_ptr<vision::VisionProjector> EngineRuntime::load_projector_file(const std::string& path) const {
    return vision::load_vision_projector(path, {.n_threads = config_.threads,
                                                .device = projector_device(),
                                                .text_n_embd = model_->hparams().n_embd,
                                                .text_model_path = model_->path()});
}

std::optional<DeviceFailure> EngineRuntime::apply_device() {
    const Placement wanted = wanted_placement();
    if (wanted == placed_ || wanted == failed_placement_) return std::nullopt;
    retire_device_figures();
    if (sessions_) sessions_->move_caches_to_host(); // the old device's memory is freed first
    std::optional<DeviceFailure> failure;
    try {
        InferenceOptions options;
        options.device = wanted.device;
        options.n_gpu_layers = wanted.gpu_layers;
        options.device_context = wanted.context;
        inference_->set_device(options);
        placed_ = wanted;
        failed_placement_.reset();
        // The GPU's pipelines are built on first use: the warm-up runs them.
        if (!wanted.on_cpu()) warmed_by_load_ = false;
    } catch (const std::exception& error) {
        placed_ = {}; // set_device left every layer on the CPU
        failed_placement_ = wanted;
        failure = DeviceFailure{compute_device_name(wanted.device), error.what()};
    }
    publish_device_figures();
    projector_follows_device();
    if (failure && !config_.fall_back) throw Error(failure->reason);
    return failure;
}

void EngineRuntime::fall_back_to_cpu(const std::string& reason) {
    const std::string device = compute_device_name(placed_.device);
    retire_device_figures();
    failed_placement_ = placed_;
    // A lost device's rows cannot be read: those caches forget their tokens and are computed again.
    if (sessions_) sessions_->move_caches_to_host();
    InferenceOptions cpu;
    cpu.n_gpu_layers = 0;
    inference_->set_device(cpu);
    placed_ = {};
    publish_device_figures();
    projector_follows_device();
    publish_memory();
    if (on_device_failed_) on_device_failed_(DeviceFailure{device, reason});
}

void EngineRuntime::retire_device_figures() {
    const DeviceForward* device = inference_ ? inference_->device_forward() : nullptr;
    if (!device) return;
    add_timings(retired_device_ops_, device->total_timings());
    retired_validation_errors_ += device->validation_errors();
}

void EngineRuntime::publish_device_figures() {
    std::vector<DeviceOpTiming> ops = retired_device_ops_;
    uint64_t validation_errors = retired_validation_errors_;
    if (const DeviceForward* device = inference_ ? inference_->device_forward() : nullptr) {
        add_timings(ops, device->total_timings());
        validation_errors += device->validation_errors();
    }
    metrics_->show_device_figures(std::move(ops), validation_errors);
}

std::optional<DeviceFailure> EngineRuntime::load(const std::string& path) {
    // Refused before any weight is read when it cannot fit beside everything else running.
    const auto fits = [&](const ModelInfo& info) {
        const int32_t context = effective_context(info.context_length, config_.context_length);
        check_memory_fits(path,
                          memory_need(info, context, config_.cache_types.keys, config_.cache_types.values),
                          available_memory_bytes());
    };
    std::shared_ptr<const Model> model = Model::load(path, fits);
    // The projector belonged to the model loaded before.
    image_encoder_.reset();
    image_projector_path_.clear();
    image_batch_ = 0;
    auto inference = std::make_unique<Inference>(model, inference_options(*model));
    check_computes_finite_values(*inference, model->path());
    // Only now that the new model works is the old one let go (its conversations saved).
    drop_sessions();
    retire_device_figures();
    inference_ = std::move(inference);
    placed_ = {};
    failed_placement_.reset(); // another model may fit where this one did not
    warmed_by_load_ = true;
    model_ = std::move(model);
    context_length_ = effective_context(model_->hparams().n_ctx_train, config_.context_length);
    reset_sessions();
    // Loaded and checked on the CPU, then put on the GPU: a GPU that cannot take it leaves the
    // model running on the CPU rather than refusing the load.
    return apply_device();
}

void EngineRuntime::warm_up() {
    if (!inference_ || std::exchange(warmed_by_load_, false)) return;
    try {
        eval_probe(*inference_);
    } catch (const std::exception&) {
        // A warm-up is only an optimisation; a real failure shows on the first reply.
    }
}

void EngineRuntime::unload() {
    drop_sessions(); // saved: they resume when this model is loaded again
    retire_device_figures();
    inference_.reset();
    placed_ = {};
    model_.reset();
    image_encoder_.reset(); // so does the image projector
    image_projector_path_.clear();
    image_batch_ = 0;
    draft_key_.clear(); // the draft goes with the model it drafted for
    draft_model_.reset();
    context_length_ = 0;
    publish_empty_cache();
    publish_memory();
}

std::shared_ptr<const Model> EngineRuntime::speculation_draft(const std::string& path) {
    std::error_code ignored;
    const auto written = std::filesystem::last_write_time(path, ignored);
    const std::string key = path + '\n' + std::to_string(written.time_since_epoch().count());
    if (key != draft_key_) {
        draft_key_ = key;
        draft_model_.reset();
        draft_error_.clear();
        try {
            draft_model_ = Model::load(path);
        } catch (const std::exception& e) {
            draft_error_ = e.what();
        }
    }
    if (!draft_model_)
        throw Error("the draft model " + path + " cannot be used with the model " +
                    (model_ ? model_->path() : std::string("loaded")) + ": " + draft_error_);
    return draft_model_;
}

void EngineRuntime::load_image_projector(const std::string& path) {
    if (!model_) throw Error(path + ": no model is loaded to read images for");
    auto encoder = std::make_shared<vision::ImageEncoder>(load_projector_file(path));
    image_encoder_ = std::move(encoder);
    image_projector_path_ = path;
    image_projector_device_ = projector_device();
    image_batch_ = image_encoder_->projector().n_image_tokens();
    if (inference_->n_batch() < image_batch_) {
        // An image is evaluated in one batch: a forward pass with room for it.
        drop_sessions();
        retire_device_figures();
        inference_ = std::make_unique<Inference>(model_, inference_options(*model_));
        placed_ = {};
        warmed_by_load_ = false;
        reset_sessions(); // with the encoder
        apply_device();
    } else if (sessions_) {
        sessions_->set_image_encoder(image_encoder_);
    }
}

void EngineRuntime::unload_image_projector() {
    image_encoder_.reset();
    image_projector_path_.clear();
    image_batch_ = 0; // the batch stays as it is until the next rebuild
    if (sessions_) sessions_->set_image_encoder(nullptr);
}

void EngineRuntime::on_device_failed(std::function<void(const DeviceFailure&)> handler) {
    on_device_failed_ = std::move(handler);
}

void EngineRuntime::forget(const std::string& conversation_id) {
    unsaved_sessions_.erase(conversation_id);
    if (sessions_) {
        sessions_->forget(conversation_id);
    } else if (!state_dir_.empty()) {
        // No model loaded, so no store: the state files still have to go.
        SessionStore::remove_saved_states(state_dir_, conversation_id);
    }
    publish_memory();
}

TurnResult EngineRuntime::run(const RuntimeRequest& request, const PieceCallback& on_piece,
                              const std::function<bool()>& retry_on_cpu) {
    if (!sessions_) throw Error("no model is loaded");
    if (!request.keep_state) unsaved_sessions_.insert(request.conversation_id);
    TurnRequest turn{.conversation_id = request.conversation_id,
                     .conversation = request.conversation,
                     .options = request.options,
                     .stop = request.cancel.get(),
                     .keep_branches = request.keep_state};
    // A draft model named by path: one copy for every session, loaded here on first use.
    std::string draft_error;
    SpeculationOptions& speculation = turn.options.speculation;
    if (speculation.drafter == SpeculationOptions::Drafter::DraftModel && !speculation.draft_model &&
        !speculation.draft_model_path.empty()) {
        try {
            speculation.draft_model = speculation_draft(speculation.draft_model_path);
        } catch (const std::exception& e) {
            draft_error = e.what();
            speculation.drafter = SpeculationOptions::Drafter::Off;
        }
    }
    for (bool retried = false;;) {
        try {
            // The session comes from memory, from its saved state, or new.
            TurnResult result = sessions_->run_turn(turn, on_piece);
            if (!draft_error.empty()) result.stats.speculation_error = draft_error;
            publish_memory();
            publish_device_figures();
            return result;
        } catch (const DeviceError& e) {
            fall_back_to_cpu(e.what());
            // The caller has shown nothing of the reply yet: the same turn again, on the CPU.
            if (!std::exchange(retried, true) && retry_on_cpu && retry_on_cpu()) continue;
            throw;
        } catch (const std::exception&) {
            // The store has dropped the conversation's half-finished cache; it starts afresh next time.
            publish_memory();
            throw;
        }
    }
}

} // namespace hearth::engine
