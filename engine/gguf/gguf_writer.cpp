#include "engine/gguf/gguf_writer.h"
#include "engine/error.h"
#include "engine/gguf/gguf_limits.h"
#include "engine/gguf/gguf_value.h"
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

namespace hearth::gguf {

namespace {

constexpr uint32_t kVersion = 3;

[[noreturn]] void writer_error(const std::string& problem) {
    throw Error("gguf writer: " + problem);
}

bool is_power_of_two(uint64_t v) {
    return v != 0 && (v & (v - 1)) == 0;
}

size_t padding_for(size_t offset, size_t alignment) {
    return (alignment - offset % alignment) % alignment;
}

// A FILE* that throws "<path>: write failed: <reason>" and removes the partial file on failure.
class OutputFile {
public:
    OutputFile(std::string final_path)
        : final_path_(std::move(final_path)), partial_path_(final_path_ + ".partial") {
        file_ = std::fopen(partial_path_.c_str(), "wb");
        if (!file_) fail("cannot create " + partial_path_);
        std::setvbuf(file_, nullptr, _IOFBF, size_t{1} << 20);
    }
    ~OutputFile() {
        if (file_) std::fclose(file_);
        if (!committed_) std::remove(partial_path_.c_str());
    }
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    void bytes(const void* data, size_t n) {
        if (n != 0 && std::fwrite(data, 1, n, file_) != n) fail("write failed");
        offset_ += n;
    }
    template <typename T> void pod(T v) { bytes(&v, sizeof(T)); }
    void string(const std::string& s) {
        pod<uint64_t>(s.size());
        bytes(s.data(), s.size());
    }
    void pad_to(size_t alignment) {
        static const char zeros[4096] = {};
        size_t n = padding_for(offset_, alignment);
        while (n > 0) {
            const size_t chunk = std::min(n, sizeof zeros);
            bytes(zeros, chunk);
            n -= chunk;
        }
    }
    size_t offset() const { return offset_; }

    void commit() {
        const int flushed = std::fflush(file_);
        const int flush_errno = errno;
        const int closed = std::fclose(file_);
        file_ = nullptr;
        if (flushed != 0 || closed != 0) {
            errno = flushed != 0 ? flush_errno : errno;
            fail("write failed");
        }
        if (std::rename(partial_path_.c_str(), final_path_.c_str()) != 0)
            fail("cannot rename " + partial_path_);
        committed_ = true;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw Error(final_path_ + ": " + what + ": " + std::strerror(errno));
    }
    std::string final_path_;
    std::string partial_path_;
    std::FILE* file_ = nullptr;
    size_t offset_ = 0;
    bool committed_ = false;
};

void write_value(OutputFile& out, const Value& v) {
    switch (v.type) {
    case ValueType::UInt8:
        out.pod(static_cast<uint8_t>(std::get<uint64_t>(v.data)));
        break;
    case ValueType::UInt16:
        out.pod(static_cast<uint16_t>(std::get<uint64_t>(v.data)));
        break;
    case ValueType::UInt32:
        out.pod(static_cast<uint32_t>(std::get<uint64_t>(v.data)));
        break;
    case ValueType::UInt64:
        out.pod(std::get<uint64_t>(v.data));
        break;
    case ValueType::Int8:
        out.pod(static_cast<int8_t>(std::get<int64_t>(v.data)));
        break;
    case ValueType::Int16:
        out.pod(static_cast<int16_t>(std::get<int64_t>(v.data)));
        break;
    case ValueType::Int32:
        out.pod(static_cast<int32_t>(std::get<int64_t>(v.data)));
        break;
    case ValueType::Int64:
        out.pod(std::get<int64_t>(v.data));
        break;
    case ValueType::Float32:
        out.pod(static_cast<float>(std::get<double>(v.data)));
        break;
    case ValueType::Float64:
        out.pod(std::get<double>(v.data));
        break;
    case ValueType::Bool:
        out.pod(static_cast<uint8_t>(std::get<bool>(v.data) ? 1 : 0));
        break;
    case ValueType::String:
        out.string(std::get<std::string>(v.data));
        break;
    case ValueType::Array: {
        const Array& array = std::get<Array>(v.data);
        out.pod(static_cast<uint32_t>(array.element_type));
        out.pod<uint64_t>(array.items.size());
        for (const Value& item : array.items)
            write_value(out, item);
        break;
    }
    }
}

} // namespace

void GgufWriter::set(const std::string& key, Value value) {
    if (key.empty()) writer_error("empty metadata key");
    if (std::string problem = value_problem(value); !problem.empty())
        writer_error("metadata key '" + key + "': " + problem);
    if (key == "general.alignment") {
        const auto* u = std::get_if<uint64_t>(&value.data);
        const auto* s = std::get_if<int64_t>(&value.data);
        const uint64_t a = u ? *u : (s && *s > 0 ? static_cast<uint64_t>(*s) : 0);
        if (!is_power_of_two(a) || a > kMaxAlignment)
            writer_error("general.alignment must be a power of two between 1 and " +
                         std::to_string(kMaxAlignment));
        alignment_ = static_cast<size_t>(a);
    }
    for (auto& entry : metadata_) {
        if (entry.key == key) {
            entry.value = std::move(value);
            return;
        }
    }
    metadata_.push_back(MetadataEntry{key, std::move(value)});
}

const Value* GgufWriter::find(std::string_view key) const {
    for (const auto& entry : metadata_)
        if (entry.key == key) return &entry.value;
    return nullptr;
}

bool GgufWriter::remove(std::string_view key) {
    const auto it = std::find_if(metadata_.begin(), metadata_.end(),
                                 [&](const MetadataEntry& e) { return e.key == key; });
    if (it == metadata_.end()) return false;
    if (key == "general.alignment") alignment_ = 32;
    metadata_.erase(it);
    return true;
}

void GgufWriter::set_alignment(size_t alignment) {
    set("general.alignment", uint32_value(static_cast<uint32_t>(alignment)));
}

void GgufWriter::copy(const GgufFile& from, std::string_view key) {
    const Value* v = from.find(key);
    if (!v) from.fail("metadata key '" + std::string(key) + "' is missing");
    set(std::string(key), *v);
}

void GgufWriter::copy_tensors(const GgufFile& from) {
    for (const TensorInfo& t : from.tensors())
        add_tensor(t.name, t.shape, t.type, std::vector<std::byte>(t.data, t.data + t.bytes));
}

size_t GgufWriter::copy_prefix(const GgufFile& from, std::string_view prefix) {
    size_t copied = 0;
    for (const auto& entry : from.metadata()) {
        if (entry.key.compare(0, prefix.size(), prefix) == 0) {
            set(entry.key, entry.value);
            ++copied;
        }
    }
    return copied;
}

GgufWriter::PendingTensor& GgufWriter::declare_tensor(const std::string& name, std::vector<int64_t> shape,
                                                      kernels::TensorType type) {
    if (name.empty()) writer_error("empty tensor name");
    for (const auto& t : tensors_)
        if (t.name == name) writer_error("duplicate tensor '" + name + "'");
    if (shape.empty() || shape.size() > kMaxDims)
        writer_error("tensor '" + name + "' has " + std::to_string(shape.size()) +
                     " dimensions (1 to 4 allowed)");
    int64_t rows = 1; // product of every dimension but the row length
    for (size_t i = 0; i < shape.size(); ++i) {
        const int64_t d = shape[i];
        if (d <= 0) writer_error("tensor '" + name + "' has a dimension " + std::to_string(d));
        if (i == 0) continue;
        if (rows > std::numeric_limits<int64_t>::max() / d)
            writer_error("tensor '" + name + "' is too large");
        rows *= d;
    }
    const auto traits = kernels::type_traits(type);
    if (shape[0] % traits.block_elements != 0)
        writer_error("tensor '" + name + "': row length " + std::to_string(shape[0]) +
                     " is not a multiple of the block size " + std::to_string(traits.block_elements) +
                     " of " + std::string(traits.name));
    PendingTensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.type = type;
    t.row_bytes = kernels::row_bytes(type, t.shape[0]);
    t.rows = rows;
    tensors_.push_back(std::move(t));
    return tensors_.back();
}

void GgufWriter::add_tensor(const std::string& name, std::vector<int64_t> shape, kernels::TensorType type,
                            std::vector<std::byte> data) {
    PendingTensor& t = declare_tensor(name, std::move(shape), type);
    if (data.size() != t.bytes()) {
        const std::string expected = std::to_string(t.bytes());
        tensors_.pop_back();
        writer_error("tensor '" + name + "' needs " + expected + " bytes of data, got " +
                     std::to_string(data.size()));
    }
    t.data = std::move(data);
}

void GgufWriter::add_tensor(const std::string& name, std::vector<int64_t> shape, kernels::TensorType type,
                            TensorRowFiller fill) {
    if (!fill) writer_error("tensor '" + name + "' has no data filler");
    declare_tensor(name, std::move(shape), type).fill = std::move(fill);
}

void GgufWriter::write(const std::string& path) const {
    OutputFile out(path);
    out.bytes("GGUF", 4);
    out.pod<uint32_t>(kVersion);
    out.pod<uint64_t>(tensors_.size());
    out.pod<uint64_t>(metadata_.size());
    for (const auto& entry : metadata_) {
        out.string(entry.key);
        out.pod(static_cast<uint32_t>(entry.value.type));
        write_value(out, entry.value);
    }

    uint64_t offset = 0;
    for (const auto& t : tensors_) {
        out.string(t.name);
        out.pod<uint32_t>(static_cast<uint32_t>(t.shape.size()));
        for (int64_t d : t.shape)
            out.pod<uint64_t>(static_cast<uint64_t>(d));
        out.pod(static_cast<uint32_t>(t.type));
        out.pod<uint64_t>(offset);
        offset += t.bytes() + padding_for(t.bytes(), alignment_);
    }
    out.pad_to(alignment_);

    std::vector<std::byte> chunk;
    for (const auto& t : tensors_) {
        if (t.fill) {
            const int64_t rows_per_chunk =
                std::max<int64_t>(1, static_cast<int64_t>(fill_chunk_bytes_ / t.row_bytes));
            for (int64_t first = 0; first < t.rows; first += rows_per_chunk) {
                const int64_t count = std::min(rows_per_chunk, t.rows - first);
                chunk.assign(static_cast<size_t>(count) * t.row_bytes, std::byte{0});
                t.fill(first, count, chunk.data());
                out.bytes(chunk.data(), chunk.size());
            }
        } else {
            out.bytes(t.data.data(), t.data.size());
        }
        out.pad_to(alignment_);
    }
    out.commit();
}

} // namespace hearth::gguf
