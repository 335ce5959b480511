#pragma once
// A request's cancel token: shared by whoever may cancel the request (the window's Stop button,
// an API client that left) and the thread that runs it, which checks it between tokens. A
// request cancelled before it runs stops before its first token.
#include <atomic>
#include <memory>

namespace hearth::engine {

using CancelToken = std::shared_ptr<std::atomic<bool>>;

inline CancelToken new_cancel_token() {
    return std::make_shared<std::atomic<bool>>(false);
}

} // namespace hearth::engine
