#pragma once
// Shared by the tokenizer tests: the peer test vectors in testdata/vocab and
// tokenizers loaded once per file.
#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/test_support.h"
#include <QStringList>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace hearth::test {

struct VocabCase {
    std::string text;
    std::vector<int32_t> ids;
};

// X.gguf.inp holds inputs, each followed by a line "__ggml_vocab_test__" (so an
// input is everything between "\n__ggml_vocab_test__\n" delimiters and may itself
// be empty or end in newlines); X.gguf.out holds one line of ids per input.
inline std::vector<VocabCase> read_vocab_cases(const std::string& gguf_path) {
    std::string inputs = read_file(gguf_path + ".inp");
    const std::string delimiter = "\n__ggml_vocab_test__\n";
    std::vector<VocabCase> cases;
    for (size_t at; (at = inputs.find(delimiter)) != std::string::npos;) {
        cases.push_back({inputs.substr(0, at), {}});
        inputs.erase(0, at + delimiter.size());
    }
    std::istringstream outputs(read_file(gguf_path + ".out"));
    std::string line;
    for (size_t i = 0; std::getline(outputs, line); ++i) {
        if (i >= cases.size()) throw std::runtime_error(gguf_path + ".out has more lines than inputs");
        std::istringstream numbers(line);
        for (int32_t id; numbers >> id;)
            cases[i].ids.push_back(id);
    }
    return cases;
}

inline std::vector<std::string> vocab_names() {
    return {"llama-spm", "phi-3", "gpt-2", "llama-bpe", "qwen2"};
}

inline std::string vocab_path(const std::string& name) {
    return testdata("vocab/ggml-vocab-" + name + ".gguf");
}

// Loading a 150k-token vocabulary takes a moment; each test process does it once per file.
inline const tokenizer::Tokenizer& cached_tokenizer(const std::string& path) {
    static std::map<std::string, std::unique_ptr<tokenizer::Tokenizer>> cache;
    auto& slot = cache[path];
    if (!slot) slot = tokenizer::Tokenizer::from_gguf(*gguf::GgufFile::open(path));
    return *slot;
}

// Token ids as the test files write them, for failure messages: "1 2 3".
inline QString ids_string(const std::vector<int32_t>& ids) {
    QStringList parts;
    for (const int32_t id : ids)
        parts << QString::number(id);
    return parts.join(' ');
}

} // namespace hearth::test
