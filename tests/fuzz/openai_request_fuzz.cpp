// Fuzz target: the JSON request decoding of the API server (/v1/chat/completions and
// /v1/completions bodies, app/server/openai_protocol.cpp; Qt Core). Besides not crashing: a
// request is either refused with status 400 and a message, or accepted within the documented
// ranges, with at least one message, no more than four stop strings, the raw prompt flag
// only for /v1/completions, a forced tool call only with tools (a named one with its name), and
// images (content parts with data URLs) only on user messages, each with bytes within the limit and
// their SHA-256 as its id.
#include "app/server/openai_protocol.h"
#include "engine/vision/image_decode.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    using hearth::server::Endpoint;
    const Endpoint endpoint = data[0] % 2 == 0 ? Endpoint::ChatCompletions : Endpoint::Completions;
    const QByteArray body(reinterpret_cast<const char*>(data) + 1, static_cast<qsizetype>(size - 1));
    const auto parsed = hearth::server::parseRequest(endpoint, body);
    if (const auto* error = std::get_if<hearth::server::ApiError>(&parsed)) {
        if (error->message.isEmpty()) hearth::fuzz::invariant_failed("a refusal without a message");
        if (error->status != 400) hearth::fuzz::invariant_failed("a refusal that is not 400");
        (void)hearth::server::errorBody(*error);
        return 0;
    }
    const auto& ok = std::get<hearth::server::ParsedRequest>(parsed);
    const hearth::server::CompletionRequest& request = ok.completion;
    if (request.messages.isEmpty()) hearth::fuzz::invariant_failed("accepted without a message");
    if (!(request.temperature >= 0 && request.temperature <= 2))
        hearth::fuzz::invariant_failed("a temperature outside [0, 2]");
    if (!(request.topP >= 0 && request.topP <= 1)) hearth::fuzz::invariant_failed("a top_p outside [0, 1]");
    if (request.maxTokens < 1) hearth::fuzz::invariant_failed("max_tokens below 1");
    if (request.stop.size() > 4) hearth::fuzz::invariant_failed("more than four stop strings");
    if (request.rawPrompt != (endpoint == Endpoint::Completions))
        hearth::fuzz::invariant_failed("a raw prompt on the wrong endpoint");
    if (!ok.stream && ok.includeUsage) hearth::fuzz::invariant_failed("include_usage without a stream");
    using hearth::server::ToolChoice;
    const bool forced =
        request.toolChoice == ToolChoice::Required || request.toolChoice == ToolChoice::Function;
    if (forced && request.toolsJson.isEmpty()) hearth::fuzz::invariant_failed("a forced call without tools");
    if ((request.toolChoice == ToolChoice::Function) == request.forcedTool.isEmpty())
        hearth::fuzz::invariant_failed("a named function choice without its name, or a name without it");
    if (!request.toolsJson.isEmpty() && endpoint != Endpoint::ChatCompletions)
        hearth::fuzz::invariant_failed("tools on /v1/completions");
    for (const hearth::server::ApiMessage& message : request.messages)
        for (const hearth::chat::ChatImage& image : message.images) {
            if (message.role != hearth::chat::Role::User)
                hearth::fuzz::invariant_failed("an image not the user's");
            if (!image.bytes || image.bytes->empty() ||
                image.bytes->size() > hearth::vision::kMaxImageFileBytes)
                hearth::fuzz::invariant_failed("an image without bytes, or over the limit");
            if (image.id.size() != 64 || image.name.empty())
                hearth::fuzz::invariant_failed("an image without its SHA-256 id or its name");
        }
    return 0;
}
