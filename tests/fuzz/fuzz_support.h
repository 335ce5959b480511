#pragma once
// What the fuzz targets share: where the test data is, and a file in memory for the readers
// that take a path (GGUF, saved KV states), rewritten for every input.
#include <cstddef>
#include <cstdint>
#include <string>

namespace hearth::fuzz {

// ../shared/testdata beside the checkout, or $HEARTH_TESTDATA when set.
std::string testdata_path(const std::string& relative);

// A memfd: write() replaces its bytes and returns a path that open() and mmap() read as a
// regular file (/proc/self/fd/N), with no disk involved.
class MemoryFile {
public:
    MemoryFile();
    ~MemoryFile();
    MemoryFile(const MemoryFile&) = delete;
    MemoryFile& operator=(const MemoryFile&) = delete;
    std::string write(const uint8_t* data, size_t size);

private:
    int fd_ = -1;
};

// Reports a broken invariant and aborts, which libFuzzer (and the regression runner) count as
// a crash.
[[noreturn]] void invariant_failed(const std::string& what);

} // namespace hearth::fuzz
