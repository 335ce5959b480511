#pragma once
// Writes GGUF v3 files: metadata, tensor infos, then aligned tensor data. Tensor
// data is either given whole or produced in chunks of rows while the file is
// written, so a large model never has to be held in memory.
#include "engine/gguf/gguf_file.h"
#include "kernels/tensor_type.h"
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::gguf {

// Fills rows [first_row, first_row + row_count) of a tensor into dst (row_count whole rows).
using TensorRowFiller = std::function<void(int64_t first_row, int64_t row_count, std::byte* dst)>;

class GgufWriter {
public:
    // Adds a metadata entry or replaces the value of an existing key (keeping its position).
    // Throws hearth::Error when the key is empty or the value is malformed.
    void set(const std::string& key, Value value);
    const Value* find(std::string_view key) const;
    bool remove(std::string_view key);
    const std::vector<MetadataEntry>& metadata() const { return metadata_; }

    // Stored as general.alignment (uint32); a power of two. 32 when never set.
    void set_alignment(size_t alignment);
    size_t alignment() const { return alignment_; }

    // Copies one entry from a read file; throws hearth::Error naming that file when it is absent.
    void copy(const GgufFile& from, std::string_view key);
    // Copies every entry whose key starts with prefix; returns how many.
    size_t copy_prefix(const GgufFile& from, std::string_view prefix);

    // shape[0] is the row length. Throws hearth::Error on a duplicate name, a bad shape,
    // or data whose size is not the tensor's.
    void add_tensor(const std::string& name, std::vector<int64_t> shape, kernels::TensorType type,
                    std::vector<std::byte> data);
    void add_tensor(const std::string& name, std::vector<int64_t> shape, kernels::TensorType type,
                    TensorRowFiller fill);
    // Adds a copy of every tensor of a read file (a file written again with edited metadata).
    void copy_tensors(const GgufFile& from);
    size_t tensor_count() const { return tensors_.size(); }
    // Upper bound of the bytes a filler produces per call (at least one row); 16 MiB by default.
    void set_fill_chunk_bytes(size_t bytes) { fill_chunk_bytes_ = bytes; }

    // Writes to path + ".partial" and renames it when complete, so a failed write never
    // leaves a truncated model under the real name. Throws hearth::Error("<path>: ...").
    void write(const std::string& path) const;

private:
    struct PendingTensor {
        std::string name;
        std::vector<int64_t> shape;
        kernels::TensorType type;
        size_t row_bytes = 0;
        int64_t rows = 0;
        std::vector<std::byte> data; // when given whole
        TensorRowFiller fill;        // otherwise
        size_t bytes() const { return row_bytes * static_cast<size_t>(rows); }
    };
    PendingTensor& declare_tensor(const std::string& name, std::vector<int64_t> shape,
                                  kernels::TensorType type);

    std::vector<MetadataEntry> metadata_;
    std::vector<PendingTensor> tensors_;
    size_t alignment_ = 32;
    size_t fill_chunk_bytes_ = size_t{16} << 20;
};

} // namespace hearth::gguf
