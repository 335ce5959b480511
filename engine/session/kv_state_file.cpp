#include "engine/session/kv_state_file.h"
#include "engine/error.h"
#include "kernels/block_formats.h"
#include "kernels/fp16.h"
#include "kernels/kernel_table.h"
#include "kernels/tensor_type.h"
#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <vector>

namespace hearth::engine {

namespace {

constexpr char kMagic[4] = {'H', 'K', 'V', 'S'};
// Version 2 added the cache's key and value types; version 1 files (F16 caches) still restore.
constexpr uint32_t kVersion = 2;
constexpr uint32_t kFirstVersion = 1;

// Appends plain values to a byte buffer.
class Writer {
public:
    template <typename T> void put(T value) {
        const auto* p = reinterpret_cast<const char*>(&value);
        bytes_.append(p, sizeof(T));
    }
    void put_bytes(const void* data, size_t n) { bytes_.append(static_cast<const char*>(data), n); }
    void put_string(const std::string& s) {
        put(static_cast<uint32_t>(s.size()));
        put_bytes(s.data(), s.size());
    }
    std::string& bytes() { return bytes_; }

private:
    std::string bytes_;
};

// Reads plain values from a byte buffer; running past its end is a truncated file.
class Reader {
public:
    Reader(const std::vector<char>& bytes, size_t end) : bytes_(bytes), end_(end) {}
    template <typename T> T get() {
        T value;
        std::memcpy(&value, take(sizeof(T)), sizeof(T));
        return value;
    }
    const char* take(size_t n) {
        if (n > end_ - pos_) throw std::out_of_range("truncated");
        const char* p = bytes_.data() + pos_;
        pos_ += n;
        return p;
    }
    std::string get_string(size_t max) {
        const uint32_t n = get<uint32_t>();
        if (n > max) throw std::out_of_range("truncated");
        const char* p = take(n);
        return std::string(p, n);
    }
    size_t remaining() const { return end_ - pos_; }

private:
    const std::vector<char>& bytes_;
    size_t end_;
    size_t pos_ = 0;
};

// Whether a part of the cache's type goes to the file re-rounded to Q8_0: only F16 parts, when
// the format asks for it; quantized parts are written as they are held.
bool converted_to_q8_0(KvStateFormat format, kernels::TensorType cache_type) {
    return format == KvStateFormat::Q8_0 && cache_type == kernels::TensorType::F16;
}

size_t row_bytes_of(KvStateFormat format, kernels::TensorType cache_type, int32_t width) {
    return kernels::row_bytes(converted_to_q8_0(format, cache_type) ? kernels::TensorType::Q8_0 : cache_type,
                              width);
}

std::string types_label(KvCacheTypes types) {
    const auto name = [](kernels::TensorType t) { return std::string(kernels::type_traits(t).name); };
    return name(types.keys) + "/" + name(types.values);
}

// The active tier's Q8_0 row conversions (every tier has them).
struct Q8_0Rows {
    kernels::QuantizeRowFn quantize;
    kernels::DequantizeRowFn dequantize;
};
Q8_0Rows q8_0_kernels() {
    const kernels::TypeCandidates& active = kernels::active_kernels().of(kernels::TensorType::Q8_0);
    return {active.quantize.fn(), active.dequantize.fn()};
}

// Writes `bytes` to path through a temporary file and a rename, so that a crash or a
// full disk never leaves a half-written state under the real name.
void write_atomically(const std::string& path, const std::string& bytes) {
    const std::string temp = path + ".tmp-" + std::to_string(::getpid());
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw Error(path + ": cannot write the conversation state: " + std::strerror(errno));
    size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const std::string problem = std::strerror(errno);
            ::close(fd);
            ::unlink(temp.c_str());
            throw Error(path + ": cannot write the conversation state: " + problem);
        }
        written += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const std::string problem = std::strerror(errno);
        ::unlink(temp.c_str());
        throw Error(path + ": cannot write the conversation state: " + problem);
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
        const std::string problem = std::strerror(errno);
        ::unlink(temp.c_str());
        throw Error(path + ": cannot write the conversation state: " + problem);
    }
}

} // namespace

ModelIdentity model_identity(const Model& model) {
    const gguf::GgufFile& file = model.file();
    ModelIdentity id;
    id.path = file.path();
    id.file_bytes = file.file_size();
    std::vector<char> header(file.data_offset());
    std::ifstream in(file.path(), std::ios::binary);
    if (!in.read(header.data(), static_cast<std::streamsize>(header.size())))
        throw Error(file.path() + ": cannot read the model's header to identify it");
    id.header_hash = hash_bytes(header.data(), header.size());
    return id;
}

void save_kv_state(const std::string& path, const KvCache& cache, const KvStateIdentity& identity,
                   KvStateFormat format) {
    const int32_t width = cache.kv_width();
    if (format == KvStateFormat::Q8_0 && width % 32 != 0) format = KvStateFormat::F16;
    const int32_t n = cache.size();
    const KvCacheTypes types = cache.types();
    const size_t row_bytes =
        row_bytes_of(format, types.keys, width) + row_bytes_of(format, types.values, width);

    Writer w;
    w.bytes().reserve(1024 + (cache.tokens().size() + cache.dropped().size()) * 4 +
                      static_cast<size_t>(cache.n_layer()) * n * row_bytes);
    w.put_bytes(kMagic, sizeof kMagic);
    w.put(kVersion);
    w.put_string(identity.model.path);
    w.put(identity.model.file_bytes);
    w.put(identity.model.header_hash);
    w.put(identity.template_hash);
    w.put(static_cast<uint32_t>(cache.n_layer()));
    w.put(static_cast<uint32_t>(width));
    w.put(static_cast<uint32_t>(cache.capacity()));
    w.put(static_cast<uint32_t>(format));
    w.put(static_cast<uint32_t>(types.keys));
    w.put(static_cast<uint32_t>(types.values));
    w.put(static_cast<uint32_t>(n));
    w.put(static_cast<uint32_t>(cache.shift_at()));
    w.put(static_cast<uint32_t>(cache.dropped().size()));
    w.put_bytes(cache.tokens().data(), cache.tokens().size() * sizeof(int32_t));
    w.put_bytes(cache.dropped().data(), cache.dropped().size() * sizeof(int32_t));

    // Position by position, each a row of kv_width (the file's layout is the cache's old one).
    std::vector<char> row(
        std::max(cache.row_bytes(KvCache::Part::Keys), cache.row_bytes(KvCache::Part::Values)));
    std::vector<float> f32(static_cast<size_t>(width));
    std::vector<char> q8(
        kernels::row_bytes(kernels::TensorType::Q8_0, format == KvStateFormat::Q8_0 ? width : 0));
    const Q8_0Rows q8_0 = q8_0_kernels();
    for (int32_t layer = 0; layer < cache.n_layer(); ++layer) {
        for (const auto part : {KvCache::Part::Keys, KvCache::Part::Values}) {
            const bool convert = converted_to_q8_0(format, cache.type(part));
            for (int32_t pos = 0; pos < n; ++pos) {
                if (!convert) { // as held: restores bit for bit
                    cache.read_row(part, layer, pos, row.data());
                    w.put_bytes(row.data(), cache.row_bytes(part));
                    continue;
                }
                cache.read_row_f32(part, layer, pos, f32.data());
                q8_0.quantize(f32.data(), q8.data(), width);
                w.put_bytes(q8.data(), q8.size());
            }
        }
    }
    w.put(hash_bytes(w.bytes().data(), w.bytes().size()));
    write_atomically(path, w.bytes());
}

KvRestoreResult restore_kv_state(const std::string& path, KvCache& cache, const KvStateIdentity& expected,
                                 int32_t n_vocab) {
    KvRestoreResult result;
    auto refuse = [&](const std::string& problem) {
        result.reason = path + ": " + problem;
        return result;
    };

    // A folder or a device opens as a stream too (a folder's size reads as 2^63 - 1).
    std::error_code error;
    if (std::filesystem::exists(path, error) && !std::filesystem::is_regular_file(path, error))
        return refuse("not a saved conversation state file");
    std::vector<char> bytes;
    {
        std::ifstream in(path, std::ios::binary | std::ios::ate);
        if (!in) return refuse("no saved conversation state");
        const std::streamoff size = in.tellg();
        if (size < 0) return refuse("cannot read the saved conversation state");
        bytes.resize(static_cast<size_t>(size));
        in.seekg(0);
        if (!in.read(bytes.data(), size)) return refuse("cannot read the saved conversation state");
    }
    if (bytes.size() < sizeof kMagic + 4 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
        return refuse("not a Hearth conversation state file");
    uint32_t version;
    std::memcpy(&version, bytes.data() + sizeof kMagic, sizeof version);
    if (version < kFirstVersion || version > kVersion)
        return refuse("saved state version " + std::to_string(version) + " is not supported (expected " +
                      std::to_string(kVersion) + ")");
    if (bytes.size() < sizeof kMagic + 4 + 8) return refuse("the saved state is truncated");
    const size_t body = bytes.size() - sizeof(uint64_t);
    uint64_t checksum;
    std::memcpy(&checksum, bytes.data() + body, sizeof checksum);
    if (checksum != hash_bytes(bytes.data(), body))
        return refuse("the saved state is damaged or truncated (checksum mismatch)");

    try {
        Reader r(bytes, body);
        r.take(sizeof kMagic + sizeof version);
        const std::string model_path = r.get_string(1u << 16);
        const uint64_t file_bytes = r.get<uint64_t>();
        const uint64_t header_hash = r.get<uint64_t>();
        if (model_path != expected.model.path || file_bytes != expected.model.file_bytes ||
            header_hash != expected.model.header_hash)
            return refuse("saved for another model (" + model_path + ", " + std::to_string(file_bytes) +
                          " bytes), not " + expected.model.path);
        if (r.get<uint64_t>() != expected.template_hash) return refuse("saved with another chat template");
        const uint32_t n_layer = r.get<uint32_t>(), width = r.get<uint32_t>();
        const uint32_t saved_ctx = r.get<uint32_t>(), format_raw = r.get<uint32_t>();
        // Version 1 held only F16 caches.
        KvCacheTypes saved_types;
        if (version >= 2) {
            saved_types.keys = static_cast<kernels::TensorType>(r.get<uint32_t>());
            saved_types.values = static_cast<kernels::TensorType>(r.get<uint32_t>());
            if (!kernels::is_kv_cache_type(saved_types.keys) ||
                !kernels::is_kv_cache_type(saved_types.values))
                return refuse("unknown KV cache type in the saved state");
        }
        if (saved_types != cache.types())
            return refuse("saved from a " + types_label(saved_types) + " KV cache, this one is " +
                          types_label(cache.types()));
        const uint32_t n = r.get<uint32_t>(), shift_at = r.get<uint32_t>(), n_dropped = r.get<uint32_t>();
        if (static_cast<int32_t>(n_layer) != cache.n_layer() ||
            static_cast<int32_t>(width) != cache.kv_width())
            return refuse("the saved cache has another shape (" + std::to_string(n_layer) + " layers x " +
                          std::to_string(width) + ")");
        if (format_raw > static_cast<uint32_t>(KvStateFormat::Q8_0))
            return refuse("unknown storage format " + std::to_string(format_raw));
        if (n > static_cast<uint32_t>(cache.capacity()))
            return refuse(std::to_string(n) + " saved tokens do not fit in the context length of " +
                          std::to_string(cache.capacity()) + " (saved with " + std::to_string(saved_ctx) +
                          ")");
        if (n_dropped > 0 && shift_at > n) return refuse("the saved shift window is out of range");
        if (static_cast<uint64_t>(n_dropped) * 4 > r.remaining())
            return refuse("the saved state is truncated");

        // An empty vector's data() may be null, which memcpy may not be given even for 0 bytes.
        const auto read_ids = [&r](uint32_t count) {
            std::vector<int32_t> ids(count);
            const char* from = r.take(count * sizeof(int32_t));
            if (count > 0) std::memcpy(ids.data(), from, count * sizeof(int32_t));
            return ids;
        };
        std::vector<int32_t> tokens = read_ids(n);
        std::vector<int32_t> dropped = read_ids(n_dropped);
        for (const auto* list : {&tokens, &dropped})
            for (int32_t id : *list)
                if (id >= n_vocab) // negative: an image position (KvCache::is_image_position)
                    return refuse("saved token id " + std::to_string(id) + " is outside the vocabulary");

        const auto format = static_cast<KvStateFormat>(format_raw);
        const auto file_row_bytes = [&](KvCache::Part part) {
            return row_bytes_of(format, cache.type(part), static_cast<int32_t>(width));
        };
        if (format == KvStateFormat::Q8_0 && width % 32 != 0)
            return refuse("Q8_0 rows of a width not a multiple of 32");
        const size_t row_bytes = file_row_bytes(KvCache::Part::Keys) + file_row_bytes(KvCache::Part::Values);
        if (r.remaining() != static_cast<size_t>(n_layer) * n * row_bytes)
            return refuse("the saved keys and values have the wrong size");

        // Everything checked: only now is the cache overwritten.
        const Q8_0Rows q8_0 = q8_0_kernels();
        std::vector<float> f32(width);
        std::vector<kernels::fp16_bits> row(width);
        // The file's rows sit at any byte offset (the model path's length moves them); the
        // dequantizer reads whole blocks, so each Q8_0 row is copied to blocks first.
        std::vector<kernels::BlockQ8_0> blocks(width / kernels::QK8_0);
        for (int32_t layer = 0; layer < cache.n_layer(); ++layer) {
            for (const auto part : {KvCache::Part::Keys, KvCache::Part::Values}) {
                const size_t part_row_bytes = file_row_bytes(part);
                for (uint32_t pos = 0; pos < n; ++pos) {
                    if (!converted_to_q8_0(format, cache.type(part))) { // the cache's own rows
                        cache.write_row(part, layer, static_cast<int32_t>(pos), r.take(part_row_bytes));
                        continue;
                    }
                    std::memcpy(blocks.data(), r.take(part_row_bytes), part_row_bytes);
                    q8_0.dequantize(blocks.data(), f32.data(), width);
                    for (uint32_t i = 0; i < width; ++i)
                        row[i] = kernels::fp32_to_fp16(f32[i]);
                    cache.write_row(part, layer, static_cast<int32_t>(pos), row.data());
                }
            }
        }
        cache.set_tokens(std::move(tokens));
        cache.set_dropped(static_cast<int32_t>(shift_at), std::move(dropped));
        result.restored = true;
        result.tokens = static_cast<int32_t>(n);
        return result;
    } catch (const std::out_of_range&) {
        return refuse("the saved state is truncated");
    }
}

std::optional<std::vector<int32_t>> read_kv_state_tokens(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    const auto read = [&in](auto& value) {
        return static_cast<bool>(in.read(reinterpret_cast<char*>(&value), sizeof value));
    };
    char magic[sizeof kMagic];
    uint32_t version = 0, path_length = 0;
    if (!read(magic) || std::memcmp(magic, kMagic, sizeof kMagic) != 0 || !read(version) ||
        version < kFirstVersion || version > kVersion || !read(path_length) || path_length > (1u << 16))
        return std::nullopt;
    // The model path, its size, header and template hashes, n_layer, width, n_ctx, format, and
    // since version 2 the key and value types: what restore_kv_state checks.
    const std::streamoff skipped =
        path_length + 3 * sizeof(uint64_t) + 4 * sizeof(uint32_t) + (version >= 2 ? 2 * sizeof(uint32_t) : 0);
    in.seekg(skipped, std::ios::cur);
    uint32_t n = 0, shift_at = 0, n_dropped = 0;
    if (!read(n) || !read(shift_at) || !read(n_dropped) || n_dropped > 0 || n > (1u << 24))
        return std::nullopt;
    std::vector<int32_t> tokens(n);
    if (n > 0 &&
        !in.read(reinterpret_cast<char*>(tokens.data()), static_cast<std::streamsize>(n * sizeof(int32_t))))
        return std::nullopt;
    return tokens;
}

} // namespace hearth::engine
