#include "engine/tokenizer/pre_tokenizer.h"
#include "engine/tokenizer/utf8.h"
#include <stdexcept>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace hearth::tokenizer {

struct PreTokenizer::Pattern {
    pcre2_code* code = nullptr;
    ~Pattern() { pcre2_code_free(code); }
};

PreTokenizer::PreTokenizer(std::span<const std::string> patterns) {
    for (const std::string& source : patterns) {
        auto pattern = std::make_unique<Pattern>();
        int error = 0;
        PCRE2_SIZE error_offset = 0;
        pattern->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(source.data()), source.size(),
                                      PCRE2_UTF | PCRE2_UCP, &error, &error_offset, nullptr);
        if (!pattern->code) {
            PCRE2_UCHAR message[256];
            pcre2_get_error_message(error, message, sizeof message);
            throw std::runtime_error("pre-tokenizer pattern '" + source + "' does not compile at " +
                                     std::to_string(error_offset) + ": " + reinterpret_cast<char*>(message));
        }
        pcre2_jit_compile(pattern->code,
                          PCRE2_JIT_COMPLETE); // the interpreter still works if JIT is unavailable
        patterns_.push_back(std::move(pattern));
    }
}

PreTokenizer::~PreTokenizer() = default;

std::vector<std::string_view> PreTokenizer::split(std::string_view text) const {
    // Valid UTF-8 runs go through the expressions; each invalid byte is a word alone.
    std::vector<std::string_view> pieces;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t valid = utf8::valid_prefix_length(text.substr(pos));
        if (valid > 0) pieces.push_back(text.substr(pos, valid));
        if (pos + valid < text.size()) pieces.push_back(text.substr(pos + valid, 1));
        pos += valid + 1;
    }

    std::vector<std::string_view> next;
    for (const auto& pattern : patterns_) {
        next.clear();
        for (const std::string_view piece : pieces) {
            // A one-byte piece at or above 0x80 can only be an invalid byte cut out above.
            const bool invalid_byte = piece.size() == 1 && static_cast<unsigned char>(piece[0]) >= 0x80;
            if (!invalid_byte)
                split_with(*pattern, piece, next);
            else
                next.push_back(piece);
        }
        pieces.swap(next);
    }
    return pieces;
}

void PreTokenizer::split_with(const Pattern& pattern, std::string_view text,
                              std::vector<std::string_view>& out) const {
    const std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match_data(
        pcre2_match_data_create_from_pattern(pattern.code, nullptr), &pcre2_match_data_free);
    if (!match_data) throw std::bad_alloc();
    pcre2_match_data* match = match_data.get();
    const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    size_t gap_start = 0; // text not yet emitted
    size_t pos = 0;
    while (pos < text.size()) {
        const int rc =
            pcre2_match(pattern.code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, match, nullptr);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) {
            PCRE2_UCHAR message[256];
            pcre2_get_error_message(rc, message, sizeof message);
            throw std::runtime_error(std::string("pre-tokenizer match failed: ") +
                                     reinterpret_cast<char*>(message));
        }
        const PCRE2_SIZE* range = pcre2_get_ovector_pointer(match);
        const size_t begin = range[0];
        const size_t end = range[1];
        if (end == begin) { // an empty match takes nothing but cuts there; step over one character
            if (begin >= text.size()) break;
            if (begin > gap_start) out.push_back(text.substr(gap_start, begin - gap_start));
            gap_start = begin;
            pos = begin + utf8::char_length(static_cast<unsigned char>(text[begin]));
            continue;
        }
        if (begin > gap_start) out.push_back(text.substr(gap_start, begin - gap_start));
        out.push_back(text.substr(begin, end - begin));
        pos = gap_start = end;
    }
    if (gap_start < text.size()) out.push_back(text.substr(gap_start));
}

} // namespace hearth::tokenizer
