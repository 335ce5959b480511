#include "engine/tokenizer/bpe_tokenizer.h"
#include "engine/tokenizer/byte_level.h"
#include "engine/tokenizer/pair_merging.h"
#include "engine/tokenizer/utf8.h"

namespace hearth::tokenizer {

BpeTokenizer::BpeTokenizer(Vocab vocab, const gguf::GgufFile& file, const PreTokenizerSpec& pre_tokenizer)
    : Tokenizer(std::move(vocab)), pre_tokenizer_(pre_tokenizer.patterns),
      byte_level_(pre_tokenizer.byte_level), ignore_merges_(pre_tokenizer.ignore_merges),
      whole_newline_runs_(pre_tokenizer.whole_newline_runs) {
    const gguf::Array* merges = file.get_array("tokenizer.ggml.merges");
    if (!merges) file.fail("no tokenizer.ggml.merges: a BPE vocabulary needs its merges");
    if (merges->element_type != gguf::ValueType::String)
        file.fail("tokenizer.ggml.merges holds " + std::string(gguf::value_type_name(merges->element_type)) +
                  ", expected strings");
    merges_.reserve(merges->items.size());
    std::string joined;
    for (size_t rank = 0; rank < merges->items.size(); ++rank) {
        const std::string& entry = std::get<std::string>(merges->items[rank].data);
        const auto bad = [&](const std::string& why) {
            file.fail("tokenizer.ggml.merges[" + std::to_string(rank) + "] '" + entry + "' " + why);
        };
        // The first part may itself be a space in non-byte-level vocabularies, hence the search from 1.
        const size_t space = entry.find(' ', 1);
        if (space == std::string::npos || space + 1 >= entry.size())
            bad("is not two tokens separated by a space");
        const std::string_view left_text = std::string_view(entry).substr(0, space);
        const std::string_view right_text = std::string_view(entry).substr(space + 1);
        const auto left = this->vocab().find(left_text);
        const auto right = this->vocab().find(right_text);
        if (!left) bad("names '" + std::string(left_text) + "', which is not a token");
        if (!right) bad("names '" + std::string(right_text) + "', which is not a token");
        joined.assign(left_text).append(right_text);
        const auto result = this->vocab().find(joined);
        if (!result) bad("makes a text that is not a token");
        merges_.insert(*left, *right, {static_cast<int32_t>(rank), *result});
    }
}

namespace {
constexpr std::string_view kEscapedSpace = "\xE2\x96\x81"; // U+2581, SentencePiece's space

std::string escape_spaces(std::string_view text) {
    std::string escaped;
    escaped.reserve(text.size() + text.size() / 4);
    for (const char c : text)
        if (c == ' ')
            escaped += kEscapedSpace;
        else
            escaped += c;
    return escaped;
}
} // namespace

void BpeTokenizer::encode_text(std::string_view text, bool /*after_special*/,
                               std::vector<int32_t>& out) const {
    if (!byte_level_) {
        const std::string escaped = escape_spaces(text);
        for (const std::string_view word : pre_tokenizer_.split(escaped))
            encode_word(word, out);
        return;
    }
    std::string word;
    for (const std::string_view raw_word : pre_tokenizer_.split(text)) {
        word.clear();
        byte_level::encode(raw_word, word);
        encode_word(word, out);
    }
}

void BpeTokenizer::encode_unknown(std::string_view piece, std::vector<int32_t>& out) const {
    if (!byte_level_) {
        static constexpr char kHex[] = "0123456789ABCDEF";
        for (const char c : piece) {
            const auto byte = static_cast<unsigned char>(c);
            const char name[] = {'<', '0', 'x', kHex[byte >> 4], kHex[byte & 15], '>'};
            if (const auto id = vocab().find(std::string_view(name, sizeof name))) out.push_back(*id);
        }
        return;
    }
    if (vocab().unk >= 0) out.push_back(vocab().unk); // a character missing from the byte alphabet's tokens
}

void BpeTokenizer::encode_word(std::string_view word, std::vector<int32_t>& out) const {
    const bool newline_run = whole_newline_runs_ && word.find_first_not_of('\n') == std::string_view::npos;
    if (ignore_merges_ || newline_run) {
        if (const auto id = vocab().find(word)) {
            out.push_back(*id);
            return;
        }
    }

    std::vector<MergeSymbol> symbols = character_symbols(
        word, [&](std::string_view character) { return vocab().find(character).value_or(-1); });
    // Lower ranks merge first: the rank, negated, is the priority (exact in a double).
    merge_pairs(symbols,
                [&](const std::vector<MergeSymbol>& s, int left, int right) -> std::optional<PairMerge> {
                    if (s[left].id < 0 || s[right].id < 0) return std::nullopt;
                    const MergeTable::Merge* merge = merges_.find(s[left].id, s[right].id);
                    if (merge == nullptr) return std::nullopt;
                    return PairMerge{-static_cast<double>(merge->rank), merge->result};
                });

    for (int i = symbols.empty() ? -1 : 0; i >= 0; i = symbols[i].next) {
        if (symbols[i].id >= 0)
            out.push_back(symbols[i].id);
        else
            encode_unknown(word.substr(symbols[i].start, symbols[i].length), out);
    }
}

std::string BpeTokenizer::normal_piece(const std::string& text) const {
    if (!byte_level_) { // U+2581 back to spaces
        std::string piece;
        for (size_t pos = 0; pos < text.size();) {
            if (text.compare(pos, kEscapedSpace.size(), kEscapedSpace) == 0) {
                piece += ' ';
                pos += kEscapedSpace.size();
            } else {
                piece += text[pos++];
            }
        }
        return piece;
    }
    std::string piece;
    piece.reserve(text.size());
    for (size_t pos = 0; pos < text.size();) {
        const utf8::Decoded d = utf8::decode(text, pos);
        if (d.kind != utf8::Decoded::Kind::Complete) { // not byte-level text: keep the byte as it is
            piece += text[pos++];
            continue;
        }
        if (const auto byte = byte_level::byte_of(d.code_point))
            piece += static_cast<char>(*byte);
        else
            piece.append(text, pos, d.length);
        pos += d.length;
    }
    return piece;
}

} // namespace hearth::tokenizer
