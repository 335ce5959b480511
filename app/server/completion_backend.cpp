#include "app/server/completion_backend.h"
#include <algorithm>

namespace hearth::server {

bool ApiMessage::operator==(const ApiMessage& other) const {
    return role == other.role && content == other.content && templateFields == other.templateFields &&
           std::equal(images.begin(), images.end(), other.images.begin(), other.images.end(),
                      [](const chat::ChatImage& a, const chat::ChatImage& b) { return a.id == b.id; });
}

void registerCompletionTypes() {
    qRegisterMetaType<CompletionRequest>();
    qRegisterMetaType<CompletionResult>();
    qRegisterMetaType<ApiToolCall>();
}

} // namespace hearth::server
