#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/utf8.h"

namespace hearth::tokenizer {

std::string IncrementalDecoder::push(int32_t id) {
    pending_ += tokenizer_.token_to_piece(id);
    std::string out;
    size_t pos = 0;
    while (pos < pending_.size()) {
        const utf8::Decoded d = utf8::decode(pending_, pos);
        if (d.kind == utf8::Decoded::Kind::Truncated) break; // the rest comes with later tokens
        if (d.kind == utf8::Decoded::Kind::Complete)
            out.append(pending_, pos, d.length);
        else
            out += utf8::kReplacementCharacter;
        pos += d.kind == utf8::Decoded::Kind::Complete ? d.length : 1;
    }
    pending_.erase(0, pos);
    return out;
}

std::string IncrementalDecoder::flush() {
    if (pending_.empty()) return {};
    pending_.clear();
    return std::string(utf8::kReplacementCharacter);
}

} // namespace hearth::tokenizer
