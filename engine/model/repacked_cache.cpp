#include "engine/model/repacked_cache.h"

#include "kernels/interleaved_rows.h"
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace hearth::engine {
namespace {

namespace fs = std::filesystem;

constexpr size_t kHeaderBytes = 4096;
constexpr size_t kHugePage = size_t{2} << 20;
constexpr char kMagic[8] = {'H', 'E', 'A', 'R', 'T', 'H', 'R', 'W'};
constexpr uint32_t kHeaderVersion = 2; // 2: checksums by 64 KiB chunks
constexpr size_t kChecksumChunk = size_t{64} << 10;
constexpr const char* kSuffix = ".repacked";
// Space a new copy must leave free on its disk.
constexpr uint64_t kFreeSpaceMargin = uint64_t{1} << 30;

struct Header {
    char magic[8];
    uint32_t header_version;
    uint32_t layout_version;
    RepackCacheKey key;
    uint64_t checksum;
    uint64_t header_hash; // of every field above
};
static_assert(sizeof(Header) <= kHeaderBytes);

uint64_t header_hash(const Header& h) {
    return hash_bytes(&h, offsetof(Header, header_hash));
}

bool same_key(const RepackCacheKey& a, const RepackCacheKey& b) {
    return a.model_bytes == b.model_bytes && a.model_mtime_ns == b.model_mtime_ns &&
           a.model_header_hash == b.model_header_hash && a.plan_hash == b.plan_hash &&
           a.data_bytes == b.data_bytes;
}

// The cache file of a model: named by a hash of its absolute path.
fs::path cache_path(const RepackCacheOptions& options, const std::string& model_path) {
    std::error_code error;
    fs::path absolute = fs::absolute(model_path, error);
    if (error) absolute = model_path;
    const std::string text = absolute.lexically_normal().string();
    char name[32];
    std::snprintf(name, sizeof name, "%016llx",
                  static_cast<unsigned long long>(hash_bytes(text.data(), text.size())));
    return options.dir / (std::string(name) + kSuffix);
}

struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

// Maps `bytes` of fd at a 2 MiB-aligned address; nullptr on failure.
void* map_aligned(int fd, size_t bytes, int prot, int flags) {
    void* reserved =
        ::mmap(nullptr, bytes + kHugePage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED) return nullptr;
    const auto start = reinterpret_cast<uintptr_t>(reserved);
    const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
    void* mapping = ::mmap(reinterpret_cast<void*>(aligned), bytes, prot, flags | MAP_FIXED, fd, 0);
    if (mapping == MAP_FAILED) {
        ::munmap(reserved, bytes + kHugePage);
        return nullptr;
    }
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t mapped_end = (aligned + bytes + page - 1) / page * page;
    if (aligned > start) ::munmap(reserved, aligned - start);
    if (start + bytes + kHugePage > mapped_end)
        ::munmap(reinterpret_cast<void*>(mapped_end), start + bytes + kHugePage - mapped_end);
    // Huge pages where the file system gives them: decode streams every weight once per token.
    ::madvise(mapping, bytes, MADV_HUGEPAGE);
    return mapping;
}

// Deletes the oldest copies (by last use) beyond `keep`, never `current`.
void delete_old_copies(const RepackCacheOptions& options, const fs::path& current) {
    std::error_code error;
    std::vector<std::pair<fs::file_time_type, fs::path>> copies;
    for (const fs::directory_entry& entry : fs::directory_iterator(options.dir, error)) {
        if (entry.path().extension() != kSuffix || entry.path() == current) continue;
        const fs::file_time_type time = entry.last_write_time(error);
        if (!error) copies.emplace_back(time, entry.path());
    }
    std::sort(copies.begin(), copies.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const size_t keep_others = static_cast<size_t>(std::max(options.keep_files - 1, 0));
    for (size_t i = keep_others; i < copies.size(); ++i)
        fs::remove(copies[i].second, error);
}

// Deletes the temporary files of copies whose process ended before it published them (a crash
// or a kill mid-copy): "<copy>.<pid>-<serial>.tmp" whose pid no longer runs.
void delete_abandoned_copies(const RepackCacheOptions& options) {
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(options.dir, error)) {
        if (entry.path().extension() != ".tmp") continue;
        const std::string stem = entry.path().stem().string(); // "<copy>.<pid>-<serial>"
        const size_t dot = stem.rfind('.'), dash = stem.rfind('-');
        if (dot == std::string::npos || dash == std::string::npos || dash < dot) continue;
        const long pid = std::strtol(stem.c_str() + dot + 1, nullptr, 10);
        if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
            fs::remove(entry.path(), error);
    }
}

} // namespace

RepackCacheOptions repack_cache_options() {
    RepackCacheOptions options;
    const char* enabled = std::getenv("HEARTH_REPACK_CACHE");
    if (enabled != nullptr && std::strcmp(enabled, "0") == 0) return options;
    const char* in_place = std::getenv("HEARTH_REPACK_CACHE_IN_PLACE");
    options.read_in_place = in_place == nullptr || std::strcmp(in_place, "0") != 0;
    if (const char* dir = std::getenv("HEARTH_REPACK_CACHE_DIR"); dir != nullptr && *dir != '\0')
        options.dir = dir;
    else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/')
        options.dir = fs::path(xdg) / "hearth" / "repacked";
    else if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/')
        options.dir = fs::path(home) / ".cache" / "hearth" / "repacked";
    return options;
}

std::optional<RepackCacheKey> repack_cache_key(const gguf::GgufFile& file, uint64_t plan_hash,
                                               uint64_t data_bytes) {
    Fd fd{::open(file.path().c_str(), O_RDONLY | O_CLOEXEC)};
    struct stat st {};
    if (fd.fd < 0 || ::fstat(fd.fd, &st) != 0) return std::nullopt;
    std::vector<unsigned char> header(file.data_offset());
    if (::pread(fd.fd, header.data(), header.size(), 0) != static_cast<ssize_t>(header.size()))
        return std::nullopt;
    RepackCacheKey key;
    key.model_bytes = static_cast<uint64_t>(st.st_size);
    key.model_mtime_ns = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
    key.model_header_hash = hash_bytes(header.data(), header.size());
    key.plan_hash = plan_hash;
    key.data_bytes = data_bytes;
    return key;
}

namespace {
// The sum of the checksums of `bytes`' 64 KiB chunks, each seeded with the piece's seed and its
// index; chunk(at, n) gives the chunk's bytes, or nullptr if they cannot be had (the sum is 0).
template <class Chunk> uint64_t sum_of_chunks(size_t bytes, uint64_t seed, Chunk&& chunk) {
    uint64_t sum = 0;
    for (size_t at = 0, index = 0; at < bytes; at += kChecksumChunk, ++index) {
        const size_t n = std::min(kChecksumChunk, bytes - at);
        const std::byte* data = chunk(at, n);
        if (data == nullptr) return 0;
        sum += checksum_bytes(data, n, (seed << 32) + index);
    }
    return sum;
}
} // namespace

uint64_t piece_checksum(const std::byte* data, size_t bytes, uint64_t seed) {
    return sum_of_chunks(bytes, seed, [&](size_t at, size_t) { return data + at; });
}

uint64_t RepackCacheMapping::read_checksum(const std::byte* at, size_t bytes, uint64_t seed) const {
    alignas(64) std::byte buffer[kChecksumChunk]; // stays in the core's cache while it is summed
    const auto offset = static_cast<off_t>(kHeaderBytes + static_cast<size_t>(at - data_));
    return sum_of_chunks(bytes, seed, [&](size_t done, size_t n) -> const std::byte* {
        const bool read =
            ::pread(fd_, buffer, n, offset + static_cast<off_t>(done)) == static_cast<ssize_t>(n);
        return read ? buffer : nullptr;
    });
}

RepackCacheMapping::RepackCacheMapping(RepackCacheMapping&& other) noexcept {
    *this = std::move(other);
}

RepackCacheMapping& RepackCacheMapping::operator=(RepackCacheMapping&& other) noexcept {
    if (this != &other) {
        release();
        map_ = std::exchange(other.map_, nullptr);
        map_bytes_ = std::exchange(other.map_bytes_, 0);
        fd_ = std::exchange(other.fd_, -1);
        write_failed_ = other.write_failed_.load();
        data_ = std::exchange(other.data_, nullptr);
        checksum_ = other.checksum_;
        path_ = std::move(other.path_);
        temporary_path_ = std::move(other.temporary_path_);
        other.temporary_path_.clear();
        options_ = other.options_;
        key_ = other.key_;
    }
    return *this;
}

RepackCacheMapping::~RepackCacheMapping() {
    release();
}

void RepackCacheMapping::release() {
    if (map_ != nullptr) ::munmap(map_, map_bytes_);
    map_ = nullptr;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    std::error_code error;
    if (!temporary_path_.empty()) fs::remove(temporary_path_, error); // a copy never finished
    temporary_path_.clear();
}

std::optional<RepackCacheMapping> RepackCacheMapping::open(const RepackCacheOptions& options,
                                                           const std::string& model_path,
                                                           const RepackCacheKey& key) {
    if (options.dir.empty()) return std::nullopt;
    const fs::path path = cache_path(options, model_path);
    Fd fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    struct stat st {};
    if (fd.fd < 0 || ::fstat(fd.fd, &st) != 0) return std::nullopt;
    if (static_cast<uint64_t>(st.st_size) != kHeaderBytes + key.data_bytes) return std::nullopt;
    Header header{};
    if (::pread(fd.fd, &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) return std::nullopt;
    if (std::memcmp(header.magic, kMagic, sizeof kMagic) != 0 || header.header_version != kHeaderVersion ||
        header.layout_version != kernels::kInterleavedLayoutVersion ||
        header.header_hash != header_hash(header) || !same_key(header.key, key))
        return std::nullopt;
    const size_t bytes = kHeaderBytes + key.data_bytes;
    // Not populated: the loader reads it a piece at a time and gives each piece back, so that the
    // copy it makes and this mapping are never both resident whole.
    void* map = map_aligned(fd.fd, bytes, PROT_READ, MAP_SHARED);
    if (map == nullptr) return std::nullopt;
    ::futimens(fd.fd, nullptr); // its last use, for delete_old_copies
    RepackCacheMapping mapping;
    mapping.map_ = map;
    mapping.map_bytes_ = bytes;
    mapping.data_ = static_cast<std::byte*>(map) + kHeaderBytes;
    mapping.checksum_ = header.checksum;
    mapping.fd_ = std::exchange(fd.fd, -1);
    mapping.path_ = path;
    mapping.options_ = options;
    mapping.key_ = key;
    return mapping;
}

std::optional<RepackCacheMapping> RepackCacheMapping::create(const RepackCacheOptions& options,
                                                             const std::string& model_path,
                                                             const RepackCacheKey& key) {
    if (options.dir.empty()) return std::nullopt;
    std::error_code error;
    fs::create_directories(options.dir, error);
    if (error) return std::nullopt;
    delete_abandoned_copies(options);
    const size_t bytes = kHeaderBytes + key.data_bytes;
    struct statvfs disk {};
    if (::statvfs(options.dir.c_str(), &disk) != 0 ||
        uint64_t{disk.f_bavail} * disk.f_frsize < bytes + kFreeSpaceMargin)
        return std::nullopt;

    static std::atomic<unsigned> serial{0};
    const fs::path path = cache_path(options, model_path);
    fs::path temporary = path;
    temporary += "." + std::to_string(::getpid()) + "-" + std::to_string(serial++) + ".tmp";
    Fd fd{::open(temporary.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644)};
    if (fd.fd < 0) return std::nullopt;
    // The blocks are reserved now: a full disk fails here, not midway through the copy.
    if (::fallocate(fd.fd, 0, 0, static_cast<off_t>(bytes)) != 0) {
        fs::remove(temporary, error);
        return std::nullopt;
    }
    RepackCacheMapping mapping;
    mapping.fd_ = std::exchange(fd.fd, -1);
    mapping.path_ = path;
    mapping.temporary_path_ = temporary;
    mapping.options_ = options;
    mapping.key_ = key;
    return mapping;
}

constexpr size_t kWriteChunk = 4 * kHugePage;

size_t RepackCacheMapping::chunks() const {
    return (kHeaderBytes + key_.data_bytes + kWriteChunk - 1) / kWriteChunk;
}

void RepackCacheMapping::write_chunk(size_t index, const std::byte* copy) {
    // The file's bytes [begin, end), of the copy's from begin - kHeaderBytes; the header is
    // written by publish.
    const size_t begin = std::max(index * kWriteChunk, kHeaderBytes);
    const size_t end = std::min((index + 1) * kWriteChunk, kHeaderBytes + key_.data_bytes);
    for (size_t at = begin; at < end;) {
        const ssize_t n = ::pwrite(fd_, copy + (at - kHeaderBytes), end - at, static_cast<off_t>(at));
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            write_failed_ = true;
            return;
        }
        at += static_cast<size_t>(n);
    }
}

bool RepackCacheMapping::publish(uint64_t checksum) {
    if (fd_ < 0 || temporary_path_.empty() || write_failed_) return false;
    Header header{};
    std::memcpy(header.magic, kMagic, sizeof kMagic);
    header.header_version = kHeaderVersion;
    header.layout_version = kernels::kInterleavedLayoutVersion;
    header.key = key_;
    header.checksum = checksum;
    header.header_hash = header_hash(header);
    if (::pwrite(fd_, &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) return false;
    checksum_ = checksum;
    std::error_code error;
    fs::rename(temporary_path_, path_, error);
    if (error) return false; // the destructor deletes the temporary file
    temporary_path_.clear();
    delete_old_copies(options_, path_);
    return true;
}

bool RepackCacheMapping::maps_in_huge_pages() const {
    // Pages spread over the whole copy: a file read back piecemeal after the system dropped it
    // from memory can hold its first pages whole and most of the rest in small pieces (the
    // Llama 3.2 1B copy: 321 of 781 MB).
    constexpr size_t kProbePages = 16;
    const auto start = reinterpret_cast<uintptr_t>(map_);
    const uintptr_t first = (reinterpret_cast<uintptr_t>(data_) + kHugePage - 1) / kHugePage * kHugePage;
    const size_t whole_pages = (start + map_bytes_ - std::min(first, start + map_bytes_)) / kHugePage;
    const size_t pages = std::min(kProbePages, whole_pages);
    if (map_ == nullptr || pages == 0) return false;
    const auto page = [&](size_t i) { return first + i * (whole_pages / pages) * kHugePage; };
    for (size_t i = 0; i < pages; ++i) // a read faults the page in; the system maps it whole if it can
        static_cast<void>(*reinterpret_cast<const volatile std::byte*>(page(i)));

    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "%lx-", static_cast<unsigned long>(start));
    unsigned long pmd_kib = 0;
    if (std::FILE* smaps = std::fopen("/proc/self/smaps", "re")) {
        bool in_mapping = false;
        char line[512];
        while (std::fgets(line, sizeof line, smaps) != nullptr) {
            if (!in_mapping) {
                in_mapping = std::strncmp(line, prefix, std::strlen(prefix)) == 0;
            } else if (std::sscanf(line, "FilePmdMapped: %lu kB", &pmd_kib) == 1 ||
                       std::strncmp(line, "VmFlags:", 8) == 0) {
                break; // the count, or the mapping's last line (a kernel that does not count)
            }
        }
        std::fclose(smaps);
    }
    if (pmd_kib * 1024 >= pages * kHugePage * 3 / 4) return true;
    for (size_t i = 0; i < pages; ++i) // the copy is made instead: the probe keeps nothing resident
        ::madvise(reinterpret_cast<void*>(page(i)), kHugePage, MADV_DONTNEED);
    return false;
}

void RepackCacheMapping::discard() {
    std::error_code error;
    if (!path_.empty()) fs::remove(path_, error);
}

} // namespace hearth::engine
