#include "engine/grammar/gbnf_parser.h"
#include <functional>
#include <map>

namespace hearth::engine {

void CharSet::finish() {
    ascii = {};
    for (uint32_t c = 0; c < 128; ++c) {
        bool in = false;
        for (const CharRange& r : ranges)
            in = in || (c >= r.first && c <= r.last);
        if (in != negated) ascii[c >> 6] |= uint64_t{1} << (c & 63);
    }
}

bool CharSet::matches_some(uint32_t first, uint32_t last) const {
    for (const CharRange& r : ranges) {
        if (!negated && r.first <= last && r.last >= first) return true;
        if (negated && r.first <= first && r.last >= last) return false;
    }
    return negated;
}

namespace {

using Sequence = std::vector<GrammarElement>;
using Alternatives = std::vector<Sequence>;

constexpr uint32_t kMaxRepetition = 10000;

bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

class GbnfParser {
public:
    GbnfParser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

    Grammar parse() {
        skip_space(true);
        while (!at_end()) {
            const size_t at = pos_;
            const std::string name = parse_name();
            if (name.empty()) fail(at, "expected a rule name");
            skip_space(false);
            if (text_.substr(pos_, 3) != "::=")
                fail(pos_, "expected '::=' after the rule name '" + name + "'");
            pos_ += 3;
            skip_space(true);
            Alternatives alternatives = parse_alternatives(false);
            const uint32_t id = rule_id(name, at);
            if (defined_[id]) fail(at, "the rule '" + name + "' is defined twice");
            defined_[id] = true;
            definition_[id] = at;
            rules_[id] = std::move(alternatives);
            if (!at_end() && peek() != '\n' && peek() != '\r')
                fail(pos_, std::string("unexpected character '") + peek() + "'");
            skip_space(true);
        }
        for (uint32_t r = 0; r < rules_.size(); ++r)
            if (!defined_[r]) fail(first_use_[r], "the rule '" + names_[r] + "' is used but never defined");
        const auto root = ids_.find("root");
        if (root == ids_.end()) fail(text_.size(), "the grammar has no rule named 'root'");
        check_left_recursion();
        return flatten(root->second);
    }

private:
    [[noreturn]] void fail(size_t at, const std::string& why) const {
        size_t line = 1, column = 1;
        for (size_t i = 0; i < at && i < text_.size(); ++i) {
            if (text_[i] == '\n') {
                ++line;
                column = 1;
            } else if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) {
                ++column;
            }
        }
        throw GrammarError(source_ + ": line " + std::to_string(line) + ", column " + std::to_string(column) +
                           ": " + why);
    }

    bool at_end() const { return pos_ >= text_.size(); }
    char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }

    void skip_space(bool newlines) {
        while (!at_end()) {
            const char c = peek();
            if (c == ' ' || c == '\t') {
                ++pos_;
            } else if (c == '#') {
                while (!at_end() && peek() != '\n')
                    ++pos_;
            } else if (newlines && (c == '\n' || c == '\r')) {
                ++pos_;
            } else {
                break;
            }
        }
    }

    std::string parse_name() {
        const size_t start = pos_;
        while (!at_end() && is_name_char(peek()))
            ++pos_;
        return std::string(text_.substr(start, pos_ - start));
    }

    uint32_t rule_id(const std::string& name, size_t at) {
        const auto [it, added] = ids_.try_emplace(name, static_cast<uint32_t>(rules_.size()));
        if (added) {
            rules_.emplace_back();
            names_.push_back(name);
            defined_.push_back(false);
            first_use_.push_back(at);
            definition_.push_back(at);
        }
        return it->second;
    }

    // A rule for a group or a repetition, named after the rule it is part of.
    uint32_t new_rule(Alternatives alternatives, size_t at) {
        const uint32_t id = static_cast<uint32_t>(rules_.size());
        rules_.push_back(std::move(alternatives));
        names_.push_back("(part " + std::to_string(id) + ")");
        defined_.push_back(true);
        first_use_.push_back(at);
        definition_.push_back(at);
        return id;
    }

    GrammarElement add_set(CharSet set) {
        set.finish();
        sets_.push_back(std::move(set));
        return {GrammarElement::Kind::Chars, static_cast<uint32_t>(sets_.size() - 1)};
    }

    uint32_t parse_hex(size_t digits) {
        uint32_t value = 0;
        for (size_t i = 0; i < digits; ++i) {
            const char c = peek();
            uint32_t d = 0;
            if (c >= '0' && c <= '9') {
                d = static_cast<uint32_t>(c - '0');
            } else if (c >= 'a' && c <= 'f') {
                d = static_cast<uint32_t>(c - 'a' + 10);
            } else if (c >= 'A' && c <= 'F') {
                d = static_cast<uint32_t>(c - 'A' + 10);
            } else {
                fail(pos_, "expected " + std::to_string(digits) + " hexadecimal digits");
            }
            value = value * 16 + d;
            ++pos_;
        }
        if (value > 0x10FFFF) fail(pos_, "a code point beyond U+10FFFF");
        return value;
    }

    // One character of a literal or a class: an escape or one UTF-8 encoded code point.
    uint32_t parse_char() {
        const size_t at = pos_;
        const auto byte = static_cast<unsigned char>(peek());
        if (byte == '\\') {
            ++pos_;
            const char e = peek();
            ++pos_;
            switch (e) {
            case 'n':
                return '\n';
            case 'r':
                return '\r';
            case 't':
                return '\t';
            case '\\':
            case '"':
            case '[':
            case ']':
            case '-':
            case '/':
            case '^':
                return static_cast<uint32_t>(e);
            case 'x':
                return parse_hex(2);
            case 'u':
                return parse_hex(4);
            case 'U':
                return parse_hex(8);
            default:
                fail(at, std::string("unknown escape '\\") + e + "'");
            }
        }
        int length = byte < 0x80         ? 1
                     : (byte >> 5) == 6  ? 2
                     : (byte >> 4) == 14 ? 3
                     : (byte >> 3) == 30 ? 4
                                         : 0;
        if (length == 0 || pos_ + static_cast<size_t>(length) > text_.size()) fail(at, "invalid UTF-8");
        uint32_t value = length == 1 ? byte : byte & (0x7F >> length);
        for (int i = 1; i < length; ++i) {
            const auto next = static_cast<unsigned char>(text_[pos_ + static_cast<size_t>(i)]);
            if ((next & 0xC0) != 0x80) fail(at, "invalid UTF-8");
            value = (value << 6) | (next & 0x3F);
        }
        pos_ += static_cast<size_t>(length);
        return value;
    }

    Alternatives parse_alternatives(bool nested) {
        Alternatives alternatives;
        alternatives.push_back(parse_sequence(nested));
        while (true) {
            if (peek() == '|') {
                ++pos_;
                skip_space(true);
                alternatives.push_back(parse_sequence(nested));
                continue;
            }
            // A next line that begins with "|" goes on with this rule.
            if (!nested && (peek() == '\n' || peek() == '\r')) {
                const size_t saved = pos_;
                skip_space(true);
                if (peek() == '|') continue;
                pos_ = saved;
            }
            return alternatives;
        }
    }

    void repeat(Sequence& sequence, size_t start, uint32_t min, uint32_t max, bool unbounded, size_t at) {
        if (start > sequence.size() || start == sequence.size()) fail(at, "nothing to repeat");
        Sequence item(sequence.begin() + static_cast<std::ptrdiff_t>(start), sequence.end());
        sequence.resize(start);
        const GrammarElement x =
            item.size() == 1 ? item[0] : GrammarElement{GrammarElement::Kind::Rule, new_rule({item}, at)};
        for (uint32_t i = 0; i < min; ++i)
            sequence.push_back(x);
        if (unbounded) {
            // r ::= x r | (nothing)
            const uint32_t r = new_rule({}, at);
            rules_[r] = {{x, {GrammarElement::Kind::Rule, r}}, {}};
            sequence.push_back({GrammarElement::Kind::Rule, r});
            return;
        }
        // Up to max - min more: r1 ::= x | (nothing); rk ::= x r(k-1) | (nothing).
        uint32_t previous = 0;
        for (uint32_t k = 1; k <= max - min; ++k) {
            Sequence once{x};
            if (k > 1) once.push_back({GrammarElement::Kind::Rule, previous});
            previous = new_rule({once, {}}, at);
        }
        if (max > min) sequence.push_back({GrammarElement::Kind::Rule, previous});
    }

    uint32_t parse_count() {
        const size_t at = pos_;
        uint64_t value = 0;
        if (peek() < '0' || peek() > '9') fail(at, "expected a number");
        while (peek() >= '0' && peek() <= '9') {
            value = value * 10 + static_cast<uint64_t>(peek() - '0');
            if (value > kMaxRepetition)
                fail(at, "a repetition count above " + std::to_string(kMaxRepetition));
            ++pos_;
        }
        return static_cast<uint32_t>(value);
    }

    Sequence parse_sequence(bool nested) {
        Sequence sequence;
        size_t last = std::string_view::npos; // where the last item began, for a postfix
        while (!at_end()) {
            const size_t at = pos_;
            const char c = peek();
            if (c == '"') {
                ++pos_;
                last = sequence.size();
                while (peek() != '"') {
                    if (at_end() || peek() == '\n') fail(at, "a literal without its closing '\"'");
                    const uint32_t cp = parse_char();
                    sequence.push_back(add_set(CharSet{{{cp, cp}}, false, {}}));
                }
                ++pos_;
            } else if (c == '[') {
                ++pos_;
                CharSet set;
                if (peek() == '^') {
                    set.negated = true;
                    ++pos_;
                }
                while (peek() != ']') {
                    if (at_end() || peek() == '\n') fail(at, "a character class without its closing ']'");
                    const size_t from = pos_;
                    const uint32_t first = parse_char();
                    uint32_t last_char = first;
                    if (peek() == '-' && peek(1) != ']' && pos_ + 1 < text_.size()) {
                        ++pos_;
                        last_char = parse_char();
                        if (last_char < first) fail(from, "a character range out of order");
                    }
                    set.ranges.push_back({first, last_char});
                }
                ++pos_;
                last = sequence.size();
                sequence.push_back(add_set(std::move(set)));
            } else if (c == '.') {
                ++pos_;
                last = sequence.size();
                sequence.push_back(add_set(CharSet{{}, true, {}}));
            } else if (is_name_char(c)) {
                const std::string name = parse_name();
                last = sequence.size();
                sequence.push_back({GrammarElement::Kind::Rule, rule_id(name, at)});
            } else if (c == '(') {
                ++pos_;
                skip_space(true);
                Alternatives group = parse_alternatives(true);
                if (peek() != ')') fail(pos_, "expected ')'");
                ++pos_;
                last = sequence.size();
                sequence.push_back({GrammarElement::Kind::Rule, new_rule(std::move(group), at)});
            } else if (c == '*' || c == '+' || c == '?') {
                ++pos_;
                repeat(sequence, last, c == '+' ? 1 : 0, 1, c != '?', at);
                last = std::string_view::npos;
            } else if (c == '{') {
                ++pos_;
                skip_space(false);
                const uint32_t min = parse_count();
                skip_space(false);
                uint32_t max = min;
                bool unbounded = false;
                if (peek() == ',') {
                    ++pos_;
                    skip_space(false);
                    if (peek() == '}') {
                        unbounded = true;
                    } else {
                        max = parse_count();
                        if (max < min) fail(at, "a repetition whose maximum is below its minimum");
                    }
                    skip_space(false);
                }
                if (peek() != '}') fail(pos_, "expected '}'");
                ++pos_;
                repeat(sequence, last, min, max, unbounded, at);
                last = std::string_view::npos;
            } else {
                break;
            }
            skip_space(nested);
        }
        return sequence;
    }

    void check_left_recursion() const {
        const size_t n = rules_.size();
        std::vector<bool> nullable(n, false);
        for (bool changed = true; changed;) {
            changed = false;
            for (size_t r = 0; r < n; ++r) {
                if (nullable[r]) continue;
                for (const Sequence& alternative : rules_[r]) {
                    bool all = true;
                    for (const GrammarElement& e : alternative)
                        all = all && e.kind == GrammarElement::Kind::Rule && nullable[e.index];
                    if (all) {
                        nullable[r] = true;
                        changed = true;
                        break;
                    }
                }
            }
        }
        // The rules a rule can begin with, before it has matched a character.
        std::vector<std::vector<uint32_t>> leftmost(n);
        for (size_t r = 0; r < n; ++r)
            for (const Sequence& alternative : rules_[r])
                for (const GrammarElement& e : alternative) {
                    if (e.kind != GrammarElement::Kind::Rule) break;
                    leftmost[r].push_back(e.index);
                    if (!nullable[e.index]) break;
                }
        std::vector<uint8_t> colour(n, 0); // 0 unseen, 1 on the path, 2 done
        std::vector<uint32_t> path;
        const std::function<void(uint32_t)> visit = [&](uint32_t r) {
            colour[r] = 1;
            path.push_back(r);
            for (const uint32_t next : leftmost[r]) {
                if (colour[next] == 1) {
                    // Name the first rule on the cycle the user wrote.
                    size_t at = definition_[next];
                    std::string name = names_[next];
                    for (size_t i = path.size(); i-- > 0;) {
                        if (names_[path[i]].front() != '(') {
                            name = names_[path[i]];
                            at = definition_[path[i]];
                            break;
                        }
                        if (path[i] == next) break;
                    }
                    fail(at, "the rule '" + name +
                                 "' is left-recursive (it can reach itself before any character)");
                }
                if (colour[next] == 0) visit(next);
            }
            path.pop_back();
            colour[r] = 2;
        };
        for (uint32_t r = 0; r < n; ++r)
            if (colour[r] == 0) visit(r);
    }

    Grammar flatten(uint32_t root) {
        Grammar grammar;
        grammar.root = root;
        grammar.rule_names = names_;
        grammar.char_sets = std::move(sets_);
        grammar.alternatives.resize(rules_.size());
        for (size_t r = 0; r < rules_.size(); ++r)
            for (const Sequence& alternative : rules_[r]) {
                grammar.alternatives[r].push_back(static_cast<uint32_t>(grammar.code.size()));
                grammar.code.insert(grammar.code.end(), alternative.begin(), alternative.end());
                grammar.code.push_back({GrammarElement::Kind::End, 0});
            }
        return grammar;
    }

    std::string_view text_;
    std::string source_;
    size_t pos_ = 0;
    std::vector<Alternatives> rules_;
    std::vector<std::string> names_;
    std::vector<bool> defined_;
    std::vector<size_t> first_use_;
    std::vector<size_t> definition_;
    std::map<std::string, uint32_t, std::less<>> ids_;
    std::vector<CharSet> sets_;
};

} // namespace

Grammar parse_gbnf(std::string_view text, std::string_view source) {
    return GbnfParser(text, source).parse();
}

} // namespace hearth::engine
