#pragma once
// The repacked copy of a model's weights (weight_repacking.h) kept on disk, so that a model
// loaded again is a plain mapping of pages the system already holds, not fresh memory the
// kernel must clear and the repacking must fill. One file per model path, in
// $XDG_CACHE_HOME/hearth/repacked (~/.cache/hearth/repacked): a 4 KiB header, then the copy.
// A file is used only when its header matches the model as it is now (its size, its mtime, a
// hash of its metadata and tensor table), the copy's plan (every matrix's place, type and
// layout) and the layout's version, and its length is the copy's; anything else, a damaged
// file included, is replaced. The copy's bytes carry a checksum that the loader verifies.
#include "engine/gguf/gguf_file.h"
#include "engine/model/content_hash.h"
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace hearth::engine {

// Where copies are cached, and from what size (smaller copies are made in memory each time).
struct RepackCacheOptions {
    std::filesystem::path dir; // empty: no cache
    size_t min_bytes = size_t{64} << 20;
    int keep_files = 4; // the most recently used copies kept; older ones are deleted
    // Whether decode may read a found copy where it lies, in the file's own pages, when the system
    // maps them as huge pages (a file system with large folios); otherwise it is copied into
    // anonymous huge pages, which the kernel must first clear.
    bool read_in_place = true;
};
// From the environment: HEARTH_REPACK_CACHE=0 turns the cache off; HEARTH_REPACK_CACHE_DIR
// names another folder; HEARTH_REPACK_CACHE_IN_PLACE=0 always copies a found copy.
RepackCacheOptions repack_cache_options();

// What a cached copy must match.
struct RepackCacheKey {
    uint64_t model_bytes = 0;
    int64_t model_mtime_ns = 0;
    uint64_t model_header_hash = 0; // the file's bytes before its tensor data
    uint64_t plan_hash = 0;         // of the copy's layout: every matrix's place, type and shape
    uint64_t data_bytes = 0;        // of the copy
};
// The key of `file` as it is on disk now, for a copy of that plan; nullopt if it cannot be read.
std::optional<RepackCacheKey> repack_cache_key(const gguf::GgufFile& file, uint64_t plan_hash,
                                               uint64_t data_bytes);

// The checksum of one piece of a copy (`seed`: the piece's index): the sum of its 64 KiB chunks'
// checksums, so that a reader can check a piece a chunk at a time.
uint64_t piece_checksum(const std::byte* data, size_t bytes, uint64_t seed);

// A cache file: a found one mapped at a 2 MiB-aligned address so that the system can map the
// file's huge pages as such (`data` is the copy, 64-byte aligned; unmapped by the destructor), or
// a created one being written.
class RepackCacheMapping {
public:
    RepackCacheMapping() = default;
    RepackCacheMapping(RepackCacheMapping&& other) noexcept;
    RepackCacheMapping& operator=(RepackCacheMapping&& other) noexcept;
    ~RepackCacheMapping();

    std::byte* data() const { return data_; }
    uint64_t checksum() const { return checksum_; } // as the header records it (a found copy)

    // A valid copy of `key` in the cache, mapped read-only; nullopt when there is none (a
    // missing, stale or damaged file, which a later create() replaces).
    static std::optional<RepackCacheMapping> open(const RepackCacheOptions& options,
                                                  const std::string& model_path, const RepackCacheKey& key);
    // A new file of the key's size under a temporary name, to be written with write() (not
    // mapped: data() is null); nullopt when the cache folder or the disk cannot take it.
    static std::optional<RepackCacheMapping> create(const RepackCacheOptions& options,
                                                    const std::string& model_path, const RepackCacheKey& key);
    // Of a created file: the chunks it is written in, and writing chunk `index` of them from the
    // whole copy at `copy` (from several threads at once). Written with pwrite, the file's cache
    // pages are filled as they are copied, where a mapping's were first cleared by the kernel and
    // counted in the resident set; each chunk covers whole 2 MiB pages of the file, so that the
    // system can keep them as huge pages (writes across their edges left 41% of them so).
    size_t chunks() const;
    void write_chunk(size_t index, const std::byte* copy);
    // Of a created file, once the copy is written: records the checksum in the header and gives
    // the file its name (older cached copies beyond keep_files go). False if it could not (a
    // write failed, the disk filled): the temporary file is deleted.
    bool publish(uint64_t checksum);
    // piece_checksum of the copy's bytes [at, at + bytes) (`at` within data()), read from the file
    // rather than through the mapping: checking a copy maps none of its pages, so that they
    // become resident only as decode reads them. 0 if the file cannot be read.
    uint64_t read_checksum(const std::byte* at, size_t bytes, uint64_t seed) const;
    // Whether the system maps this file in huge pages: 16 of the copy's 2 MiB pages, spread over
    // it, are read and the mapping's FilePmdMapped (/proc/self/smaps) counted; three in four must
    // be whole. When not, the pages read are given back.
    bool maps_in_huge_pages() const;
    // A found copy whose checksum failed: the file is deleted (the next load writes a new one).
    void discard();
    // Gives the mapping's whole pages in [data, data + bytes) back (the file keeps them): the
    // copy is read or written a piece at a time, so only a piece per thread is resident twice.
    void release_pages(const std::byte* data, size_t bytes) const {
        gguf::release_mapped_pages(map_, map_bytes_, data, bytes);
    }

private:
    void release();

    void* map_ = nullptr;
    size_t map_bytes_ = 0;
    int fd_ = -1; // of a found copy, for read_checksum; of a created one, to write it
    std::atomic<bool> write_failed_{false};
    std::byte* data_ = nullptr;
    uint64_t checksum_ = 0;
    std::filesystem::path path_, temporary_path_;
    RepackCacheOptions options_;
    RepackCacheKey key_;
};

} // namespace hearth::engine
