// Fuzz target: both tokenizers (SentencePiece and byte-level BPE with several pre-tokenizers)
// on arbitrary bytes, with and without special-token parsing, and decoding of arbitrary ids.
// The first byte picks the vocabulary (one of the test data's vocab files) and the flags.
#include "engine/error.h"
#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/fuzz/fuzz_support.h"
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace {

using namespace hearth;

const std::vector<std::unique_ptr<tokenizer::Tokenizer>>& tokenizers() {
    static const auto loaded = [] {
        std::vector<std::unique_ptr<tokenizer::Tokenizer>> all;
        for (const char* name : {"llama-spm", "phi-3", "gpt-2", "llama-bpe", "qwen2"}) {
            const auto file =
                gguf::GgufFile::open(fuzz::testdata_path("vocab/ggml-vocab-" + std::string(name) + ".gguf"));
            all.push_back(tokenizer::Tokenizer::from_gguf(*file));
        }
        return all;
    }();
    return loaded;
}

void check_ids(const tokenizer::Tokenizer& tok, const std::vector<int32_t>& ids) {
    for (const int32_t id : ids)
        if (id < 0 || id >= tok.n_vocab())
            fuzz::invariant_failed("token id " + std::to_string(id) + " out of range");
}

// Decodes a sequence every way the app does: whole, whole with specials, and streamed.
std::string decode_all_ways(const tokenizer::Tokenizer& tok, const std::vector<int32_t>& ids) {
    (void)tok.decode(ids, true);
    tokenizer::IncrementalDecoder stream(tok);
    for (const int32_t id : ids)
        (void)stream.push(id);
    (void)stream.flush();
    return tok.decode(ids);
}

} // namespace

// Loads the vocabularies once, before the first input: their load is not an input's time.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
    (void)tokenizers();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const auto& all = tokenizers();
    const uint8_t options = data[0];
    const tokenizer::Tokenizer& tok = *all[(options & 7) % all.size()];
    const bool parse_special = options & 8, add_bos = options & 16;
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

    const std::vector<int32_t> ids = tok.encode(text, add_bos, parse_special);
    check_ids(tok, ids);
    decode_all_ways(tok, ids);
    const std::vector<int32_t> other = tok.encode(text, !add_bos, !parse_special);
    check_ids(tok, other);
    decode_all_ways(tok, other);

    // The same bytes read as token ids (what a damaged saved state or a model could produce,
    // once range-checked).
    std::vector<int32_t> raw((size - 1) / 4);
    if (!raw.empty()) std::memcpy(raw.data(), data + 1, raw.size() * 4);
    for (int32_t& id : raw)
        id = static_cast<int32_t>(static_cast<uint32_t>(id) % static_cast<uint32_t>(tok.n_vocab()));
    decode_all_ways(tok, raw);
    return 0;
}
