#include "app/core/inference_worker.h"
#include "app/core/model_names.h"
#include "app/core/piece_batcher.h"
#include "engine/error.h"
#include "engine/model/model.h"
#include "engine/session/chat_session.h"
#include "engine/session/engine_metrics.h"
#include "engine/session/inference.h"
#include <QElapsedTimer>
#include <QThread>
#include <algorithm>
#include <list>

namespace hearth::app {

using hearth::engine::ChatSession;
using hearth::engine::Inference;
using hearth::engine::Model;

struct InferenceWorker::Engine {
    struct Conversation {
        QString id;
        std::unique_ptr<ChatSession> session;
    };
    std::shared_ptr<const Model> model;
    std::unique_ptr<Inference> inference;
    std::list<Conversation> conversations; // most recently used first
    int contextLength = 0;
    ModelSummary summary;

    qint64 cacheBytes() const {
        qint64 total = 0;
        for (const auto& c : conversations)
            total += static_cast<qint64>(c.session->cache().bytes());
        return total;
    }
    void publishMemory() const {
        engine::engine_metrics().kv_bytes.store(cacheBytes(), std::memory_order_relaxed);
        engine::engine_metrics().model_bytes.store(model ? model->info().file_bytes : 0,
                                                   std::memory_order_relaxed);
    }
};

namespace {
int effectiveContext(const Model& model, int requested) {
    const int trained = model.hparams().n_ctx_train;
    return trained > 0 ? std::min(requested, trained) : requested;
}

engine::InferenceOptions inferenceOptions(int threads) {
    engine::InferenceOptions options;
    // "Automatic" leaves one hardware thread to the GUI: a kernel thread that has to share
    // a core with rendering stalls every barrier of the forward pass.
    options.n_threads = threads > 0 ? threads : std::max(1, QThread::idealThreadCount() - 1);
    return options;
}

ModelSummary summarize(const Model& model, int contextLength, int threads, double loadSeconds) {
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
    s.threads = threads;
    s.hasChatTemplate = info.has_chat_template;
    s.loadSeconds = loadSeconds;
    return s;
}
} // namespace

InferenceWorker::InferenceWorker(QObject* parent) : QObject(parent), engine_(std::make_unique<Engine>()) {
    qRegisterMetaType<GenerationRequest>();
    qRegisterMetaType<ModelSummary>();
    qRegisterMetaType<GenerationResult>();
}

InferenceWorker::~InferenceWorker() = default;

void InferenceWorker::requestStop(quint64 requestId) {
    quint64 previous = stopUpTo_.load();
    while (previous < requestId && !stopUpTo_.compare_exchange_weak(previous, requestId)) {
    }
    if (running_.load() <= requestId) stop_.store(true);
}

void InferenceWorker::configure(int threads, int contextLength) {
    const bool threadsChanged = threads != threads_;
    threads_ = threads;
    contextLength_ = contextLength;
    if (!engine_->model) return;
    const int context = effectiveContext(*engine_->model, contextLength);
    if (!threadsChanged && context == engine_->contextLength) return;
    engine_->conversations.clear(); // sessions hold the old forward pass and cache sizes
    if (threadsChanged)
        engine_->inference = std::make_unique<Inference>(engine_->model, inferenceOptions(threads));
    engine_->contextLength = context;
    engine_->summary.contextLength = context;
    engine_->summary.threads = engine_->inference->n_threads();
    engine_->publishMemory();
}

void InferenceWorker::loadModel(quint64 requestId, const QString& path) {
    QElapsedTimer timer;
    timer.start();
    try {
        std::shared_ptr<const Model> model = Model::load(path.toStdString());
        auto inference = std::make_unique<Inference>(model, inferenceOptions(threads_));
        // Only now that the new model works is the old one let go.
        engine_->conversations.clear();
        engine_->inference = std::move(inference);
        engine_->model = std::move(model);
        engine_->contextLength = effectiveContext(*engine_->model, contextLength_);
        engine_->summary = summarize(*engine_->model, engine_->contextLength, engine_->inference->n_threads(),
                                     timer.elapsed() / 1000.0);
        engine_->publishMemory();
        emit loadFinished(requestId, true, engine_->summary, QString());
    } catch (const std::exception& e) {
        emit loadFinished(requestId, false, ModelSummary{}, QString::fromUtf8(e.what()));
    }
}

void InferenceWorker::warmUp(quint64 requestId) {
    QElapsedTimer timer;
    timer.start();
    if (engine_->inference) {
        try {
            const auto& tokenizer = engine_->model->tokenizer();
            const int32_t token = tokenizer.bos_id() >= 0 ? tokenizer.bos_id() : 0;
            auto cache = engine_->inference->new_cache(8);
            const int32_t tokens[] = {token, token};
            engine_->inference->eval(*cache, tokens);
        } catch (const std::exception&) {
            // A warm-up is only an optimisation; a real failure shows on the first reply.
        }
    }
    emit warmUpFinished(requestId, timer.elapsed() / 1000.0);
}

void InferenceWorker::unloadModel() {
    engine_->conversations.clear();
    engine_->inference.reset();
    engine_->model.reset();
    engine_->summary = {};
    engine_->publishMemory();
    emit modelUnloaded();
}

void InferenceWorker::forgetConversation(const QString& conversationId) {
    engine_->conversations.remove_if([&](const Engine::Conversation& c) { return c.id == conversationId; });
    engine_->publishMemory();
}

void InferenceWorker::generate(const GenerationRequest& request) {
    running_.store(request.id);
    stop_.store(stopUpTo_.load() >= request.id);
    if (!engine_->inference) {
        running_.store(0);
        emit generationFailed(request.id, tr("No model is loaded."));
        return;
    }

    // The conversation's session, most recently used first; others are dropped beyond the budget.
    auto& conversations = engine_->conversations;
    auto found = std::find_if(conversations.begin(), conversations.end(),
                              [&](const Engine::Conversation& c) { return c.id == request.conversationId; });
    if (found != conversations.end()) {
        conversations.splice(conversations.begin(), conversations, found);
    } else {
        conversations.push_front({request.conversationId, std::make_unique<ChatSession>(
                                                              *engine_->inference, engine_->contextLength)});
        while (conversations.size() > 1 && engine_->cacheBytes() > cacheBudget_.load())
            conversations.pop_back();
    }
    engine_->publishMemory();
    ChatSession& session = *conversations.front().session;

    std::vector<engine::ChatTurn> turns;
    turns.reserve(request.turns.size());
    for (const ChatTurnData& t : request.turns)
        turns.push_back({t.role.toStdString(), t.content.toStdString()});

    engine::GenerationOptions options;
    options.sampling.temperature = static_cast<float>(request.temperature);
    options.sampling.top_k = request.topK;
    options.sampling.top_p = static_cast<float>(request.topP);
    options.sampling.min_p = static_cast<float>(request.minP);
    options.sampling.repeat_penalty = static_cast<float>(request.repeatPenalty);
    options.sampling.seed = request.seed;
    options.max_tokens = request.maxTokens;

    PieceBatcher batcher{std::chrono::milliseconds(kFlushIntervalMs)};
    const auto onPiece = [&](std::string_view piece) {
        batcher.add(piece);
        if (batcher.due()) emit piecesReady(request.id, batcher.take());
    };
    try {
        const engine::TurnStats stats = session.reply(turns, options, onPiece, &stop_);
        if (!batcher.empty()) emit piecesReady(request.id, batcher.take());
        GenerationResult result;
        result.promptTokens = stats.prompt_tokens;
        result.reusedTokens = stats.reused_tokens;
        result.computedTokens = stats.computed_tokens;
        result.generatedTokens = stats.generated_tokens;
        result.prefillTokensPerSecond = stats.prefill_tokens_per_second();
        result.decodeTokensPerSecond = stats.decode_tokens_per_second();
        result.timeToFirstTokenMs = stats.time_to_first_token * 1000.0;
        result.contextShifted = stats.context_shifted;
        result.stopReason = QString::fromStdString(stats.stop_reason);
        engine_->publishMemory();
        emit generationFinished(request.id, result);
    } catch (const std::exception& e) {
        if (!batcher.empty()) emit piecesReady(request.id, batcher.take());
        // The cache may hold a half-finished turn; start this conversation afresh next time.
        conversations.pop_front();
        engine::engine_metrics().generating.store(false, std::memory_order_relaxed);
        engine_->publishMemory();
        emit generationFailed(request.id, QString::fromUtf8(e.what()));
    }
    running_.store(0);
}

} // namespace hearth::app
