#include "tests/fuzz/fuzz_support.h"
#include <cstdio>
#include <cstdlib>
#include <sys/mman.h>
#include <unistd.h>

namespace hearth::fuzz {

std::string testdata_path(const std::string& relative) {
    const char* dir = std::getenv("HEARTH_TESTDATA");
    return std::string(dir && *dir ? dir : HEARTH_TESTDATA_DIR) + "/" + relative;
}

MemoryFile::MemoryFile() : fd_(::memfd_create("hearth-fuzz-input", MFD_CLOEXEC)) {
    if (fd_ < 0) invariant_failed("memfd_create failed");
}

MemoryFile::~MemoryFile() {
    ::close(fd_);
}

std::string MemoryFile::write(const uint8_t* data, size_t size) {
    if (::ftruncate(fd_, 0) != 0) invariant_failed("cannot truncate the memfd");
    for (size_t done = 0; done < size;) {
        const ssize_t n = ::pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
        if (n <= 0) invariant_failed("cannot write the memfd");
        done += static_cast<size_t>(n);
    }
    return "/proc/self/fd/" + std::to_string(fd_);
}

void invariant_failed(const std::string& what) {
    std::fprintf(stderr, "fuzz invariant failed: %s\n", what.c_str());
    std::abort();
}

} // namespace hearth::fuzz
