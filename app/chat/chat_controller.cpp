#include "app/chat/chat_controller.h"
#include "app/chat/message_images.h"
#include "app/models/inference_worker.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "app/storage/conversation_store.h"
#include <QClipboard>
#include <QGuiApplication>
#include <QJsonArray>
#include <QJsonDocument>

namespace hearth::app {

ChatController::ChatController(AppSettings* settings, ConversationStore* store, InferenceWorker* worker,
                               ModelController* models, QObject* parent)
    : QObject(parent), settings_(settings), store_(store), worker_(worker), models_(models),
      files_(settings, store), attachments_(models, images_) {
    search_.setSourceModel(&conversations_);
    current_ = &emptyChat_;
    connect(this, &ChatController::generateRequested, worker, &InferenceWorker::generate,
            Qt::QueuedConnection);
    connect(this, &ChatController::forgetRequested, worker, &InferenceWorker::forgetConversation,
            Qt::QueuedConnection);
    connect(worker, &InferenceWorker::piecesReady, this, &ChatController::onPieces);
    connect(worker, &InferenceWorker::generationFinished, this, &ChatController::onFinished);
    connect(worker, &InferenceWorker::generationFailed, this, &ChatController::onFailed);
    connect(worker, &InferenceWorker::toolCallsReady, this, &ChatController::onToolCalls);
    // A draft model the settings chose that cannot draft, for the API server's requests too.
    connect(worker, &InferenceWorker::completionFinished, this,
            [this](quint64, const server::CompletionResult& result) {
                reportSpeculationError(result.stats.speculation_error);
            });
    connect(models, &ModelController::stateChanged, this, &ChatController::canSendChanged);
    connect(models, &ModelController::stateChanged, this, &ChatController::onModelStateChanged);
    connect(store, &ConversationStore::failed, this, [this](const QString& message) {
        storeError_ = message;
        setError(message);
    });
    // Once the disk takes writes again, the store's message no longer applies (another error
    // shown since stays).
    connect(store, &ConversationStore::recovered, this, [this] {
        if (!storeError_.isEmpty() && error_ == storeError_) clearError();
        storeError_.clear();
    });
    // A database locked at start is read once it is free.
    connect(store, &ConversationStore::conversationsAvailable, this, [this] { start(); });
    connect(&files_, &ConversationFiles::imported, this, [this] { start(); });
    connect(&attachments_, &ImageAttachments::failed, this, &ChatController::setError);
    connect(&attachments_, &ImageAttachments::readingChanged, this, &ChatController::canSendChanged);
    connect(this, &ChatController::currentConversationChanged, this, &ChatController::currentTitleChanged);
    connect(this, &ChatController::currentConversationChanged, this, &ChatController::canSendChanged);
    connect(this, &ChatController::generatingChanged, this, &ChatController::canSendChanged);
}

QString ChatController::currentTitle() const {
    const ConversationRecord* record = conversations_.find(currentConversationId());
    return record ? record->title : tr("New chat");
}

bool ChatController::canSend() const {
    return models_->loaded() && !models_->busy() && !generating() &&
           !loading_.value(currentConversationId()) && !attachments_.reading();
}

QString ChatController::titleFrom(const QString& text) {
    QString line = text.trimmed().section(QLatin1Char('\n'), 0, 0).simplified();
    constexpr int kMaxTitle = 48;
    if (line.size() > kMaxTitle) line = line.left(kMaxTitle - 1).trimmed() + QChar(0x2026);
    return line.isEmpty() ? tr("New chat") : line;
}

QCoro::Task<> ChatController::start() {
    const QPointer<ChatController> self(this); // the backend may be gone when the read finishes
    QCoro::Task<QList<ConversationRecord>> read = store_->loadConversations();
    const QList<ConversationRecord> records = co_await read;
    if (!self) co_return;
    conversations_.setConversations(records);
    ready_ = true;
    emit readyChanged();
}

MessageListModel* ChatController::modelFor(const QString& conversationId) {
    if (MessageListModel* model = messageModels_.value(conversationId)) return model;
    auto* model = new MessageListModel(conversationId, this);
    messageModels_.insert(conversationId, model);
    return model;
}

void ChatController::setCurrent(MessageListModel* model) {
    if (model == current_) return;
    current_ = model;
    clearTransientError(); // it was about the chat the user leaves
    emit currentConversationChanged();
}

void ChatController::newConversation() {
    setCurrent(&emptyChat_);
    if (presets_) presets_->newChatStarted();
}

void ChatController::selectConversation(const QString& id) {
    if (!conversations_.find(id)) return;
    const bool opened = messageModels_.contains(id);
    setCurrent(modelFor(id));
    if (!opened) loadMessages(id);
}

QCoro::Task<> ChatController::loadMessages(QString conversationId) {
    loading_.insert(conversationId, true);
    emit canSendChanged();
    const QPointer<ChatController> self(this);
    QCoro::Task<QList<MessageRecord>> read = store_->loadMessages(conversationId);
    QList<MessageRecord> records = co_await read;
    if (!self) co_return;
    loading_.remove(conversationId);
    if (MessageListModel* model = messageModels_.value(conversationId)) {
        // A reply that was streaming when the app was killed is what was saved of it.
        for (MessageRecord& m : records)
            if (m.state == MessageState::Streaming) m.state = MessageState::Stopped;
        QList<MessageImage> shown; // in the library before their thumbnails ask for them
        for (const MessageRecord& m : std::as_const(records))
            shown += m.images;
        images_->setImages(conversationId, shown);
        model->setMessages(records);
    }
    emit canSendChanged();
}

void ChatController::renameConversation(const QString& id, const QString& title) {
    const QString trimmed = title.simplified();
    if (trimmed.isEmpty() || !conversations_.rename(id, trimmed)) return;
    store_->renameConversation(id, trimmed);
    if (id == currentConversationId()) emit currentTitleChanged();
}

void ChatController::deleteConversation(const QString& id) {
    if (!conversations_.find(id)) return;
    if (activeModel_ && activeModel_->conversationId() == id) {
        activeCancel_->store(true);
        activeModel_ = nullptr; // the reply is dropped with the conversation
    }
    if (toolRound_ && toolRound_->model && toolRound_->model->conversationId() == id) {
        toolRound_.reset(); // its calls' answers are dropped with the conversation
        emit toolCallsChanged();
        emit generatingChanged();
    }
    conversations_.remove(id);
    store_->deleteConversation(id);
    images_->drop(id);
    emit forgetRequested(id);
    MessageListModel* model = messageModels_.take(id);
    if (model == current_) setCurrent(&emptyChat_);
    if (model) model->deleteLater();
}

bool ChatController::send(const QString& text) {
    const QString content = text.trimmed();
    const bool withImages = attachments_.count() > 0;
    if (content.isEmpty() && !withImages) return false;
    if (!models_->loaded()) {
        setError(
            tr("Load a model to start chatting: open the model picker or drop a .gguf file on the window."));
        return false;
    }
    if (!canSend()) return false;
    if (withImages && !attachments_.checkAccepted()) return false; // said why; text and images stay
    if (!readsImagesShownAbove(current_->count())) return false;
    const QDateTime now = QDateTime::currentDateTime();
    if (current_ == &emptyChat_) {
        const QString title =
            titleFrom(content.isEmpty() ? attachments_.images().constFirst().name : content);
        const ConversationRecord conversation{newRecordId(), title, now, now};
        conversations_.prepend(conversation);
        store_->saveConversation(conversation);
        if (presets_) presets_->conversationCreated(conversation.id); // saved after the conversation
        setCurrent(modelFor(conversation.id));
    }
    MessageRecord user;
    user.id = newRecordId();
    user.conversationId = current_->conversationId();
    user.position = current_->count();
    user.parentId = current_->count() > 0 ? current_->messages().constLast().id : QString();
    user.role = chat::Role::User;
    user.content = content;
    user.createdAt = now;
    images_->addImages(user.conversationId, attachments_.images()); // before the composer lets them go
    user.images = attachments_.take();
    current_->append(user);
    store_->saveMessage(user); // what the user wrote is on disk before the reply starts
    conversations_.touch(user.conversationId, now);
    toolRounds_ = 0;
    startReply();
    return true;
}

void ChatController::startReply() {
    MessageListModel* model = current_;
    GenerationRequest request;
    request.id = ++lastRequest_;
    request.conversationId = model->conversationId();
    activeTurnRows_.clear();
    // The conversation's chosen prompt, the model's preset's, or the global one.
    const QString systemPrompt =
        presets_ ? presets_->systemPromptFor(model->conversationId()) : settings_->systemPrompt();
    if (!systemPrompt.trimmed().isEmpty()) {
        request.turns.append({chat::Role::System, systemPrompt, {}});
        activeTurnRows_.append(-1);
    }
    for (int row = 0; row < model->count(); ++row) {
        const MessageRecord& m = model->messages().at(row);
        // A reply's calls and the tools' results go back to the model as the template shows them.
        QByteArray fields;
        if (m.role == chat::Role::Assistant) fields = replyTemplateFields(toolCallsFromJson(m.toolData));
        if (m.role == chat::Role::Tool) fields = resultTemplateFields(toolResultFromJson(m.toolData));
        if (m.role == chat::Role::Assistant && m.content.isEmpty() && fields.isEmpty()) continue;
        ChatTurnData turn(m.role, m.content, fields);
        turn.images = chatImages(m.images); // every turn's, so a resumed conversation shows them too
        request.turns.append(std::move(turn));
        activeTurnRows_.append(row);
    }
    request.options = presets_ ? presets_->generationOptions() : settings_->generationOptions();
    // No length set: as long as the context has room for, and no longer; a longer reply in a
    // small context (the demo model's) would push the question it answers out of view.
    if ((presets_ ? presets_->maxReplyTokens() : settings_->maxReplyTokens()) <= 0) {
        request.options.max_tokens = std::max(models_->contextLength(), 1);
        request.options.end_at_full_context = true;
    }

    MessageRecord reply;
    reply.id = newRecordId();
    reply.conversationId = model->conversationId();
    reply.position = model->count();
    reply.parentId = model->count() > 0 ? model->messages().constLast().id : QString();
    reply.role = chat::Role::Assistant;
    reply.state = MessageState::Streaming;
    reply.createdAt = QDateTime::currentDateTime();
    reply.model = models_->modelName();
    model->append(reply);

    activeRequest_ = request.id;
    activeCancel_ = request.cancel;
    activeModel_ = model;
    activeMessageId_ = reply.id;
    activeCalls_.clear();
    sinceReplySaved_.start();
    if (toolRounds_ == 0) clearTransientError(); // a tool round's notices stay for the whole reply
    emit generatingChanged();
    emit replyStarted(reply.id);
    // Tools while the reply's rounds last; the first round must call one when the user asked so.
    const bool offerTools = mcp_ && mcp_->anyEnabled() && toolRounds_ < kMaxToolRounds;
    const bool requireCall = offerTools && requireToolCall_ && toolRounds_ == 0;
    if (requireToolCall_ && toolRounds_ == 0) setRequireToolCall(false);
    if (mcp_ && mcp_->anyEnabled() && toolRounds_ >= kMaxToolRounds)
        setError(tr("This reply called tools %n time(s), the most one reply may: it goes on without them.",
                    nullptr, kMaxToolRounds));
    sendRequest(request, offerTools, requireCall);
}

void ChatController::sendRequest(GenerationRequest request, bool offerTools, bool requireCall) {
    if (!offerTools) {
        emit generateRequested(request);
        return;
    }
    // The servers start when a reply first needs them; one that cannot is named, and the reply
    // goes on with the others' tools.
    const QPointer<ChatController> self(this);
    mcp_->prepare([self, request, requireCall](const QStringList& errors) mutable {
        if (!self || self->activeRequest_ != request.id) return; // stopped and gone meanwhile
        if (!errors.isEmpty()) self->setError(errors.join(QLatin1Char('\n')));
        const QJsonArray tools = self->mcp_->toolsForModel();
        if (!tools.isEmpty()) {
            request.toolsJson = QJsonDocument(tools).toJson(QJsonDocument::Compact);
            request.toolChoice = requireCall ? server::ToolChoice::Required : server::ToolChoice::Auto;
        }
        emit self->generateRequested(request);
    });
}

void ChatController::setRequireToolCall(bool require) {
    if (requireToolCall_ == require) return;
    requireToolCall_ = require;
    emit requireToolCallChanged();
}

bool ChatController::awaitingToolApproval() const {
    if (!toolRound_) return false;
    for (const ToolCallRecord& call : toolRound_->calls)
        if (call.status == ToolCallStatus::Pending) return true;
    return false;
}

void ChatController::onToolCalls(quint64 requestId, const QList<server::ApiToolCall>& calls) {
    if (requestId == activeRequest_) activeCalls_ = calls;
}

void ChatController::beginToolRound(MessageListModel* model, const QString& messageId,
                                    const QList<server::ApiToolCall>& calls) {
    ToolRound round;
    round.serial = ++toolRoundSerial_;
    round.model = model;
    round.messageId = messageId;
    for (const server::ApiToolCall& call : calls) {
        ToolCallRecord record{call.id, call.name, {}, {}, call.arguments, ToolCallStatus::Pending};
        if (const std::optional<McpToolRoute> route = mcp_ ? mcp_->route(call.name) : std::nullopt) {
            record.server = route->server;
            record.tool = route->tool;
        }
        round.calls.append(record);
        round.answers.append(std::nullopt);
    }
    toolRound_ = std::move(round);
    ++toolRounds_;
    emit generatingChanged();
    for (int i = 0; i < toolRound_->calls.size(); ++i) {
        if (!toolRound_) return; // settled and completed already
        const ToolCallRecord& call = toolRound_->calls.at(i);
        if (call.server.isEmpty())
            settleToolCall(i, ToolCallStatus::Failed,
                           tr("There is no tool named \u201c%1\u201d.").arg(call.function), true);
        else if (mcp_->alwaysAllowed({call.server, call.tool}))
            runToolCall(i);
    }
    if (toolRound_ && toolRound_->serial == toolRoundSerial_) showToolCalls();
}

void ChatController::showToolCalls() {
    if (!toolRound_ || !toolRound_->model) return;
    const QString data = toolCallsToJson(toolRound_->calls);
    toolRound_->model->setToolData(toolRound_->messageId, data);
    if (const MessageRecord* m = toolRound_->model->find(toolRound_->messageId)) store_->saveMessage(*m);
    emit toolCallsChanged();
}

bool ChatController::answerToolCall(const QString& messageId, const QString& callId,
                                    const QString& decision) {
    if (!toolRound_ || toolRound_->messageId != messageId) return false;
    for (int i = 0; i < toolRound_->calls.size(); ++i) {
        const ToolCallRecord& call = toolRound_->calls.at(i);
        if (call.id != callId || call.status != ToolCallStatus::Pending) continue;
        if (decision == QLatin1String("deny")) {
            settleToolCall(i, ToolCallStatus::Denied, tr("The user did not allow this call."), true);
            return true;
        }
        if (decision == QLatin1String("always"))
            mcp_->allowAlways({call.server, call.tool});
        else if (decision != QLatin1String("once"))
            return false;
        runToolCall(i);
        showToolCalls();
        return true;
    }
    return false;
}

void ChatController::runToolCall(int index) {
    ToolCallRecord& call = toolRound_->calls[index];
    call.status = ToolCallStatus::Running;
    const QJsonDocument arguments = QJsonDocument::fromJson(call.arguments.toUtf8());
    const QPointer<ChatController> self(this);
    const quint64 serial = toolRound_->serial;
    mcp_->callTool({call.server, call.tool}, arguments.object(),
                   [self, serial, index](const McpCallResult& r) {
                       if (!self || !self->toolRound_ || self->toolRound_->serial != serial) return;
                       self->settleToolCall(index, r.failed ? ToolCallStatus::Failed : ToolCallStatus::Done,
                                            r.text, r.isError);
                   });
}

void ChatController::settleToolCall(int index, ToolCallStatus status, const QString& text, bool isError) {
    if (!toolRound_ || index < 0 || index >= toolRound_->calls.size() || toolRound_->answers.at(index))
        return;
    toolRound_->calls[index].status = status;
    toolRound_->answers[index] = ToolAnswer{text, isError};
    for (const std::optional<ToolAnswer>& answer : std::as_const(toolRound_->answers))
        if (!answer) {
            showToolCalls();
            return;
        }
    completeToolRound();
}

void ChatController::completeToolRound() {
    ToolRound round = std::move(*toolRound_);
    toolRound_.reset();
    MessageListModel* model = round.model;
    if (model) {
        model->setToolData(round.messageId, toolCallsToJson(round.calls));
        if (const MessageRecord* m = model->find(round.messageId)) store_->saveMessage(*m);
        // Each result is a tool message under the reply, in the order of the calls.
        for (int i = 0; i < round.calls.size(); ++i) {
            const ToolCallRecord& call = round.calls.at(i);
            ToolResultRecord result{
                call.id, call.function, call.server, call.tool, round.answers.at(i)->isError, false};
            MessageRecord message;
            message.id = newRecordId();
            message.conversationId = model->conversationId();
            message.position = model->count();
            message.parentId = model->count() > 0 ? model->messages().constLast().id : QString();
            message.role = chat::Role::Tool;
            message.content = truncatedToolResult(round.answers.at(i)->text, &result.truncated);
            message.toolData = toolResultToJson(result);
            message.createdAt = QDateTime::currentDateTime();
            model->append(message);
            store_->saveMessage(message);
        }
    }
    emit toolCallsChanged();
    if (!model || round.stopped || model != current_) {
        emit generatingChanged();
        return;
    }
    startReply(); // the reply goes on with the results
}

void ChatController::onPieces(quint64 requestId, const QString& text) {
    if (requestId != activeRequest_ || !activeModel_) return;
    activeModel_->appendText(activeMessageId_, text);
    if (const MessageRecord* m = activeModel_->find(activeMessageId_)) {
        if (sinceReplySaved_.elapsed() >= kPartialSaveMs) { // on the database thread, as every write
            store_->saveMessage(*m);
            sinceReplySaved_.restart();
        }
    }
}

void ChatController::finishReply(MessageState state, const QString& stats) {
    const QString messageId = activeMessageId_;
    if (activeModel_) {
        activeModel_->setState(messageId, state);
        if (!stats.isEmpty()) activeModel_->setStats(messageId, stats);
        if (const MessageRecord* m = activeModel_->find(messageId)) {
            store_->saveMessage(*m);
            conversations_.touch(m->conversationId, QDateTime::currentDateTime());
        }
    }
    activeRequest_ = 0;
    activeModel_ = nullptr;
    activeMessageId_.clear();
    emit generatingChanged();
    emit replyFinished(messageId, messageStateName(state));
}

void ChatController::reportSpeculationError(const std::string& error) {
    if (error.empty()) return;
    setError(tr("Speculative decoding is not used: %1. Replies are decoded without it; choose another "
                "draft model in the settings.")
                 .arg(QString::fromStdString(error)));
}

void ChatController::onFinished(quint64 requestId, const GenerationResult& r) {
    if (requestId != activeRequest_) return;
    reportSpeculationError(r.stats.speculation_error);
    QStringList parts;
    const engine::TurnStats& stats = r.stats;
    parts << tr("%n token(s)", nullptr, stats.generated_tokens);
    if (const double rate = stats.decode_tokens_per_second(); rate > 0)
        parts << tr("%1 tok/s").arg(rate, 0, 'f', 1);
    if (stats.drafted_tokens > 0)
        parts << tr("%1% of drafted tokens accepted").arg(qRound(100.0 * stats.acceptance_rate()));
    if (stats.images_encoded > 0) // images already in the cache are not read again
        parts << tr("%n image(s) read in %1 ms", nullptr, stats.images_encoded)
                     .arg(stats.image_encode_seconds * 1000.0, 0, 'f', 0);
    if (stats.time_to_first_token > 0)
        parts << tr("first token %1 ms").arg(stats.time_to_first_token * 1000.0, 0, 'f', 0);
    if (stats.reused_tokens > 0)
        parts << tr("%1 of %2 prompt tokens reused").arg(stats.reused_tokens).arg(stats.prompt_tokens);
    if (r.resume.branch)
        parts << tr("branch resumed from saved state (%n token(s), %1 ms)", nullptr, r.resume.tokens)
                     .arg(r.resume.seconds * 1000.0, 0, 'f', 0);
    else if (r.resume.restored)
        parts << tr("resumed from saved state (%n token(s), %1 ms)", nullptr, r.resume.tokens)
                     .arg(r.resume.seconds * 1000.0, 0, 'f', 0);
    else if (!r.resume.reason.empty())
        parts << tr("saved state not used");
    if (stats.context_shifted()) parts << tr("older turns left the context");
    if (stats.stop_reason == engine::StopReason::ContextFull) parts << tr("ended where the context is full");
    if (activeModel_) {
        // Messages whose turns were shifted out wholly sit above a divider in the chat.
        QString firstInView;
        if (stats.first_visible_turn > 0) {
            int row = activeModel_->indexOf(activeMessageId_); // every prompt turn is out: the reply
            for (int t = stats.first_visible_turn; t < activeTurnRows_.size(); ++t)
                if (activeTurnRows_.at(t) >= 0) {
                    row = activeTurnRows_.at(t);
                    break;
                }
            if (row > 0 && row < activeModel_->count()) firstInView = activeModel_->messages().at(row).id;
        }
        activeModel_->setFirstInView(firstInView);
    }
    const bool stopped = stats.stop_reason == engine::StopReason::Stopped;
    const QList<server::ApiToolCall> calls = std::exchange(activeCalls_, {});
    MessageListModel* model = activeModel_;
    const QString messageId = activeMessageId_;
    const bool callTools = !stopped && !calls.isEmpty() && model;
    if (callTools) { // saved with the reply: the calls as the model wrote them, none answered yet
        QList<ToolCallRecord> records;
        for (const server::ApiToolCall& call : calls)
            records.append({call.id, call.name, {}, {}, call.arguments, ToolCallStatus::Pending});
        model->setToolData(messageId, toolCallsToJson(records));
    }
    finishReply(stopped ? MessageState::Stopped : MessageState::Complete, parts.join(QStringLiteral(" · ")));
    if (callTools) beginToolRound(model, messageId, calls);
}

void ChatController::onModelStateChanged() {
    // Where a context shift left the model's view says nothing about another model or context:
    // the next turn shows the whole conversation to it, and says where its own view starts.
    const QPair<QString, int> viewer{models_->modelPath(), models_->contextLength()};
    if (viewer == viewer_) return;
    viewer_ = viewer;
    for (MessageListModel* model : std::as_const(messageModels_))
        model->setFirstInView(QString());
}

void ChatController::onFailed(quint64 requestId, const QString& message) {
    if (requestId != activeRequest_) return;
    setError(message);
    finishReply(MessageState::Failed, message);
}

void ChatController::stop() {
    if (activeRequest_ != 0) activeCancel_->store(true);
    if (!toolRound_) return;
    // Calls not answered yet end here; their results say so, and no reply follows them.
    toolRound_->stopped = true;
    const quint64 serial = toolRound_->serial;
    for (int i = 0; toolRound_ && toolRound_->serial == serial && i < toolRound_->calls.size(); ++i)
        if (!toolRound_->answers.at(i))
            settleToolCall(i, ToolCallStatus::Failed, tr("Stopped by the user."), true);
}

bool ChatController::regenerate(const QString& messageId) {
    if (!canSend() || current_ == &emptyChat_ || current_->count() == 0) return false;
    const int row = messageId.isEmpty() ? current_->count() - 1 : current_->indexOf(messageId);
    if (row < 0 || current_->messages().at(row).role != chat::Role::Assistant) return false;
    if (!readsImagesShownAbove(row)) return false;
    current_->removeFrom(row); // out of view, kept as a branch
    toolRounds_ = 0;
    startReply();
    return true;
}

bool ChatController::editAndResend(const QString& messageId, const QString& text) {
    const QString content = text.trimmed();
    if (!canSend()) return false;
    const int row = current_->indexOf(messageId);
    if (row < 0 || current_->messages().at(row).role != chat::Role::User) return false;
    MessageRecord edited = current_->messages().at(row); // its images stay with the new version
    if (content.isEmpty() && edited.images.isEmpty()) return false;
    if (!readsImagesShownAbove(row + 1)) return false;
    current_->removeFrom(row); // the original and what followed it stay, a branch
    edited.id = newRecordId();
    edited.position = row;
    edited.content = content;
    edited.createdAt = QDateTime::currentDateTime();
    current_->append(edited);
    store_->saveMessage(edited); // on disk before the reply starts, as a sent message
    conversations_.touch(edited.conversationId, edited.createdAt);
    toolRounds_ = 0;
    startReply();
    return true;
}

bool ChatController::readsImagesShownAbove(int row) {
    if (models_->imageInput()) return true;
    const QList<MessageRecord>& shown = current_->messages();
    for (int i = 0; i < std::min(row, int(shown.size())); ++i) {
        if (shown.at(i).images.isEmpty()) continue;
        setError(tr("This conversation shows images, and %1 reads none: load a vision model with its image "
                    "projector (mmproj) to go on with it.")
                     .arg(models_->modelName()));
        return false;
    }
    return true;
}

bool ChatController::switchVersion(const QString& messageId, int step) {
    if (generating() || current_ == &emptyChat_ || loading_.value(currentConversationId())) return false;
    const QString shown = current_->switchVersion(messageId, step);
    if (shown.isEmpty()) return false;
    store_->chooseMessage(shown);
    return true;
}

void ChatController::copyText(const QString& text) {
    if (QClipboard* clipboard = QGuiApplication::clipboard()) clipboard->setText(text);
}

void ChatController::clearError() {
    setError(QString());
}

void ChatController::clearTransientError() {
    if (error_ != storeError_) clearError();
}

void ChatController::setError(const QString& message) {
    if (message == error_) return;
    error_ = message;
    emit errorChanged();
}

} // namespace hearth::app
