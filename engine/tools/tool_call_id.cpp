#include "engine/tools/tool_call_id.h"

namespace hearth::engine {

std::string make_tool_call_id(ToolFamily family, uint64_t random_bits) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const size_t length = family == ToolFamily::Mistral ? 9 : 24;
    std::string id = family == ToolFamily::Mistral ? "" : "call_";
    uint64_t state = random_bits;
    for (size_t i = 0; i < length; ++i) {
        // splitmix64 steps: every character from fresh bits.
        state += 0x9e3779b97f4a7c15ULL;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        id += kAlphabet[z % (sizeof(kAlphabet) - 1)];
    }
    return id;
}

} // namespace hearth::engine
