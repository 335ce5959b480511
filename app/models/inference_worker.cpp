#include "app/models/inference_worker.h"
#include "app/models/image_projector_pairing.h"
#include "app/models/model_names.h"
#include "app/models/piece_batcher.h"
#include "app/server/engine_completion.h"
#include "app/server/tool_turn.h"
#include "engine/forward/device_forward.h"
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/runtime/engine_runtime.h"
#include "engine/session/engine_metrics.h"
#include "engine/tools/tool_call_id.h"
#include <QElapsedTimer>
#include <QRandomGenerator>

namespace hearth::app {

InferenceWorker::InferenceWorker(const QString& stateDir, QObject* parent)
    : QObject(parent), runtime_(std::make_unique<engine::EngineRuntime>(stateDir.toStdString())) {
    qRegisterMetaType<GenerationRequest>();
    qRegisterMetaType<ModelSummary>();
    qRegisterMetaType<EngineConfig>();
    qRegisterMetaType<GenerationResult>();
    qRegisterMetaType<QList<server::ApiToolCall>>();
    server::registerCompletionTypes();
    // The device failed while a turn ran: every layer runs on the CPU from now on.
    runtime_->on_device_failed([this](const engine::DeviceFailure& failure) {
        emit deviceFailed(
            tr("The GPU (%1) failed, so Hearth runs the model on the CPU from now on; your "
               "conversations are kept. %2")
                .arg(QString::fromStdString(failure.device), QString::fromStdString(failure.reason)));
        emit configured(summary());
    });
}

InferenceWorker::~InferenceWorker() = default; // the runtime saves every conversation in memory

std::shared_ptr<const engine::EngineMetrics> InferenceWorker::engineMetrics() const {
    return runtime_->metrics();
}

ModelSummary InferenceWorker::summary() const {
    const engine::Model& model = runtime_->model();
    const engine::Inference& inference = runtime_->inference();
    const engine::ModelInfo& info = model.info();
    ModelSummary s;
    s.path = QString::fromStdString(model.path());
    s.name = displayName(info);
    s.architecture = QString::fromStdString(info.architecture);
    s.quantization = QString::fromStdString(info.file_type.empty() ? info.quantization : info.file_type);
    s.parameters = info.parameters;
    s.fileBytes = info.file_bytes;
    s.trainedContextLength = info.context_length;
    s.contextLength = runtime_->context_length();
    s.threads = inference.n_threads();
    s.keyCacheType = cacheTypeName(inference.cache_types().keys);
    s.valueCacheType = cacheTypeName(inference.cache_types().values);
    if (const engine::DeviceForward* device = inference.device_forward())
        s.gpuName = QString::fromStdString(device->device().name);
    s.gpuLayers = inference.n_gpu_layers();
    s.layerCount = model.hparams().n_layer;
    s.hasChatTemplate = info.has_chat_template;
    s.imageProjector = QString::fromStdString(runtime_->image_projector_path());
    if (const vision::VisionProjector* projector = runtime_->image_projector()) {
        if (projector->tower_device() != "cpu")
            s.imageTowerGpu = QString::fromStdString(projector->tower_device());
        if (!projector->tower_device_problem().empty())
            qWarning("the vision tower runs on the CPU: %s", projector->tower_device_problem().c_str());
    }
    s.loadSeconds = loadSeconds_;
    return s;
}

void InferenceWorker::reportUnusableDevice(const engine::DeviceFailure& failure) {
    emit deviceFailed(
        tr("Hearth could not use the GPU (%1) and runs the model on the CPU; your "
           "conversations are kept. %2")
            .arg(QString::fromStdString(failure.device), QString::fromStdString(failure.reason)));
}

void InferenceWorker::configure(const hearth::app::EngineConfig& config) {
    const std::optional<engine::DeviceFailure> failure = runtime_->configure(config);
    if (!runtime_->loaded()) return;
    if (failure) reportUnusableDevice(*failure);
    emit configured(summary());
}

void InferenceWorker::loadModel(quint64 requestId, const QString& path) {
    QElapsedTimer timer;
    timer.start();
    try {
        const std::optional<engine::DeviceFailure> failure = runtime_->load(path.toStdString());
        if (failure) reportUnusableDevice(*failure);
        // A vision model's projector beside it: without it (or if it cannot be used) the model
        // still chats, and the summary says why it reads no images.
        QString projectorError;
        const QString chosen = chosenProjectors_.value(path);
        if (const QString projector = chosen.isEmpty() ? findImageProjector(path) : chosen;
            !projector.isEmpty()) {
            try {
                runtime_->load_image_projector(projector.toStdString());
            } catch (const std::exception& e) {
                projectorError = QString::fromUtf8(e.what());
            }
        }
        loadSeconds_ = timer.elapsed() / 1000.0;
        ModelSummary loaded = summary();
        loaded.imageProjectorError = projectorError;
        emit loadFinished(requestId, true, loaded, QString());
    } catch (const std::exception& e) {
        emit loadFinished(requestId, false, ModelSummary{}, QString::fromUtf8(e.what()));
    }
}

void InferenceWorker::chooseImageProjector(const QString& modelPath, const QString& projectorPath) {
    if (projectorPath.isEmpty())
        chosenProjectors_.remove(modelPath);
    else
        chosenProjectors_.insert(modelPath, projectorPath);
}

void InferenceWorker::warmUp(quint64 requestId) {
    QElapsedTimer timer;
    timer.start();
    runtime_->warm_up();
    emit warmUpFinished(requestId, timer.elapsed() / 1000.0);
}

void InferenceWorker::unloadModel() {
    runtime_->unload();
    emit modelUnloaded();
}

void InferenceWorker::forgetConversation(const QString& conversationId) {
    runtime_->forget(conversationId.toStdString());
}

void InferenceWorker::complete(const hearth::server::CompletionRequest& request) {
    if (!runtime_->loaded()) {
        server::CompletionResult result;
        result.errorStatus = 503;
        result.error = tr("No model is loaded in Hearth. Load one, then try again.");
        emit completionFinished(request.id, result);
        return;
    }
    const server::CompletionResult result = server::runCompletion(
        *runtime_, request, [&](const QString& text) { emit completionPiece(request.id, text); },
        [&](int index, const server::ApiToolCall& call) {
            emit completionToolCall(request.id, index, call);
        });
    emit completionFinished(request.id, result);
}

void InferenceWorker::generate(const GenerationRequest& request) {
    if (!runtime_->loaded()) {
        emit generationFailed(request.id, tr("No model is loaded."));
        return;
    }
    engine::RuntimeRequest turn;
    turn.conversation_id = request.conversationId.toStdString();
    turn.conversation.reserve(request.turns.size());
    for (const ChatTurnData& t : request.turns)
        turn.conversation.push_back(
            {t.role, t.content.toStdString(),
             t.templateFields.isEmpty()
                 ? nlohmann::ordered_json::object()
                 : nlohmann::ordered_json::parse(t.templateFields.toStdString(), nullptr, false),
             t.images});
    for (engine::ChatTurn& t : turn.conversation)
        if (t.extra.is_discarded()) t.extra = nlohmann::ordered_json::object(); // a stored call unreadable
    turn.options = request.options;
    turn.cancel = request.cancel;
    server::ToolTurn tools;
    try {
        tools = server::prepareToolTurn(*runtime_, turn, request.toolsJson, request.toolChoice, QString(),
                                        SIZE_MAX);
    } catch (const std::exception& e) {
        emit generationFailed(request.id, tr("The tools could not be given to the model: %1").arg(e.what()));
        return;
    }

    PieceBatcher batcher{std::chrono::milliseconds(kFlushIntervalMs)};
    bool shown = false; // pieces of this reply have gone to the GUI
    // With tools, the text that may open a call is held back and calls are cut out of it.
    const auto release = [&](std::string_view piece) {
        return tools.stream ? tools.stream->push(piece) : std::string(piece);
    };
    const auto onPiece = [&](std::string_view piece) {
        batcher.add(release(piece));
        if (!batcher.due()) return;
        emit piecesReady(request.id, batcher.take());
        shown = true;
        runtime_->publish_device_figures();
    };
    // The GPU failed with nothing of the reply shown yet: the same turn again, on the CPU.
    const auto retryOnCpu = [&] {
        if (shown) return false;
        batcher.take();
        if (tools.stream) tools.stream.emplace(tools.family, SIZE_MAX);
        return true;
    };
    const auto flush = [&] {
        if (!batcher.empty()) emit piecesReady(request.id, batcher.take());
    };
    try {
        const GenerationResult result = runtime_->run(turn, onPiece, retryOnCpu);
        if (tools.stream) {
            const engine::ToolCallReply reply = tools.stream->finish();
            batcher.add(reply.content);
            QList<server::ApiToolCall> calls;
            for (const engine::ToolCall& call : reply.calls)
                calls.append(
                    {QString::fromStdString(call.id.empty()
                                                ? engine::make_tool_call_id(
                                                      tools.family, QRandomGenerator::global()->generate64())
                                                : call.id),
                     QString::fromStdString(call.name), QString::fromStdString(call.arguments)});
            flush();
            if (!calls.isEmpty()) emit toolCallsReady(request.id, calls);
        }
        flush();
        emit generationFinished(request.id, result);
    } catch (const engine::DeviceError& e) {
        flush();
        emit generationFailed(request.id, tr("The GPU failed during this reply, so Hearth runs the model on "
                                             "the CPU from now on; regenerate the reply to finish it. %1")
                                              .arg(QString::fromUtf8(e.what())));
    } catch (const std::exception& e) {
        flush();
        emit generationFailed(request.id, QString::fromUtf8(e.what()));
    }
}

} // namespace hearth::app
