// Fuzz target: the chat-template interpreter. The input is the template's text, a NUL, then
// the messages: a JSON array, or else plain contents separated by \x01 given alternating
// roles. Parsing and rendering either succeed or throw TemplateError (a hearth::Error),
// within the output limit; nothing else.
#include "engine/chat/chat_template.h"
#include "tests/fuzz/fuzz_support.h"
#include <string_view>

namespace {

using namespace hearth;

nlohmann::ordered_json messages_from(std::string_view text) {
    auto parsed = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_discarded() && parsed.is_array()) return parsed;
    nlohmann::ordered_json messages = nlohmann::ordered_json::array();
    static const char* roles[] = {"system", "user", "assistant", "user", "assistant", "tool"};
    size_t n = 0;
    while (!text.empty() && n < 64) {
        const size_t end = text.find('\x01');
        const std::string_view content = text.substr(0, end);
        messages.push_back({{"role", roles[n++ % 6]}, {"content", std::string(content)}});
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    }
    return messages;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const size_t split = input.find('\0');
    const std::string_view source = input.substr(0, split);
    const std::string_view rest =
        split == std::string_view::npos ? std::string_view() : input.substr(split + 1);

    chat::RenderOptions options;
    options.add_generation_prompt = size % 2 == 1;
    options.bos_token = "<s>";
    options.eos_token = "</s>";
    options.clock = [] {
        std::tm t{};
        t.tm_year = 124, t.tm_mon = 6, t.tm_mday = 26;
        return t;
    };
    options.max_output_bytes = 1u << 20;
    try {
        const chat::ChatTemplate tmpl(source, "fuzz");
        const std::string out = tmpl.render(messages_from(rest), options);
        if (out.size() > options.max_output_bytes) fuzz::invariant_failed("output over the limit");
    } catch (const Error&) {
    }
    return 0;
}
