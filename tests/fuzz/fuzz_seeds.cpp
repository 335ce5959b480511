// Writes the fuzz targets' seed corpora from ../shared/testdata (and a few inputs built here):
//   fuzz_seeds OUT_DIR   ->  OUT_DIR/<target>/...
// Generated at run time so that no large binary is committed; tests/fuzz/run.sh calls it.
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/session/kv_state_file.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/kv_state_fuzz_shape.h"
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

using namespace hearth;
namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fuzz::invariant_failed("cannot read " + path.string());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class SeedDir {
public:
    SeedDir(const fs::path& root, const std::string& target) : dir_(root / target) {
        fs::create_directories(dir_);
    }
    void write(const std::string& name, const std::string& bytes) {
        std::ofstream(dir_ / name, std::ios::binary) << bytes;
        ++count_;
    }
    size_t count() const { return count_; }

private:
    fs::path dir_;
    size_t count_ = 0;
};

// A small file holding every metadata value type, nested arrays and tensors of several block
// types: what the reader parses, without a real model's bulk.
std::string metadata_zoo(const fs::path& scratch) {
    using gguf::Value, gguf::ValueType;
    gguf::GgufWriter w;
    w.set("general.architecture", {ValueType::String, std::string("llama")});
    w.set("zoo.u8", {ValueType::UInt8, uint64_t{200}});
    w.set("zoo.i8", {ValueType::Int8, int64_t{-100}});
    w.set("zoo.u16", {ValueType::UInt16, uint64_t{60000}});
    w.set("zoo.i16", {ValueType::Int16, int64_t{-30000}});
    w.set("zoo.u32", {ValueType::UInt32, uint64_t{4000000000u}});
    w.set("zoo.i32", {ValueType::Int32, int64_t{-2000000000}});
    w.set("zoo.u64", {ValueType::UInt64, uint64_t{1} << 63});
    w.set("zoo.i64", {ValueType::Int64, int64_t{-(int64_t{1} << 62)}});
    w.set("zoo.f32", {ValueType::Float32, 1.5});
    w.set("zoo.f64", {ValueType::Float64, -2.25});
    w.set("zoo.bool", {ValueType::Bool, true});
    gguf::Array strings{ValueType::String, {}};
    for (const char* s : {"a", "<s>", "\xe2\x96\x81hi"})
        strings.items.push_back({ValueType::String, std::string(s)});
    w.set("zoo.strings", {ValueType::Array, strings});
    gguf::Array inner{ValueType::Int32, {{ValueType::Int32, int64_t{1}}, {ValueType::Int32, int64_t{-2}}}};
    w.set("zoo.nested", {ValueType::Array, gguf::Array{ValueType::Array, {{ValueType::Array, inner}}}});
    w.set_alignment(64);
    const auto bytes = [](size_t n) { return std::vector<std::byte>(n, std::byte{0x3c}); };
    w.add_tensor("f32", {8}, kernels::TensorType::F32, bytes(32));
    w.add_tensor("f16", {8, 2}, kernels::TensorType::F16, bytes(32));
    w.add_tensor("q8_0", {32, 2}, kernels::TensorType::Q8_0, bytes(2 * 34));
    w.add_tensor("q4_k", {256}, kernels::TensorType::Q4_K, bytes(144));
    const fs::path path = scratch / "zoo.gguf";
    w.write(path.string());
    std::string out = read_file(path);
    fs::remove(path);
    return out;
}

void gguf_seeds(const fs::path& out) {
    SeedDir reader(out, "gguf_reader"), model(out, "model_load");
    // The smaller real models, one per architecture and weight format the engine reads.
    for (const char* name : {"stories260K-Q4_0", "stories260K-Q4_K_M", "stories260K-Q8_0", "tiny-qwen2-Q8_0",
                             "tiny-qwen3", "tiny-llama3-Q4_K_M"}) {
        const std::string bytes = read_file(fuzz::testdata_path(std::string("models/") + name + ".gguf"));
        reader.write(name, bytes);
        model.write(name, bytes);
    }
    const std::string zoo = metadata_zoo(out);
    reader.write("zoo", zoo);
    model.write("zoo", zoo);
    std::printf("gguf_reader: %zu seeds, model_load: %zu\n", reader.count(), model.count());
}

// Each vocab's test inputs, with and without special-token parsing, and chat markup.
void tokenizer_seeds(const fs::path& out) {
    SeedDir seeds(out, "tokenizer");
    const char* vocabs[] = {"llama-spm", "phi-3", "gpt-2", "llama-bpe", "qwen2"}; // the target's order
    const char* markup[] = {
        "<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\n", "<s>[INST] Hello [/INST] Hi</s>",
        "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>",
        "<|user|>\nHi<|end|>\n<|assistant|>", "<|endoftext|>Hello\xf0\x9f\x98\x80 \xff\xfe"};
    for (uint8_t v = 0; v < 5; ++v) {
        const std::string inputs =
            read_file(fuzz::testdata_path(std::string("vocab/ggml-vocab-") + vocabs[v] + ".gguf.inp"));
        const std::string separator = "\n__ggml_vocab_test__\n";
        size_t at = 0, n = 0;
        while (at < inputs.size()) {
            size_t end = inputs.find(separator, at);
            if (end == std::string::npos) end = inputs.size();
            const std::string text = inputs.substr(at, end - at);
            seeds.write(std::string(vocabs[v]) + "-" + std::to_string(n++), std::string(1, char(v)) + text);
            at = end + separator.size();
        }
        for (size_t m = 0; m < std::size(markup); ++m)
            seeds.write(std::string(vocabs[v]) + "-markup-" + std::to_string(m),
                        std::string(1, char(v | 8 | 16)) + markup[m]);
    }
    std::printf("tokenizer: %zu seeds\n", seeds.count());
}

// Every real template with every conversation of its expected renderings.
void chat_template_seeds(const fs::path& out) {
    SeedDir seeds(out, "chat_template");
    for (const auto& entry : fs::directory_iterator(fuzz::testdata_path("templates"))) {
        if (entry.path().extension() != ".jinja") continue;
        const std::string source = read_file(entry.path());
        fs::path expected = entry.path();
        expected.replace_extension(".expected.json");
        const auto cases = nlohmann::ordered_json::parse(read_file(expected))["cases"];
        size_t n = 0;
        for (const auto& c : cases)
            seeds.write(entry.path().stem().string() + "-" + std::to_string(n++),
                        source + std::string(1, '\0') + c["messages"].dump());
    }
    std::printf("chat_template: %zu seeds\n", seeds.count());
}

// States saved from the target's cache shape: every cache type, both storage formats, with and
// without a context-shift window.
void kv_state_seeds(const fs::path& out) {
    SeedDir seeds(out, "kv_state");
    const fs::path path = out / "state.hkv";
    for (uint8_t types = 0; types < 4; ++types) {
        for (const auto format : {engine::KvStateFormat::F16, engine::KvStateFormat::Q8_0}) {
            for (const bool shifted : {false, true}) {
                engine::KvCache cache(fuzz::kv_state_hparams(), fuzz::kKvStateContext,
                                      fuzz::kv_state_types(types));
                cache.set_tokens({1, 17, 300, 5, 42, 7});
                std::vector<float> row(static_cast<size_t>(cache.kv_width()));
                for (int32_t layer = 0; layer < cache.n_layer(); ++layer)
                    for (int32_t pos = 0; pos < cache.size(); ++pos)
                        for (const auto part : {engine::KvCache::Part::Keys, engine::KvCache::Part::Values}) {
                            for (size_t i = 0; i < row.size(); ++i)
                                row[i] = static_cast<float>((layer + 1) * (pos + 2)) * 0.01f *
                                             static_cast<float>(i % 7) -
                                         0.1f;
                            cache.write_row_f32(part, layer, pos, row.data());
                        }
                if (shifted) cache.discard(1, 2);
                engine::save_kv_state(path.string(), cache, fuzz::kv_state_identity(), format);
                const std::string name = "types" + std::to_string(types) +
                                         (format == engine::KvStateFormat::Q8_0 ? "-q8_0" : "-f16") +
                                         (shifted ? "-shifted" : "");
                const std::string file = read_file(path);
                seeds.write(name, std::string(1, char(types | fuzz::kFixChecksum)) + file);
                if (!shifted) seeds.write(name + "-checksum", std::string(1, char(types)) + file);
            }
        }
    }
    fs::remove(path);
    std::printf("kv_state: %zu seeds\n", seeds.count());
}

// Markdown: the test data's and the design's own documents, and replies with code.
void markdown_seeds(const fs::path& out) {
    SeedDir seeds(out, "markdown");
    seeds.write("testdata-readme", read_file(fuzz::testdata_path("README.md")));
    for (const char* name : {"DESIGN.md", "STYLE.md"})
        if (fs::exists(fuzz::testdata_path("../" + std::string(name))))
            seeds.write(name, read_file(fuzz::testdata_path("../" + std::string(name))));
    seeds.write("code",
                "Here is how:\n\n```cpp\nint main() {}\n```\n\nAnd then ~~~\n~~~~ python  extra\nx = 1\n");
    seeds.write("open-fence", "Text. More text! Even more?\n   ```\nunfinished");
    std::printf("markdown: %zu seeds\n", seeds.count());
}

// The vision test data's projectors and images (a JPEG seed is committed in seeds/image_decode).
void vision_seeds(const fs::path& out) {
    SeedDir mmproj(out, "mmproj_reader"), images(out, "image_decode");
    for (const char* name : {"mmproj-tiny-gemma3-f32.gguf", "mmproj-tiny-gemma3-f16.gguf"})
        mmproj.write(name, read_file(fuzz::testdata_path(std::string("vision/") + name)));
    for (const char* name : {"grad-56x56.png", "shapes-96x64.png", "rings-30x42.png"})
        images.write(name, read_file(fuzz::testdata_path(std::string("vision/images/") + name)));
    std::printf("mmproj_reader: %zu seeds, image_decode: %zu\n", mmproj.count(), images.count());
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_seeds OUT_DIR\n");
        return 2;
    }
    const fs::path out(argv[1]);
    fs::create_directories(out);
    gguf_seeds(out);
    tokenizer_seeds(out);
    chat_template_seeds(out);
    kv_state_seeds(out);
    markdown_seeds(out);
    vision_seeds(out);
    return 0;
}
