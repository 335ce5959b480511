#pragma once
// One request to an engine runtime: a conversation's next assistant turn, with its generation
// options and its cancel token. The window's chats, the API's completions and the command line
// all run their turns as this.
#include "engine/runtime/cancel_token.h"
#include "engine/session/chat_session.h"
#include <string>
#include <vector>

namespace hearth::engine {

struct RuntimeRequest {
    std::string conversation_id;        // selects the session (and KV cache) the turn reuses
    std::vector<ChatTurn> conversation; // every turn so far, ending with the user's
    GenerationOptions options;
    CancelToken cancel = new_cancel_token();
    bool keep_state = true; // false: the session is never saved (the API's sessions)
};

} // namespace hearth::engine
