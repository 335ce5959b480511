#include "app/server/completion_backend.h"

namespace hearth::server {

void registerCompletionTypes() {
    qRegisterMetaType<CompletionRequest>();
    qRegisterMetaType<CompletionResult>();
    qRegisterMetaType<ApiToolCall>();
}

} // namespace hearth::server
