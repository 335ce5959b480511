#pragma once
// What crosses the thread boundary between the GUI and the inference worker:
// plain values, copied into queued signals.
#include "app/server/completion_backend.h"
#include "engine/chat/chat_image.h"
#include "engine/chat/chat_role.h"
#include "engine/runtime/cancel_token.h"
#include "engine/session/generation_options.h"
#include "engine/session/turn_result.h"
#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>
#include <utility>
#include <vector>

namespace hearth::app {

struct ChatTurnData {
    ChatTurnData() = default;
    ChatTurnData(chat::Role turnRole, QString text, QByteArray fields = {})
        : role(turnRole), content(std::move(text)), templateFields(std::move(fields)) {}
    chat::Role role = chat::Role::User; // system, user, assistant or tool
    QString content;
    // A JSON object merged into the message the template sees: a reply's "tool_calls", a tool
    // result's "tool_call_id" and "name"; empty: none.
    QByteArray templateFields;
    // Images the turn shows, in order (the model reads them before its text); a model without an
    // image projector refuses a turn that has any.
    std::vector<chat::ChatImage> images;
};

struct GenerationRequest {
    quint64 id = 0;
    QString conversationId;    // selects the KV cache the turn reuses
    QList<ChatTurnData> turns; // ends with the user's turn
    // Sampling, the reply's length and the template override, as the engine takes them.
    engine::GenerationOptions options;
    // Function tools the reply may call: OpenAI's "tools" array (empty: none), and whether it
    // must call one (Required) or may (Auto). The calls come back in toolCallsReady.
    QByteArray toolsJson;
    server::ToolChoice toolChoice = server::ToolChoice::Auto;
    // Set from any thread (Stop, the conversation deleted): the reply stops after its current
    // token, or before its first when it has not started.
    engine::CancelToken cancel = engine::new_cancel_token();
};

struct ModelSummary {
    QString path;
    QString name;
    QString architecture;
    QString quantization;
    qint64 parameters = 0;
    qint64 fileBytes = 0;
    int trainedContextLength = 0;
    int contextLength = 0; // the context each conversation gets
    int threads = 0;
    QString keyCacheType, valueCacheType; // what the KV cache stores: f16, q8_0 or q4_0
    QString gpuName;    // the GPU that runs the first gpuLayers layers; empty: every layer on the CPU
    int gpuLayers = 0;  // of layerCount
    int layerCount = 0; // the model's layers
    bool hasChatTemplate = false;
    QString imageProjector;      // the mmproj file loaded with the model, which reads images; empty: none
    QString imageProjectorError; // why the projector found beside the model could not be loaded
    QString imageTowerGpu;       // the GPU the projector's vision tower runs on; empty: the CPU
    double loadSeconds = 0;
};

// One reply's outcome, as the engine reports it: the reply's figures (tokens reused, computed
// and generated, timings, the turns shifted out of view, why it stopped) and how the
// conversation's KV cache came back (from memory, from its saved state, or neither and why).
// The engine's own struct crosses the thread boundary, so no field is copied or renamed.
using GenerationResult = engine::TurnResult;

} // namespace hearth::app

Q_DECLARE_METATYPE(hearth::app::GenerationRequest)
Q_DECLARE_METATYPE(hearth::app::ModelSummary)
Q_DECLARE_METATYPE(hearth::app::GenerationResult)
