#include "engine/chat/template_strings.h"
#include "engine/chat/template_error.h"
#include <algorithm>

namespace hearth::chat {

uint32_t decode_utf8(std::string_view s, size_t& i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : 0;
    if (c >= 0x80 && (extra == 0 || i + extra >= s.size())) {
        ++i; // a stray or truncated byte stands for itself
        return c;
    }
    uint32_t cp = extra == 0 ? c : (c & (0x3Fu >> extra));
    for (size_t k = 1; k <= extra; ++k) {
        unsigned char next = static_cast<unsigned char>(s[i + k]);
        if ((next & 0xC0) != 0x80) {
            ++i;
            return c;
        }
        cp = (cp << 6) | (next & 0x3F);
    }
    i += extra + 1;
    return cp;
}

bool is_python_space(uint32_t cp) {
    if (cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F)) return true;
    if (cp < 0x80) return false;
    return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
           cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

std::vector<size_t> code_point_offsets(std::string_view s) {
    std::vector<size_t> offsets;
    offsets.reserve(s.size() + 1);
    size_t i = 0;
    while (i < s.size()) {
        offsets.push_back(i);
        decode_utf8(s, i);
    }
    offsets.push_back(s.size());
    return offsets;
}

size_t code_point_count(std::string_view s) {
    size_t count = 0;
    for (size_t i = 0; i < s.size();) {
        decode_utf8(s, i);
        ++count;
    }
    return count;
}

std::string py_strip(std::string_view s, const std::optional<std::string>& chars, bool left, bool right) {
    std::vector<uint32_t> strip_set;
    if (chars) {
        for (size_t i = 0; i < chars->size();)
            strip_set.push_back(decode_utf8(*chars, i));
    }
    auto strippable = [&](uint32_t cp) {
        if (!chars) return is_python_space(cp);
        return std::find(strip_set.begin(), strip_set.end(), cp) != strip_set.end();
    };
    std::vector<size_t> offsets = code_point_offsets(s);
    size_t n = offsets.size() - 1;
    size_t begin = 0, end = n;
    auto cp_at = [&](size_t k) {
        size_t i = offsets[k];
        return decode_utf8(s, i);
    };
    if (left)
        while (begin < end && strippable(cp_at(begin)))
            ++begin;
    if (right)
        while (end > begin && strippable(cp_at(end - 1)))
            --end;
    return std::string(s.substr(offsets[begin], offsets[end] - offsets[begin]));
}

namespace {

// Splits on whitespace runs, from the left; maxsplit < 0 means no limit.
std::vector<std::string> split_whitespace(std::string_view s, int64_t maxsplit) {
    std::vector<std::string> parts;
    size_t i = 0;
    while (i < s.size()) {
        size_t j = i;
        while (j < s.size()) {
            size_t k = j;
            if (!is_python_space(decode_utf8(s, k))) break;
            j = k;
        }
        i = j;
        if (i >= s.size()) break;
        if (maxsplit >= 0 && static_cast<int64_t>(parts.size()) == maxsplit) {
            // The rest, without its trailing whitespace, is the last piece.
            parts.push_back(py_strip(s.substr(i), std::nullopt, false, true));
            return parts;
        }
        size_t start = i;
        while (i < s.size()) {
            size_t k = i;
            if (is_python_space(decode_utf8(s, k))) break;
            i = k;
        }
        parts.emplace_back(s.substr(start, i - start));
    }
    return parts;
}

void require_separator(const std::string& sep) {
    if (sep.empty()) throw TemplateFailure("empty separator");
}

} // namespace

std::vector<std::string> py_split(std::string_view s, const std::optional<std::string>& sep,
                                  int64_t maxsplit) {
    if (!sep) return split_whitespace(s, maxsplit);
    require_separator(*sep);
    std::vector<std::string> parts;
    size_t start = 0;
    while (maxsplit < 0 || static_cast<int64_t>(parts.size()) < maxsplit) {
        size_t found = s.find(*sep, start);
        if (found == std::string_view::npos) break;
        parts.emplace_back(s.substr(start, found - start));
        start = found + sep->size();
    }
    parts.emplace_back(s.substr(start));
    return parts;
}

std::vector<std::string> py_rsplit(std::string_view s, const std::optional<std::string>& sep,
                                   int64_t maxsplit) {
    if (maxsplit < 0) return py_split(s, sep, maxsplit);
    std::vector<std::string> parts;
    if (!sep) {
        // From the right: peel words off the end.
        std::string_view rest = s;
        while (true) {
            std::string trimmed = py_strip(rest, std::nullopt, false, true);
            rest = rest.substr(0, trimmed.size());
            if (rest.empty()) break;
            if (static_cast<int64_t>(parts.size()) == maxsplit) {
                parts.push_back(py_strip(rest, std::nullopt, true, false));
                break;
            }
            std::vector<size_t> offsets = code_point_offsets(rest);
            size_t k = offsets.size() - 1;
            while (k > 0) {
                size_t i = offsets[k - 1];
                if (is_python_space(decode_utf8(rest, i))) break;
                --k;
            }
            parts.emplace_back(rest.substr(offsets[k]));
            rest = rest.substr(0, offsets[k]);
        }
        std::reverse(parts.begin(), parts.end());
        return parts;
    }
    require_separator(*sep);
    size_t end = s.size();
    while (static_cast<int64_t>(parts.size()) < maxsplit) {
        if (end < sep->size()) break;
        size_t found = s.rfind(*sep, end - sep->size());
        if (found == std::string_view::npos) break;
        parts.emplace_back(s.substr(found + sep->size(), end - found - sep->size()));
        end = found;
    }
    parts.emplace_back(s.substr(0, end));
    std::reverse(parts.begin(), parts.end());
    return parts;
}

std::string py_replace(std::string_view s, std::string_view old, std::string_view replacement,
                       int64_t count) {
    std::string out;
    if (old.empty()) {
        // Python inserts the replacement between every code point and at both ends.
        std::vector<size_t> offsets = code_point_offsets(s);
        int64_t done = 0;
        for (size_t k = 0; k + 1 < offsets.size(); ++k) {
            if (count < 0 || done < count) {
                out += replacement;
                ++done;
            }
            out += s.substr(offsets[k], offsets[k + 1] - offsets[k]);
        }
        if (count < 0 || done < count) out += replacement;
        return out;
    }
    size_t start = 0;
    int64_t done = 0;
    while (count < 0 || done < count) {
        size_t found = s.find(old, start);
        if (found == std::string_view::npos) break;
        out += s.substr(start, found - start);
        out += replacement;
        start = found + old.size();
        ++done;
    }
    out += s.substr(start);
    return out;
}

int64_t py_count(std::string_view s, std::string_view needle) {
    if (needle.empty()) return static_cast<int64_t>(code_point_count(s)) + 1;
    int64_t count = 0;
    for (size_t at = s.find(needle); at != std::string_view::npos; at = s.find(needle, at + needle.size()))
        ++count;
    return count;
}

int64_t py_find(std::string_view s, std::string_view needle) {
    size_t at = s.find(needle);
    if (at == std::string_view::npos) return -1;
    return static_cast<int64_t>(code_point_count(s.substr(0, at)));
}

namespace {

uint32_t upper_of(uint32_t cp) {
    if (cp >= 'a' && cp <= 'z') return cp - 32;
    if (cp < 0x80) return cp;
    if (cp >= 0xE0 && cp <= 0xFE && cp != 0xF7) return cp - 32;
    if (cp >= 0x3B1 && cp <= 0x3C9 && cp != 0x3C2) return cp - 32;
    if (cp >= 0x430 && cp <= 0x44F) return cp - 32;
    if (cp >= 0x450 && cp <= 0x45F) return cp - 80;
    return cp;
}

uint32_t lower_of(uint32_t cp) {
    if (cp >= 'A' && cp <= 'Z') return cp + 32;
    if (cp < 0x80) return cp;
    if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 32;
    if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) return cp + 32;
    if (cp >= 0x410 && cp <= 0x42F) return cp + 32;
    if (cp >= 0x400 && cp <= 0x40F) return cp + 80;
    return cp;
}

bool is_cased(uint32_t cp) {
    return upper_of(cp) != cp || lower_of(cp) != cp;
}

template <typename Fn> std::string map_code_points(std::string_view s, Fn fn) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();)
        append_utf8(out, fn(decode_utf8(s, i)));
    return out;
}

} // namespace

std::string py_upper(std::string_view s) {
    return map_code_points(s, upper_of);
}
std::string py_lower(std::string_view s) {
    return map_code_points(s, lower_of);
}

std::string py_capitalize(std::string_view s) {
    bool first = true;
    return map_code_points(s, [&](uint32_t cp) {
        uint32_t mapped = first ? upper_of(cp) : lower_of(cp);
        first = false;
        return mapped;
    });
}

std::string py_title(std::string_view s) {
    bool previous_cased = false;
    return map_code_points(s, [&](uint32_t cp) {
        uint32_t mapped = previous_cased ? lower_of(cp) : upper_of(cp);
        previous_cased = is_cased(cp);
        return mapped;
    });
}

std::string jinja_title(std::string_view s) {
    bool word_start = true;
    return map_code_points(s, [&](uint32_t cp) {
        bool separator = is_python_space(cp) || cp == '-' || cp == '(' || cp == '{' || cp == '[' || cp == '<';
        uint32_t mapped = separator ? cp : word_start ? upper_of(cp) : lower_of(cp);
        word_start = separator;
        return mapped;
    });
}

} // namespace hearth::chat
