#pragma once
// A GGUF v2/v3 file, memory-mapped and fully validated on open.
#include "kernels/tensor_type.h"
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

namespace hearth::gguf {

enum class ValueType : uint32_t {
    UInt8 = 0,
    Int8 = 1,
    UInt16 = 2,
    Int16 = 3,
    UInt32 = 4,
    Int32 = 5,
    Float32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    UInt64 = 10,
    Int64 = 11,
    Float64 = 12,
};
std::string_view value_type_name(ValueType t);

struct Value;
struct Array {
    ValueType element_type = ValueType::UInt8;
    std::vector<Value> items;
};
struct Value {
    ValueType type = ValueType::UInt8;
    std::variant<uint64_t, int64_t, double, bool, std::string, Array> data; // integers widened
};

struct MetadataEntry {
    std::string key;
    Value value;
};

struct TensorInfo {
    std::string name;
    std::vector<int64_t> shape; // ne[0] first: shape[0] is the row length
    kernels::TensorType type = kernels::TensorType::F32;
    uint64_t offset = 0;             // from the start of the data section
    const std::byte* data = nullptr; // into the mapping
    size_t bytes = 0;
    int64_t elements() const;
};

// Gives the whole pages of [data, data + bytes) inside the mapping [mapping, mapping +
// mapping_bytes) back to the system (MADV_DONTNEED): a file mapping's bytes stay readable, read
// again from the file (or the page cache) if touched. Nothing outside the mapping is touched.
void release_mapped_pages(const void* mapping, size_t mapping_bytes, const void* data, size_t bytes);

class GgufFile {
public:
    // Maps and validates the file; throws hearth::Error("<path>: <problem>") on any defect.
    static std::shared_ptr<const GgufFile> open(const std::string& path);
    // The same, for a loader that frees what it has consumed (release_large_arrays) before it
    // shares the file.
    static std::shared_ptr<GgufFile> open_for_loading(const std::string& path);
    ~GgufFile();

    const std::string& path() const { return path_; }
    uint32_t version() const { return version_; }
    size_t alignment() const { return alignment_; }
    size_t file_size() const { return size_; }
    size_t data_offset() const { return data_offset_; } // start of the tensor data section in the file

    const std::vector<MetadataEntry>& metadata() const { return metadata_; }
    const Value* find(std::string_view key) const;
    // Typed lookups: nullopt when absent; throw hearth::Error when present with the wrong type.
    std::optional<std::string> get_string(std::string_view key) const;
    std::optional<int64_t> get_int(std::string_view key) const;  // any integer type
    std::optional<double> get_float(std::string_view key) const; // any numeric type
    std::optional<bool> get_bool(std::string_view key) const;
    const Array* get_array(std::string_view key) const;

    const std::vector<TensorInfo>& tensors() const { return tensors_; }
    const TensorInfo* find_tensor(std::string_view name) const;

    // Gives the pages of [data, data + bytes) inside the mapping back to the system (whole pages
    // only): for tensors copied elsewhere at load. Their bytes stay readable, read again from
    // the file if touched.
    void release_pages(const void* data, size_t bytes) const;
    // Frees the metadata arrays of more than kLargeArrayItems items (a vocabulary's tokens,
    // scores, types and merges: 26 MB for Llama 3's, held again by the tokenizer once it is
    // built) and gives back the pages of the metadata section. Afterwards get_array throws for
    // them, and find() shows them with no items.
    void release_large_arrays();
    static constexpr size_t kLargeArrayItems = 4096;

    // Throws hearth::Error naming this file: "<path>: <problem>".
    [[noreturn]] void fail(const std::string& problem) const;

private:
    GgufFile() = default;
    std::string path_;
    uint32_t version_ = 0;
    size_t alignment_ = 32;
    size_t size_ = 0;
    const std::byte* base_ = nullptr;
    std::vector<MetadataEntry> metadata_;
    std::vector<TensorInfo> tensors_;
    size_t data_offset_ = 0;

    // Name -> position, with lookup by string_view.
    struct NameHash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    using NameIndex = std::unordered_map<std::string, size_t, NameHash, std::equal_to<>>;
    NameIndex index_;
    NameIndex tensor_index_;
    std::vector<std::string> released_arrays_;
    friend class GgufParser;
};

} // namespace hearth::gguf
