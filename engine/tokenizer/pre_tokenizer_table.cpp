#include "engine/tokenizer/pre_tokenizer_table.h"

namespace hearth::tokenizer {

namespace {

// "(?i:'s|'t|...)" spelled out with character classes: a caseless match would
// also take U+017F (long s) for "s", which the reference tokenizers do not.
const std::string kContraction = R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD]))re";
// Letters that may start a capitalized word, and those that continue one (Tekken, GPT-4o).
const std::string kUpper = R"re([\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}])re";
const std::string kLower = R"re([\p{Ll}\p{Lm}\p{Lo}\p{M}])re";
// The same without Han characters, which Kimi K2 keeps in words of their own.
const std::string kUpperNotHan = R"re((?:(?!\p{Han})[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]))re";
const std::string kLowerNotHan = R"re((?:(?!\p{Han})[\p{Ll}\p{Lm}\p{Lo}\p{M}]))re";
// The whitespace alternatives most modern expressions end with.
const std::string kWhitespaceTail = R"re(|\s*[\r\n]+|\s+(?!\S)|\s+)re";

// GPT-2's expression. llama.cpp's ends at "\s+(?!\S)"; the "|\s+" here only
// names the single whitespace before a non-space that neither takes, which the
// splitter would keep as a piece of its own anyway.
const std::string kGpt2 = R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)re";

const std::string kLlama3 =
    kContraction + R"re(|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*)re" + kWhitespaceTail;
const std::string kQwen2 =
    kContraction + R"re(|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*)re" + kWhitespaceTail;
const std::string kGpt4o = R"re([^\r\n\p{L}\p{N}]?)re" + kUpper + "*" + kLower + "+" + kContraction +
                           R"re(?|[^\r\n\p{L}\p{N}]?)re" + kUpper + "+" + kLower + "*" + kContraction +
                           R"re(?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*)re" + kWhitespaceTail;

// Letters of the cased scripts, as DeepSeek LLM's tokenizer lists them (not all
// of \p{L&}: lowercase Armenian and Georgian, for one, are left out).
const std::string kDeepSeekLetters =
    R"re([A-Za-z\x{B5}\x{C0}-\x{D6}\x{D8}-\x{F6}\x{F8}-\x{1BA}\x{1BC}-\x{1BF}\x{1C4}-\x{293}\x{295}-\x{2AF})re"
    R"re(\x{370}-\x{373}\x{376}\x{377}\x{37B}-\x{37D}\x{37F}\x{386}\x{388}-\x{38A}\x{38C}\x{38E}-\x{3A1})re"
    R"re(\x{3A3}-\x{3F5}\x{3F7}-\x{481}\x{48A}-\x{52F}\x{531}-\x{556}\x{10A0}-\x{10C5}\x{13A0}-\x{13F5})re"
    R"re(\x{13F8}-\x{13FD}\x{1C90}-\x{1CBA}\x{1CBD}-\x{1CBF}\x{1D00}-\x{1D2B}\x{1D6B}-\x{1D77}\x{1D79}-\x{1D9A})re"
    R"re(\x{1E00}-\x{1F15}\x{1F18}-\x{1F1D}\x{1F20}-\x{1F45}\x{1F48}-\x{1F4D}\x{1F50}-\x{1F57}\x{1F59}\x{1F5B})re"
    R"re(\x{1F5D}\x{1F5F}-\x{1F7D}\x{1F80}-\x{1FB4}\x{1FB6}-\x{1FBC}\x{1FBE}\x{1FC2}-\x{1FC4}\x{1FC6}-\x{1FCC})re"
    R"re(\x{1FD0}-\x{1FD3}\x{1FD6}-\x{1FDB}\x{1FE0}-\x{1FEC}\x{1FF2}-\x{1FF4}\x{1FF6}-\x{1FFC}\x{2102}\x{2107})re"
    R"re(\x{210A}-\x{2113}\x{2115}\x{2119}-\x{211D}\x{2124}\x{2126}\x{2128}\x{212A}-\x{212D}\x{212F}-\x{2134})re"
    R"re(\x{2139}\x{213C}-\x{213F}\x{2145}-\x{2149}\x{214E}\x{2183}\x{2184}\x{2C00}-\x{2C7B}\x{2C7E}-\x{2CE4})re"
    R"re(\x{2CEB}-\x{2CEE}\x{2CF2}\x{2CF3}\x{A640}-\x{A66D}\x{A680}-\x{A69B}\x{A722}-\x{A76F}\x{A771}-\x{A787})re"
    R"re(\x{A78B}-\x{A78E}\x{AB70}-\x{ABBF}\x{FB00}-\x{FB06}\x{FB13}-\x{FB17}\x{FF21}-\x{FF3A}\x{FF41}-\x{FF5A})re"
    R"re(\x{10400}-\x{1044F}\x{104B0}-\x{104D3}\x{104D8}-\x{104FB}\x{10C80}-\x{10CB2}\x{10CC0}-\x{10CF2})re"
    R"re(\x{118A0}-\x{118DF}\x{1E900}-\x{1E943}])re";
// CJK ideographs (to U+9FA5), plus everything from U+0800 up to them and Hangul (DeepSeek LLM and Coder).
const std::string kDeepSeekCjk = R"re([\x{4E00}-\x{9FA5}\x{0800}-\x{4E00}\x{AC00}-\x{D7FF}]+)re";
// CJK ideographs (to U+9FA5), Hiragana and Katakana.
const std::string kCjkKana = R"re([\x{4E00}-\x{9FA5}\x{3040}-\x{309F}\x{30A0}-\x{30FF}]+)re";
// DeepSeek V3's words: ASCII punctuation before Latin letters, letters with marks, punctuation and symbols.
const std::string kDeepSeek3Words =
    R"re([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+)re";

// BLOOM / GPT-3 Finnish: runs of anything but whitespace and sentence punctuation (the
// parentheses and bar are inside the class, as in the model's own expression).
const std::string kBloom = R"re( ?[^(\s|.,!?\x{2026}\x{3002}\x{FF0C}\x{3001}\x{0964}\x{06D4}\x{060C})]+)re";

std::vector<RegexSet> make_regex_sets() {
    return {
        // llama.cpp's choice for a file that names no pre-tokenizer.
        {"default", {R"re([\p{P}\$\+<=>\^~\|]+)re", kGpt2, R"re(\p{N}+)re", R"re([0-9][0-9][0-9])re"}},
        {"gpt2", {kGpt2}},
        // Llama 3: case-insensitive contractions, digits in groups of up to three.
        {"llama3", {kLlama3}},
        // Llama 3's with whitespace runs cut into powers of two.
        {"jais2",
         {kContraction +
          R"re(|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+)re"
          R"re(|\s{512}(?!\S)|\s{256}(?!\S)|\s{128}(?!\S)|\s{64}(?!\S)|\s{32}(?!\S)|\s{16}(?!\S))re"
          R"re(|\s{8}(?!\S)|\s{4}(?!\S)|\s{1,2}(?!\S)|\s{1})re"}},
        // Qwen2: as Llama 3 but single digits.
        {"qwen2", {kQwen2}},
        // Qwen 3.5: combining marks stay with their letters.
        {"qwen35",
         {kContraction + R"re(|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*)re" +
          kWhitespaceTail}},
        {"deepseek-llm",
         {R"re([\r\n])re", R"re(\s?)re" + kDeepSeekLetters + "+",
          R"re(\s?[!-/:-~\x{FF01}-\x{FF0F}\x{FF1A}-\x{FF5E}\x{2018}-\x{201F}\x{3000}-\x{3002}]+)re",
          R"re(\s+\z)re", kDeepSeekCjk, R"re(\p{N}+)re"}},
        {"deepseek-coder",
         {R"re([\r\n])re", R"re(\s?\p{L}+)re", R"re(\s?\p{P}+)re", kDeepSeekCjk, R"re(\p{N})re"}},
        {"deepseek3",
         {R"re(\p{N}{1,3})re", kCjkKana,
          kDeepSeek3Words + R"re(| ?[\p{P}\p{S}]+[\r\n]*)re" + kWhitespaceTail}},
        // DeepSeek V3's without the newlines after punctuation, then single digits.
        {"spark2_5",
         {R"re(\p{N}{1,3})re", kCjkKana, kDeepSeek3Words + R"re(| ?[\p{P}\p{S}]+|[\r\n]|\s+(?!\S)|\s+)re",
          R"re(\p{N})re"}},
        // Hangul, CJK punctuation, Bopomofo and ideographs first; then Tekken's words with contractions.
        {"youtu",
         {R"re([\x{AC00}-\x{D7A3}\x{3131}-\x{318E}]+)re"
          R"re(|[\x{FF01}\x{2026}\x{201C}\x{201D}\x{2018}\x{2019}\x{2014}\x{FF1A}\x{FF1B}\x{FF0C}\x{3001}-\x{303F}\x{FE30}-\x{FE4F}]+)re"
          R"re(|[\x{3105}-\x{312F}]+|)re" +
              kCjkKana,
          R"re([^\r\n\p{L}\p{N}]?)re" + kUpper + "*" + kLower + "+" + kContraction +
              R"re(?|[^\r\n\p{L}\p{N}]?)re" + kUpper + "+" + kLower + "*" + kContraction +
              R"re(?|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*)re" + kWhitespaceTail}},
        // Falcon: punctuation runs (with the backtick) first, then GPT-2's, then three-digit groups.
        {"falcon", {R"re([\p{P}\$\+<=>\^~\|`]+)re", kGpt2, R"re([0-9][0-9][0-9])re"}},
        // StarCoder and kin: GPT-2's after every digit is cut out alone.
        {"starcoder", {R"re(\p{N})re", kGpt2}},
        {"bloom", {kBloom}},
        {"viking", {kBloom, R"re(\p{N})re"}},
        // Tekken (Mistral): capitalized words split from the letters around them.
        {"tekken",
         {R"re([^\r\n\p{L}\p{N}]?)re" + kUpper + "*" + kLower + "+" + R"re(|[^\r\n\p{L}\p{N}]?)re" + kUpper +
          "+" + kLower + "*" + R"re(|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*)re" + kWhitespaceTail}},
        // Chameleon: its sentinel and image tokens, indentation, digits and punctuation alone, then GPT-2's.
        {"chameleon",
         {R"re(<sentinel:[0-9]+>)re", R"re((IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z)re", R"re(([\t\n]|    |  ))re",
          R"re(\p{N})re", R"re([\p{P}!-/:-@\[-`{-~])re", kGpt2}},
        // GPT-4o (o200k): Tekken's words with contractions, digits in threes.
        {"gpt4o", {kGpt4o}},
        // Tiny Aya: numbers grouped in thousands from the right where a word boundary ends
        // them, then GPT-4o's. llama.cpp runs custom code for the first expression that
        // groups every run of digits so, word boundary or not.
        {"tiny_aya", {R"re(\d{1,3}(?=(?:\d{3})*\b))re", kGpt4o}},
        // Kimi K2: Han runs alone, then GPT-4o's words without Han. llama.cpp runs custom
        // code for it; PCRE2 can say "not Han" with a lookahead.
        {"kimi-k2",
         {R"re(\p{Han}+|[^\r\n\p{L}\p{N}]?)re" + kUpperNotHan + "*" + kLowerNotHan + "+" + kContraction +
          R"re(?|[^\r\n\p{L}\p{N}]?)re" + kUpperNotHan + "+" + kLowerNotHan + "*" + kContraction +
          R"re(?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*)re" + kWhitespaceTail}},
        // SuperBPE: number runs, then cut before every group of three digits that ends one
        // (an empty match marks where to cut).
        {"superbpe", {R"re(\p{N}+)re", R"re((?=(\d{3})+(?!\d)))re"}},
        // Ling / Bailing MoE: Qwen2's, with a single newline after whitespace. The model's own
        // expression has possessive quantifiers that cannot change what these classes match.
        {"bailingmoe",
         {R"re('(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N})re"
          R"re(| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+)re"}},
        // Seed-Coder: single digits; punctuation runs stop at newlines.
        {"seed-coder",
         {kContraction + R"re(|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+)re" +
          kWhitespaceTail}},
        // Qwen2's without contractions, so Turkish apostrophe suffixes stay attached.
        {"ufakzeka", {R"re([^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*)re" + kWhitespaceTail}},
        // AFMoE: digit runs as 1-2 leading digits then threes (custom code in llama.cpp,
        // one lookahead here), Asian scripts, then DeepSeek V3's words. The script class is
        // the Unicode blocks llama.cpp's comment names (its literal starts two of them late).
        {"afmoe",
         {R"re(\p{N}{1,3}(?=(?:\p{N}{3})*(?!\p{N})))re",
          R"re([\x{4E00}-\x{9FFF}\x{3400}-\x{4DBF}\x{F900}-\x{FAFF}\x{3040}-\x{309F}\x{30A0}-\x{30FF})re"
          R"re(\x{FF65}-\x{FF9F}\x{2F00}-\x{2FDF}\x{0E00}-\x{0E7F}\x{0E80}-\x{0EFF}\x{1780}-\x{17FF})re"
          R"re(\x{1000}-\x{109F}\x{AA60}-\x{AA7F}\x{A9E0}-\x{A9FF}\x{AC00}-\x{D7AF}\x{1100}-\x{11FF}]+)re",
          kDeepSeek3Words + R"re(| ?[\p{P}\p{S}]+[\r\n]*)re" + kWhitespaceTail}},
        // Laguna: lines and newline runs apart, then Qwen2's.
        {"laguna", {R"re([^\n]+|[\n]+)re", kQwen2}},
        // EXAONE MoE: letters with their marks, and words joined by single spaces, stay together.
        {"exaone-moe",
         {kContraction + R"re(|[^\r\n\p{L}\p{N}]?(?:\p{L}\p{M}*(?: \p{L}\p{M}*)*)+|\p{N})re"
                         R"re(| ?[^\s\p{L}\p{N}]+[\r\n/]?|\s*[\r\n]|\s+(?!\S)|\s+)re"}},
        // MiniCPM 5: digits in threes, then Llama 3's with whole number runs.
        {"minicpm5",
         {R"re(\p{N}{1,3})re", kContraction +
                                   R"re(|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}+| ?[^\s\p{L}\p{N}]+[\r\n]*)re" +
                                   kWhitespaceTail}},
        // SentencePiece-style BPE (Gemma 4, Sarvam): no word splitting, only lines apart.
        {"spm-bpe", {R"re([^\n]+|[\n]+)re"}, /*byte_level=*/false},
    };
}

// llama.cpp's names, in its order. Not here: "whitespace" (an embedding model's
// tokenizer that drops all whitespace, with its own tokenizer.ggml.model).
std::vector<PreTokenizerName> make_names() {
    const bool im = true;  // ignore_merges
    const bool bos = true; // add_bos
    return {
        {"default", "default"},
        {"minicpm5", "minicpm5", im},
        {"llama3", "llama3", im, bos},
        {"llama-v3", "llama3", im, bos},
        {"llama-bpe", "llama3", im, bos},
        {"falcon3", "llama3", im, bos},
        {"falcon-h1", "llama3", im, bos},
        {"pixtral", "llama3", im, bos},
        {"midm-2.0", "llama3", im, bos},
        {"lfm2", "llama3", im, bos},
        {"jina-v5-nano", "llama3", im, bos},
        {"deepseek-llm", "deepseek-llm"},
        {"deepseek-coder", "deepseek-coder"},
        {"deepseek-v3", "deepseek3"},
        {"spark2_5", "spark2_5"},
        {"youtu", "youtu", im},
        {"falcon", "falcon"},
        {"mpt", "gpt2"},
        {"starcoder", "starcoder"},
        {"gpt-2", "gpt2"},
        {"phi-2", "gpt2"},
        {"jina-es", "gpt2"},
        {"jina-de", "gpt2"},
        {"gigachat", "gpt2"},
        {"jina-v2-es", "gpt2"},
        {"jina-v2-de", "gpt2"},
        {"a.x-4.0", "gpt2"},
        {"mellum", "gpt2"},
        {"modern-bert", "gpt2"},
        {"jais-2", "jais2"},
        {"gemma4", "spm-bpe", false, false, /*whole_newline_runs=*/true, /*always_add_bos=*/true},
        {"granite-embed-multi-311m", "spm-bpe", false, false, /*whole_newline_runs=*/true,
         /*always_add_bos=*/true},
        {"sarvam-moe", "spm-bpe"},
        {"jina-v1-en", "gpt2"},
        {"jina-v2-code", "gpt2"},
        {"roberta-bpe", "gpt2"},
        {"refact", "starcoder"},
        {"command-r", "starcoder"},
        {"qwen2", "qwen2"},
        {"deepseek-r1-qwen", "qwen2"},
        {"kormo", "qwen2"},
        {"f2llmv2", "qwen2"},
        {"qwen35", "qwen35"},
        {"stablelm2", "qwen2"},
        {"olmo", "gpt2"},
        {"dbrx", "llama3"},
        {"smaug-bpe", "llama3"},
        {"poro-chat", "bloom"},
        {"glm4", "llama3"},
        {"chatglm-bpe", "llama3"},
        {"viking", "viking"},
        {"jais", "gpt2"},
        {"tekken", "tekken", im, bos},
        {"smollm", "starcoder"},
        {"codeshell", "starcoder"},
        {"bloom", "bloom"},
        {"gpt3-finnish", "bloom"},
        {"exaone", "starcoder"},
        {"exaone4", "gpt2"},
        {"exaone-moe", "exaone-moe"},
        {"chameleon", "chameleon", false, bos},
        {"minerva-7b", "starcoder"},
        {"megrez", "qwen2"},
        {"gpt-4o", "gpt4o"},
        {"llama4", "gpt4o"},
        {"kanana2", "gpt4o"},
        {"talkie", "gpt4o"},
        // llama.cpp gives it GPT-4o's lookaheads with \p{M} added back; the expression
        // here already keeps combining marks with their letters.
        {"granite-embed-multi-97m", "gpt4o", im},
        {"tiny_aya", "tiny_aya"},
        {"cohere2moe", "tiny_aya"},
        {"superbpe", "superbpe"},
        {"trillion", "gpt2"},
        {"granite-docling", "gpt2"},
        {"bailingmoe", "bailingmoe"},
        {"bailingmoe2", "bailingmoe"},
        {"llada-moe", "bailingmoe"},
        {"seed-coder", "seed-coder"},
        {"hunyuan", "qwen2"},
        {"hunyuan-dense", "deepseek3"},
        {"hy_v4", "deepseek3"},
        {"joyai-llm", "deepseek3"},
        {"kimi-k2", "kimi-k2"},
        {"ufakzeka", "ufakzeka"},
        {"grok-2", "qwen2"},
        {"afmoe", "afmoe"},
        {"laguna", "laguna"},
        {"minimax-m2", "gpt4o"},
        {"solar-open", "qwen2"},
        {"mellum2", "starcoder"},
    };
}

} // namespace

std::span<const RegexSet> regex_sets() {
    static const std::vector<RegexSet> sets = make_regex_sets();
    return sets;
}

std::span<const PreTokenizerName> pre_tokenizer_names() {
    static const std::vector<PreTokenizerName> names = make_names();
    return names;
}

const RegexSet* find_regex_set(std::string_view name) {
    for (const RegexSet& set : regex_sets())
        if (set.name == name) return &set;
    return nullptr;
}

std::optional<PreTokenizerSpec> find_pre_tokenizer(std::string_view name) {
    for (const PreTokenizerName& entry : pre_tokenizer_names()) {
        if (entry.name != name) continue;
        const RegexSet* set = find_regex_set(entry.regex_set);
        if (!set) return std::nullopt; // a table error; the table test catches it
        return PreTokenizerSpec{std::string(set->name), set->patterns, set->byte_level,
                                entry.ignore_merges,    entry.add_bos, entry.whole_newline_runs,
                                entry.always_add_bos};
    }
    return std::nullopt;
}

PreTokenizerChoice choose_pre_tokenizer(std::optional<std::string_view> declared) {
    if (declared && !declared->empty()) {
        if (auto known = find_pre_tokenizer(*declared)) return {std::move(*known), {}};
    }
    PreTokenizerChoice choice{*find_pre_tokenizer("default"), {}};
    if (!declared || declared->empty())
        choice.warning = "the file names no pre-tokenizer (tokenizer.ggml.pre); text is split with "
                         "llama.cpp's default expressions, which may differ from the model's own";
    else
        choice.warning = "unknown pre-tokenizer '" + std::string(*declared) +
                         "'; text is split with llama.cpp's default expressions, which may differ "
                         "from the model's own";
    return choice;
}

} // namespace hearth::tokenizer
