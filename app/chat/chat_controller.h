#pragma once
// The conversations and the chat, seen from QML: sends turns to the worker,
// streams its reply into the message list, and writes every message to the
// store (the user's at once, the reply when it completes or stops).
#include "app/chat/conversation_files.h"
#include "app/chat/conversation_list_model.h"
#include "app/chat/conversation_search_model.h"
#include "app/chat/image_attachments.h"
#include "app/chat/image_library.h"
#include "app/chat/message_list_model.h"
#include "app/chat/preset_controller.h"
#include "app/chat/tool_calls.h"
#include "app/models/worker_types.h"
#include "app/tools/mcp_server_registry.h"
#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QtQml/qqmlregistration.h>
#include <memory>
#include <optional>
#include <qcoro/qcorotask.h>

namespace hearth::app {

class AppSettings;
class ConversationStore;
class InferenceWorker;
class ModelController;

class ChatController : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Created by the application")
    Q_PROPERTY(hearth::app::ConversationSearchModel* conversations READ conversations CONSTANT)
    Q_PROPERTY(hearth::app::MessageListModel* messages READ messages NOTIFY currentConversationChanged)
    Q_PROPERTY(QString currentConversationId READ currentConversationId NOTIFY currentConversationChanged)
    Q_PROPERTY(QString currentTitle READ currentTitle NOTIFY currentTitleChanged)
    Q_PROPERTY(bool generating READ generating NOTIFY generatingChanged)
    Q_PROPERTY(bool canSend READ canSend NOTIFY canSendChanged)
    Q_PROPERTY(bool ready READ ready NOTIFY readyChanged)
    Q_PROPERTY(QString errorMessage READ errorMessage NOTIFY errorChanged)
    // Export and import of conversations; an import's conversations join the list.
    Q_PROPERTY(hearth::app::ConversationFiles* files READ files CONSTANT)
    // Model presets and the prompt library; the replies' system prompt and sampling come from it.
    Q_PROPERTY(hearth::app::PresetController* presets READ presets CONSTANT)
    // The MCP servers whose enabled tools replies may call (null: none).
    Q_PROPERTY(hearth::app::McpServerRegistry* mcpServers READ mcpServers CONSTANT)
    // The next reply must begin with a call of one of the tools (a grammar makes it one); cleared
    // when that reply starts.
    Q_PROPERTY(
        bool requireToolCall READ requireToolCall WRITE setRequireToolCall NOTIFY requireToolCallChanged)
    // A call of the reply waits for the user's Allow or Deny.
    Q_PROPERTY(bool awaitingToolApproval READ awaitingToolApproval NOTIFY toolCallsChanged)
    // The images attached to the message being written; send takes them with the text.
    Q_PROPERTY(hearth::app::ImageAttachments* attachments READ attachments CONSTANT)

public:
    ChatController(AppSettings* settings, ConversationStore* store, InferenceWorker* worker,
                   ModelController* models, QObject* parent = nullptr);

    [[nodiscard]] ConversationSearchModel* conversations() { return &search_; }
    [[nodiscard]] ConversationListModel* allConversations() { return &conversations_; }
    [[nodiscard]] ConversationFiles* files() { return &files_; }
    [[nodiscard]] ImageAttachments* attachments() { return &attachments_; }
    // The bytes of every image the chat can show (opened conversations, the composer's), by
    // SHA-256, for the window's image provider (which may outlive this controller).
    [[nodiscard]] std::shared_ptr<const ImageLibrary> imageLibrary() const { return images_; }
    [[nodiscard]] PresetController* presets() const { return presets_; }
    // Set once, before QML reads the property; null: the global settings alone.
    void setPresets(PresetController* presets) { presets_ = presets; }
    [[nodiscard]] McpServerRegistry* mcpServers() const { return mcp_; }
    // Set once, before QML reads the property; null: replies call no tools.
    void setMcpServers(McpServerRegistry* registry) { mcp_ = registry; }
    [[nodiscard]] bool requireToolCall() const { return requireToolCall_; }
    void setRequireToolCall(bool require);
    [[nodiscard]] bool awaitingToolApproval() const;
    [[nodiscard]] MessageListModel* messages() const { return current_; }
    [[nodiscard]] QString currentConversationId() const {
        return current_ ? current_->conversationId() : QString();
    }
    [[nodiscard]] QString currentTitle() const;
    // A reply is written, or its tools' calls are waiting or running (one reply, every round).
    [[nodiscard]] bool generating() const { return activeRequest_ != 0 || toolRound_.has_value(); }
    [[nodiscard]] bool canSend() const;
    [[nodiscard]] bool ready() const { return ready_; }
    [[nodiscard]] QString errorMessage() const { return error_; }

    // Reads the conversations from the store; the UI shows them when it finishes.
    QCoro::Task<> start();

    Q_INVOKABLE void newConversation(); // an empty chat; the conversation is created on the first send
    Q_INVOKABLE void selectConversation(const QString& id);
    Q_INVOKABLE void renameConversation(const QString& id, const QString& title);
    Q_INVOKABLE void deleteConversation(const QString& id);
    // The text and the images attached (either may be empty, not both). Refused, with both kept,
    // while the model reads no images and some are attached.
    Q_INVOKABLE bool send(const QString& text);
    Q_INVOKABLE void stop();
    // A new version of a reply (the last one when `messageId` is empty) beside the one there,
    // which stays as a branch to switch back to.
    Q_INVOKABLE bool regenerate(const QString& messageId = QString());
    // A new version of the user's message, sent: a branch beside the original and its replies.
    // It keeps the original's images.
    Q_INVOKABLE bool editAndResend(const QString& messageId, const QString& text);
    // Shows the previous (-1) or next (1) version of a message and the branch below it; the
    // choice is saved. Not while a reply is written.
    Q_INVOKABLE bool switchVersion(const QString& messageId, int step);
    // The user's answer to a call waiting in the reply `messageId`: "once" (Allow once),
    // "always" (Always allow: this tool of this server runs without asking from now on) or
    // "deny". False when no such call waits.
    Q_INVOKABLE bool answerToolCall(const QString& messageId, const QString& callId, const QString& decision);
    Q_INVOKABLE void copyText(const QString& text);
    Q_INVOKABLE void clearError();
    // Clears an error about what the user just did (a reply that failed, a send refused); the
    // conversation store's stays until its writes go through.
    Q_INVOKABLE void clearTransientError();

    // The title a conversation gets from its first message (its first image's name when it
    // has no text).
    static QString titleFrom(const QString& text);
    // Rounds of tool calls one reply may make; the reply after the last round is offered no tools.
    static constexpr int kMaxToolRounds = 8;

signals:
    void currentConversationChanged();
    void currentTitleChanged();
    void generatingChanged();
    void canSendChanged();
    void readyChanged();
    void errorChanged();
    void replyStarted(const QString& messageId);
    void replyFinished(const QString& messageId, const QString& state);
    void requireToolCallChanged();
    void toolCallsChanged(); // a call of the reply waits, runs or was answered
    // To the worker (queued):
    void generateRequested(const hearth::app::GenerationRequest& request);
    void forgetRequested(const QString& conversationId);

private:
    QCoro::Task<> loadMessages(QString conversationId);
    MessageListModel* modelFor(const QString& conversationId);
    void setCurrent(MessageListModel* model);
    void startReply();
    // False, saying why, when the model reads no images and a message above `row` shows some (the
    // engine would refuse the turn); the conversation is left as it is.
    bool readsImagesShownAbove(int row);
    // The request for the reply, sent to the worker once the tools it offers are known.
    void sendRequest(GenerationRequest request, bool offerTools, bool requireCall);
    void finishReply(MessageState state, const QString& stats);
    void setError(const QString& message);
    // The message for a draft model that cannot draft (`error` names both files); none if empty.
    void reportSpeculationError(const std::string& error);
    void onPieces(quint64 requestId, const QString& text);
    void onFinished(quint64 requestId, const GenerationResult& result);
    void onFailed(quint64 requestId, const QString& message);
    void onToolCalls(quint64 requestId, const QList<server::ApiToolCall>& calls);
    // The reply that just finished called tools: each runs when allowed (or always allowed).
    void beginToolRound(MessageListModel* model, const QString& messageId,
                        const QList<server::ApiToolCall>& calls);
    void runToolCall(int index);
    void settleToolCall(int index, ToolCallStatus status, const QString& text, bool isError);
    // Every call answered: their results become tool messages, and the reply goes on (unless
    // stopped).
    void completeToolRound();
    void showToolCalls(); // the round's calls into its message, and saved
    void onModelStateChanged();

    AppSettings* settings_;
    ConversationStore* store_;
    InferenceWorker* worker_;
    ModelController* models_;
    PresetController* presets_ = nullptr;
    ConversationListModel conversations_;
    ConversationSearchModel search_;
    ConversationFiles files_;
    std::shared_ptr<ImageLibrary> images_ = std::make_shared<ImageLibrary>();
    ImageAttachments attachments_;
    QHash<QString, MessageListModel*> messageModels_; // conversations opened so far
    QPointer<MessageListModel> current_;
    MessageListModel emptyChat_{QString()};
    QHash<QString, bool> loading_; // conversations whose messages are being read
    bool ready_ = false;
    QString error_;
    QString storeError_;         // the conversation store's last failure, cleared when it recovers
    QPair<QString, int> viewer_; // the model and context length the messages' view was last shown by

    quint64 lastRequest_ = 0;
    quint64 activeRequest_ = 0;        // 0 when idle
    engine::CancelToken activeCancel_; // the active reply's: Stop and deleting its conversation set it
    QPointer<MessageListModel> activeModel_;
    QString activeMessageId_;
    // When the streaming reply was last written: it is saved every kPartialSaveMs while it
    // streams, so that a killed app keeps all but the last second of it.
    QElapsedTimer sinceReplySaved_;
    static constexpr int kPartialSaveMs = 1000;
    QList<int> activeTurnRows_; // the message row of each turn of the active request (-1: system prompt)

    McpServerRegistry* mcp_ = nullptr;
    bool requireToolCall_ = false;
    int toolRounds_ = 0;                     // rounds of calls the current reply made so far
    QList<server::ApiToolCall> activeCalls_; // the active request's calls, before it finishes
    // The calls of the reply's last message, until every one is answered.
    struct ToolAnswer {
        QString text;
        bool isError = false;
    };
    struct ToolRound {
        quint64 serial = 0; // answers of an earlier round (stopped) are dropped
        QPointer<MessageListModel> model;
        QString messageId;
        QList<ToolCallRecord> calls;
        QList<std::optional<ToolAnswer>> answers;
        bool stopped = false; // Stop was pressed: no reply after the results
    };
    std::optional<ToolRound> toolRound_;
    quint64 toolRoundSerial_ = 0;
};

} // namespace hearth::app
