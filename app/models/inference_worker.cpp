#include "app/models/inference_worker.h"
#include "app/models/model_names.h"
#include "app/models/piece_batcher.h"
#include "app/server/engine_completion.h"
#include "app/settings/engine_config.h"
#include "engine/error.h"
#include "engine/forward/device_forward.h"
#include "engine/forward/inference.h"
#include "engine/model/memory_check.h"
#include "engine/model/model.h"
#include "engine/session/chat_session.h"
#include "engine/session/engine_metrics.h"
#include "engine/session/session_store.h"
#include <QElapsedTimer>
#include <QFile>
#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

namespace hearth::app {

using hearth::engine::Inference;
using hearth::engine::Model;

// Where a forward pass's first layers run: the device and its layers as the settings name them,
// and the context they were planned for (the automatic layer count depends on it).
struct DevicePlacement {
    QString device = QStringLiteral("cpu");
    int gpuLayers = 0;
    int context = 0;
    bool onCpu() const { return device == QLatin1String("cpu") || gpuLayers == 0; }
    bool operator==(const DevicePlacement&) const = default;
};

struct InferenceWorker::Engine {
    // Written by the engine's objects below (and by publishMemory) on the worker's thread.
    std::shared_ptr<engine::EngineMetrics> metrics = std::make_shared<engine::EngineMetrics>();
    std::shared_ptr<const Model> model;
    std::unique_ptr<Inference> inference;
    std::unique_ptr<engine::SessionStore> sessions; // after `inference`: destroyed (and saved) first
    int contextLength = 0;
    ModelSummary summary;
    // The load's finite-values probe already ran the warm-up's tokens through this inference:
    // its weights are paged in and repacked, so the warm-up has nothing left to do.
    bool warmedByLoad = false;
    DevicePlacement placed;                         // what `inference` runs on
    std::optional<DevicePlacement> failedPlacement; // a GPU choice that failed: not tried again
    // The GPU's figures of forward passes gone (another device, another model), summed.
    std::vector<engine::DeviceOpTiming> retiredDeviceOps;
    uint64_t retiredValidationErrors = 0;

    void publishMemory() const {
        if (!sessions) metrics->kv_bytes.store(0, std::memory_order_relaxed);
        metrics->model_bytes.store(model ? model->info().file_bytes : 0, std::memory_order_relaxed);
    }
};

namespace {
int effectiveContext(const Model& model, int requested) {
    const int trained = model.hparams().n_ctx_train;
    return trained > 0 ? std::min(requested, trained) : requested;
}

// A quantized cache stores blocks of 32 along a head: a model whose head size is not a multiple
// of 32 keeps F16 for that part (the summary shows what runs) rather than failing every reply.
engine::KvCacheTypes cacheTypesFor(const Model& model, const EngineConfig& config) {
    engine::KvCacheTypes types = kvCacheTypes(config);
    if (model.hparams().head_dim % 32 != 0) types = engine::KvCacheTypes{};
    return types;
}

engine::InferenceOptions inferenceOptions(const Model& model, const EngineConfig& config) {
    engine::InferenceOptions options;
    options.n_threads = config.threads; // 0: one per hardware thread, as everywhere
    options.cache_types = cacheTypesFor(model, config);
    return options;
}

// The placement the settings ask for: the CPU, or a GPU with its layers (-1: as many as fit).
DevicePlacement placementFor(const EngineConfig& config, int context) {
    DevicePlacement wanted{computeDevice(config).kind == engine::ComputeDevice::Kind::Cpu
                               ? DevicePlacement{}.device
                               : config.device,
                           config.gpuLayers, context};
    return wanted.onCpu() ? DevicePlacement{} : wanted;
}

engine::InferenceOptions deviceOptions(const DevicePlacement& placement) {
    engine::InferenceOptions options;
    options.device =
        engine::compute_device_from_name(placement.device.toStdString()).value_or(engine::ComputeDevice{});
    options.n_gpu_layers = placement.gpuLayers;
    options.device_context = placement.context;
    return options;
}

// Two tokens through the whole network, in one batch as a prompt's are: the logits after them.
std::span<const float> evalProbe(Inference& inference) {
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
void checkComputesFiniteValues(Inference& inference, const std::string& path) {
    const std::span<const float> logits = evalProbe(inference);
    if (!std::all_of(logits.begin(), logits.end(), [](float v) { return std::isfinite(v); }))
        throw Error(path + ": the model computes NaN or infinite values: its weights are damaged");
}

QString cacheTypeName(kernels::TensorType type) {
    return QString::fromUtf8(kernels::type_traits(type).name.data(),
                             static_cast<qsizetype>(kernels::type_traits(type).name.size()));
}

ModelSummary summarize(const Model& model, int contextLength, const Inference& inference,
                       double loadSeconds) {
    const engine::ModelInfo& info = model.info();
    ModelSummary s;
    s.path = QString::fromStdString(model.path());
    s.name = displayName(info);
    s.architecture = QString::fromStdString(info.architecture);
    s.quantization = QString::fromStdString(info.file_type.empty() ? info.quantization : info.file_type);
    s.parameters = info.parameters;
    s.fileBytes = info.file_bytes;
    s.trainedContextLength = info.context_length;
    s.contextLength = contextLength;
    s.threads = inference.n_threads();
    s.keyCacheType = cacheTypeName(inference.cache_types().keys);
    s.valueCacheType = cacheTypeName(inference.cache_types().values);
    if (const engine::DeviceForward* device = inference.device_forward())
        s.gpuName = QString::fromStdString(device->device().name);
    s.gpuLayers = inference.n_gpu_layers();
    s.layerCount = model.hparams().n_layer;
    s.hasChatTemplate = info.has_chat_template;
    s.loadSeconds = loadSeconds;
    return s;
}
} // namespace

InferenceWorker::InferenceWorker(const QString& stateDir, QObject* parent)
    : QObject(parent), engine_(std::make_unique<Engine>()), stateDir_(stateDir) {
    qRegisterMetaType<GenerationRequest>();
    qRegisterMetaType<ModelSummary>();
    qRegisterMetaType<EngineConfig>();
    qRegisterMetaType<GenerationResult>();
    server::registerCompletionTypes();
}

std::shared_ptr<const engine::EngineMetrics> InferenceWorker::engineMetrics() const {
    return engine_->metrics;
}

InferenceWorker::~InferenceWorker() {
    dropServerSessions();
    engine_->sessions.reset(); // saves every conversation in memory, while the model is still there
}

void InferenceWorker::dropServerSessions() {
    if (engine_->sessions)
        for (const std::string& id : serverSessions_)
            engine_->sessions->forget(id); // also deletes a state saved when it was evicted
    serverSessions_.clear();
}

void InferenceWorker::resetSessions() {
    dropServerSessions();
    engine_->sessions.reset(); // saves the conversations of the old forward pass
    if (engine_->inference) {
        engine::SessionStoreOptions options;
        options.n_ctx = engine_->contextLength;
        options.memory_budget_bytes = static_cast<size_t>(std::max<qint64>(memoryBudget_, 0));
        options.state_dir = stateDir_.toStdString();
        options.saved_format =
            compressSavedStates_ ? engine::KvStateFormat::Q8_0 : engine::KvStateFormat::F16;
        engine_->sessions =
            std::make_unique<engine::SessionStore>(*engine_->inference, options, *engine_->metrics);
    }
    engine_->publishMemory();
}

void InferenceWorker::setMemoryBudget(qint64 bytes) {
    memoryBudget_ = bytes;
    if (engine_->sessions)
        engine_->sessions->set_memory_budget(static_cast<size_t>(std::max<qint64>(bytes, 0)));
}

void InferenceWorker::setCompressSavedStates(bool compress) {
    if (compress == compressSavedStates_) return;
    compressSavedStates_ = compress;
    if (engine_->sessions)
        engine_->sessions->set_saved_format(compress ? engine::KvStateFormat::Q8_0
                                                     : engine::KvStateFormat::F16);
}

void InferenceWorker::requestStop(quint64 requestId) {
    quint64 previous = stopUpTo_.load();
    while (previous < requestId && !stopUpTo_.compare_exchange_weak(previous, requestId)) {
    }
    if (running_.load() <= requestId) stop_.store(true);
}

void InferenceWorker::configure(const hearth::app::EngineConfig& config) {
    // A GPU chosen again is tried again, even one that failed before.
    if (config.device != config_.device || config.gpuLayers != config_.gpuLayers)
        engine_->failedPlacement.reset();
    config_ = config;
    if (!engine_->model) return;
    const engine::InferenceOptions options = inferenceOptions(*engine_->model, config);
    const int context = effectiveContext(*engine_->model, config.contextLength);
    const bool newCacheTypes = options.cache_types != engine_->inference->cache_types();
    // Threads alone only resize the kernels' pool: every conversation keeps its cache.
    if (!newCacheTypes) engine_->inference->set_threads(options.n_threads);
    if (newCacheTypes || context != engine_->contextLength) {
        dropServerSessions();
        engine_->sessions.reset(); // sessions hold the old forward pass and cache sizes (saved first)
        if (newCacheTypes) {
            retireDeviceFigures();
            engine_->inference = std::make_unique<Inference>(engine_->model, options);
            engine_->placed = {};
            engine_->warmedByLoad = false;
        }
        engine_->contextLength = context;
        resetSessions();
    }
    // A new device, or none: the conversations' caches move along (SessionStore::move_caches_to_host).
    applyDevice();
    engine_->summary = summarize(*engine_->model, context, *engine_->inference, engine_->summary.loadSeconds);
    emit configured(engine_->summary);
}

void InferenceWorker::applyDevice() {
    Engine& e = *engine_;
    const DevicePlacement wanted = placementFor(config_, e.contextLength);
    if (wanted == e.placed || wanted == e.failedPlacement) return;
    retireDeviceFigures();
    if (e.sessions) e.sessions->move_caches_to_host(); // the old device's memory is freed first
    try {
        e.inference->set_device(deviceOptions(wanted));
        e.placed = wanted;
        e.failedPlacement.reset();
        // The GPU's pipelines are built on first use: the warm-up runs them.
        if (!wanted.onCpu()) e.warmedByLoad = false;
    } catch (const std::exception& error) {
        e.placed = {}; // set_device left every layer on the CPU
        e.failedPlacement = wanted;
        emit deviceFailed(tr("Hearth could not use the GPU (%1) and runs the model on the CPU; your "
                             "conversations are kept. %2")
                              .arg(wanted.device, QString::fromUtf8(error.what())));
    }
    publishDeviceFigures();
}

void InferenceWorker::fallBackToCpu(const QString& reason) {
    Engine& e = *engine_;
    const QString device = e.placed.device;
    retireDeviceFigures();
    e.failedPlacement = e.placed;
    // A lost device's rows cannot be read: those caches forget their tokens and are computed again.
    if (e.sessions) e.sessions->move_caches_to_host();
    e.inference->set_device(deviceOptions(DevicePlacement{}));
    e.placed = {};
    publishDeviceFigures();
    e.publishMemory();
    emit deviceFailed(tr("The GPU (%1) failed, so Hearth runs the model on the CPU from now on; your "
                         "conversations are kept. %2")
                          .arg(device, reason));
    e.summary = summarize(*e.model, e.contextLength, *e.inference, e.summary.loadSeconds);
    emit configured(e.summary);
}

void InferenceWorker::retireDeviceFigures() {
    Engine& e = *engine_;
    const engine::DeviceForward* device = e.inference ? e.inference->device_forward() : nullptr;
    if (!device) return;
    engine::add_timings(e.retiredDeviceOps, device->total_timings());
    e.retiredValidationErrors += device->validation_errors();
}

void InferenceWorker::publishDeviceFigures() {
    const Engine& e = *engine_;
    std::vector<engine::DeviceOpTiming> ops = e.retiredDeviceOps;
    uint64_t validationErrors = e.retiredValidationErrors;
    if (const engine::DeviceForward* device = e.inference ? e.inference->device_forward() : nullptr) {
        engine::add_timings(ops, device->total_timings());
        validationErrors += device->validation_errors();
    }
    e.metrics->show_device_figures(std::move(ops), validationErrors);
}

void InferenceWorker::loadModel(quint64 requestId, const QString& path) {
    QElapsedTimer timer;
    timer.start();
    try {
        // Refused before any weight is read when it cannot fit beside everything else running.
        const auto fits = [&](const engine::ModelInfo& info) {
            const engine::KvCacheTypes types = kvCacheTypes(config_);
            const int context = info.context_length > 0 ? std::min(config_.contextLength, info.context_length)
                                                        : config_.contextLength;
            engine::check_memory_fits(path.toStdString(),
                                      engine::memory_need(info, context, types.keys, types.values),
                                      engine::available_memory_bytes());
        };
        std::shared_ptr<const Model> model = Model::load(path.toStdString(), fits);
        auto inference = std::make_unique<Inference>(model, inferenceOptions(*model, config_));
        checkComputesFiniteValues(*inference, model->path());
        // Only now that the new model works is the old one let go (its conversations saved).
        dropServerSessions();
        engine_->sessions.reset();
        retireDeviceFigures();
        engine_->inference = std::move(inference);
        engine_->placed = {};
        engine_->failedPlacement.reset(); // another model may fit where this one did not
        engine_->warmedByLoad = true;
        engine_->model = std::move(model);
        engine_->contextLength = effectiveContext(*engine_->model, config_.contextLength);
        resetSessions();
        // Loaded and checked on the CPU, then put on the GPU: a GPU that cannot take it leaves
        // the model running on the CPU, with a message, rather than refusing the load.
        applyDevice();
        engine_->summary =
            summarize(*engine_->model, engine_->contextLength, *engine_->inference, timer.elapsed() / 1000.0);
        emit loadFinished(requestId, true, engine_->summary, QString());
    } catch (const std::exception& e) {
        emit loadFinished(requestId, false, ModelSummary{}, QString::fromUtf8(e.what()));
    }
}

void InferenceWorker::warmUp(quint64 requestId) {
    QElapsedTimer timer;
    timer.start();
    if (engine_->inference && !std::exchange(engine_->warmedByLoad, false)) {
        try {
            evalProbe(*engine_->inference);
        } catch (const std::exception&) {
            // A warm-up is only an optimisation; a real failure shows on the first reply.
        }
    }
    emit warmUpFinished(requestId, timer.elapsed() / 1000.0);
}

void InferenceWorker::unloadModel() {
    dropServerSessions();
    engine_->sessions.reset(); // saved: they resume when this model is loaded again
    retireDeviceFigures();
    engine_->inference.reset();
    engine_->placed = {};
    engine_->model.reset();
    engine_->summary = {};
    engine_->publishMemory();
    emit modelUnloaded();
}

void InferenceWorker::forgetConversation(const QString& conversationId) {
    serverSessions_.erase(conversationId.toStdString());
    if (engine_->sessions) {
        engine_->sessions->forget(conversationId.toStdString());
    } else if (!stateDir_.isEmpty()) {
        // No model loaded, so no store: the state file still has to go.
        QFile::remove(QString::fromStdString(
            engine::SessionStore::state_path_in(stateDir_.toStdString(), conversationId.toStdString())));
    }
    engine_->publishMemory();
}

void InferenceWorker::complete(const hearth::server::CompletionRequest& request) {
    if (!engine_->sessions) {
        server::CompletionResult result;
        result.errorStatus = 503;
        result.error = tr("No model is loaded in Hearth. Load one, then try again.");
        emit completionFinished(request.id, result);
        return;
    }
    serverSessions_.insert(request.sessionId.toStdString());
    const server::CompletionResult result = server::runCompletion(
        *engine_->sessions, request, [&](const QString& text) { emit completionPiece(request.id, text); });
    engine_->publishMemory();
    emit completionFinished(request.id, result);
}

void InferenceWorker::generate(const GenerationRequest& request) {
    running_.store(request.id);
    stop_.store(stopUpTo_.load() >= request.id);
    if (!engine_->inference) {
        running_.store(0);
        emit generationFailed(request.id, tr("No model is loaded."));
        return;
    }

    std::vector<engine::ChatTurn> turns;
    turns.reserve(request.turns.size());
    for (const ChatTurnData& t : request.turns)
        turns.push_back({t.role, t.content.toStdString()});
    const std::string id = request.conversationId.toStdString();

    PieceBatcher batcher{std::chrono::milliseconds(kFlushIntervalMs)};
    bool shown = false; // pieces of this reply have gone to the GUI
    const auto onPiece = [&](std::string_view piece) {
        batcher.add(piece);
        if (!batcher.due()) return;
        emit piecesReady(request.id, batcher.take());
        shown = true;
        publishDeviceFigures();
    };
    const auto flush = [&] {
        if (!batcher.empty()) emit piecesReady(request.id, batcher.take());
    };
    for (bool retried = false;;) {
        try {
            // The session comes from memory, from its saved state, or new.
            const GenerationResult turn = engine_->sessions->run_turn(
                {.conversation_id = id, .conversation = turns, .options = request.options, .stop = &stop_},
                onPiece);
            flush();
            engine_->publishMemory();
            publishDeviceFigures();
            emit generationFinished(request.id, turn);
        } catch (const engine::DeviceError& e) {
            fallBackToCpu(QString::fromUtf8(e.what()));
            // Nothing of the reply shown yet: the same turn again, on the CPU.
            if (!shown && !std::exchange(retried, true)) {
                batcher.take();
                continue;
            }
            flush();
            emit generationFailed(request.id,
                                  tr("The GPU failed during this reply, so Hearth runs the model on "
                                     "the CPU from now on; regenerate the reply to finish it. %1")
                                      .arg(QString::fromUtf8(e.what())));
        } catch (const std::exception& e) {
            flush();
            // The store has dropped the conversation's half-finished cache; it starts afresh next time.
            engine_->publishMemory();
            emit generationFailed(request.id, QString::fromUtf8(e.what()));
        }
        break;
    }
    running_.store(0);
}

} // namespace hearth::app
