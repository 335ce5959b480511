// Fuzz target: the GGUF reader (header, metadata, tensor infos, data placement). Any input
// must give a file whose every lookup and every tensor stays inside the mapping, or a
// hearth::Error; anything else (another exception, a crash, a sanitizer report) is a bug.
#include "engine/error.h"
#include "engine/gguf/gguf_file.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace hearth;

// Every typed lookup either answers or throws hearth::Error (wrong type, out of range).
void look_up(const gguf::GgufFile& file, const std::string& key) {
    const auto attempt = [](auto&& lookup) {
        try {
            lookup();
        } catch (const Error&) {
        }
    };
    attempt([&] { (void)file.get_string(key); });
    attempt([&] { (void)file.get_int(key); });
    attempt([&] { (void)file.get_float(key); });
    attempt([&] { (void)file.get_bool(key); });
    attempt([&] { (void)file.get_array(key); });
}

void check(const gguf::GgufFile& file) {
    for (const auto& entry : file.metadata()) {
        if (file.find(entry.key) != &entry.value) fuzz::invariant_failed("metadata index: " + entry.key);
        look_up(file, entry.key);
    }
    look_up(file, "general.alignment");
    look_up(file, "tokenizer.ggml.tokens");

    volatile unsigned char sink = 0;
    for (const auto& t : file.tensors()) {
        if (file.find_tensor(t.name) != &t) fuzz::invariant_failed("tensor index: " + t.name);
        if (t.elements() <= 0) fuzz::invariant_failed("tensor without elements: " + t.name);
        if (t.offset % file.alignment() != 0) fuzz::invariant_failed("misaligned tensor: " + t.name);
        const size_t start = file.data_offset() + t.offset;
        if (start < file.data_offset() || start > file.file_size() || t.bytes > file.file_size() - start)
            fuzz::invariant_failed("tensor outside the file: " + t.name);
        if (t.bytes > 0)
            sink = sink + static_cast<unsigned char>(t.data[0]) +
                   static_cast<unsigned char>(t.data[t.bytes - 1]);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static fuzz::MemoryFile memory;
    const std::string path = memory.write(data, size);
    try {
        check(*gguf::GgufFile::open(path));
    } catch (const Error&) {
    }
    return 0;
}
