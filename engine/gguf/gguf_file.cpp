// GGUF layout (little-endian): magic "GGUF", u32 version, u64 tensor count,
// u64 metadata count, the metadata entries, the tensor infos, padding to the
// alignment, then the tensor data. Every read below is bounds-checked against
// the mapping, so a hostile file can only produce an Error.
#include "engine/gguf/gguf_file.h"
#include "engine/error.h"
#include "engine/gguf/gguf_limits.h"
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_set>

namespace hearth::gguf {

namespace {

constexpr uint32_t kMinVersion = 2;
constexpr uint32_t kMaxVersion = 3;
constexpr size_t kDefaultAlignment = 32;

// Smallest encodings, used to reject counts that could not fit in the bytes left.
constexpr uint64_t kMinStringBytes = 8;                         // length field only
constexpr uint64_t kMinEntryBytes = 8 + 1 + 4 + 1;              // non-empty key, type, smallest value
constexpr uint64_t kMinTensorInfoBytes = 8 + 1 + 4 + 8 + 4 + 8; // non-empty name, one dim, type, offset

// Bytes of the smallest encoding of one value of this type.
uint64_t min_value_bytes(ValueType type) {
    switch (type) {
    case ValueType::UInt8:
    case ValueType::Int8:
    case ValueType::Bool:
        return 1;
    case ValueType::UInt16:
    case ValueType::Int16:
        return 2;
    case ValueType::UInt32:
    case ValueType::Int32:
    case ValueType::Float32:
        return 4;
    case ValueType::UInt64:
    case ValueType::Int64:
    case ValueType::Float64:
        return 8;
    case ValueType::String:
        return kMinStringBytes;
    case ValueType::Array:
        return 4 + 8; // element type and count of an empty array
    }
    return 1;
}

bool is_known_value_type(uint32_t raw) {
    return raw <= static_cast<uint32_t>(ValueType::Float64);
}

bool is_power_of_two(uint64_t v) {
    return v != 0 && (v & (v - 1)) == 0;
}

std::string quoted(std::string_view s) {
    return "'" + std::string(s) + "'";
}

// Closes a file descriptor on every path out of open().
struct FdGuard {
    int fd = -1;
    ~FdGuard() {
        if (fd >= 0) ::close(fd);
    }
};

} // namespace

std::string_view value_type_name(ValueType t) {
    switch (t) {
    case ValueType::UInt8:
        return "uint8";
    case ValueType::Int8:
        return "int8";
    case ValueType::UInt16:
        return "uint16";
    case ValueType::Int16:
        return "int16";
    case ValueType::UInt32:
        return "uint32";
    case ValueType::Int32:
        return "int32";
    case ValueType::Float32:
        return "float32";
    case ValueType::Bool:
        return "bool";
    case ValueType::String:
        return "string";
    case ValueType::Array:
        return "array";
    case ValueType::UInt64:
        return "uint64";
    case ValueType::Int64:
        return "int64";
    case ValueType::Float64:
        return "float64";
    }
    return "unknown";
}

int64_t TensorInfo::elements() const {
    int64_t n = 1;
    for (int64_t d : shape)
        n *= d;
    return n;
}

// Reads the mapped bytes into a GgufFile. Positions are offsets from the start of the file.
class GgufParser {
public:
    explicit GgufParser(GgufFile& file) : file_(file), base_(file.base_), size_(file.size_) {}

    void parse() {
        parse_header();
        parse_metadata();
        apply_alignment();
        parse_tensor_infos();
        place_tensor_data();
    }

private:
    GgufFile& file_;
    const std::byte* base_;
    size_t size_;
    size_t pos_ = 0;
    uint64_t tensor_count_ = 0;
    uint64_t entry_count_ = 0;
    uint64_t array_elements_ = 0; // over all metadata arrays, to bound memory

    size_t remaining() const { return size_ - pos_; }

    [[noreturn]] void truncated(const std::string& what) const {
        file_.fail("truncated file: it ends inside " + what + " (at byte " + std::to_string(pos_) + " of " +
                   std::to_string(size_) + ")");
    }

    template <typename T> T read(const std::string& what) {
        if (remaining() < sizeof(T)) truncated(what);
        T value;
        std::memcpy(&value, base_ + pos_, sizeof(T));
        pos_ += sizeof(T);
        return value;
    }

    std::string read_string(const std::string& what) {
        const uint64_t length = read<uint64_t>("the length of " + what);
        if (length > remaining())
            file_.fail("length " + std::to_string(length) + " of " + what +
                       " runs past the end of the file (" + std::to_string(remaining()) +
                       " bytes left; truncated or corrupt)");
        std::string s(reinterpret_cast<const char*>(base_ + pos_), static_cast<size_t>(length));
        pos_ += static_cast<size_t>(length);
        return s;
    }

    void parse_header() {
        if (size_ < 4) truncated("the magic number");
        if (std::memcmp(base_, "GGUF", 4) != 0) {
            std::string found;
            for (int i = 0; i < 4; ++i) {
                const auto c = static_cast<unsigned char>(base_[i]);
                found += (c >= 32 && c < 127) ? std::string(1, static_cast<char>(c)) : "\\x" + hex_byte(c);
            }
            file_.fail("not a GGUF file (bad magic \"" + found + "\", expected \"GGUF\")");
        }
        pos_ = 4;
        const uint32_t version = read<uint32_t>("the version");
        if (version == 1)
            file_.fail("GGUF version 1 is not supported (an obsolete format; convert the model again)");
        if (version >= 0x01000000 && (version & 0xFFFF) == 0)
            file_.fail("unsupported GGUF version " + std::to_string(version) +
                       " (the file looks big-endian; only little-endian files are supported)");
        if (version < kMinVersion || version > kMaxVersion)
            file_.fail("unsupported GGUF version " + std::to_string(version) + " (supported: 2 and 3)");
        file_.version_ = version;

        tensor_count_ = read<uint64_t>("the tensor count");
        entry_count_ = read<uint64_t>("the metadata count");
        if (entry_count_ > remaining() / kMinEntryBytes)
            file_.fail("metadata count " + std::to_string(entry_count_) + " cannot fit in a file of " +
                       std::to_string(size_) + " bytes (truncated or corrupt)");
        if (tensor_count_ > remaining() / kMinTensorInfoBytes)
            file_.fail("tensor count " + std::to_string(tensor_count_) + " cannot fit in a file of " +
                       std::to_string(size_) + " bytes (truncated or corrupt)");
    }

    static std::string hex_byte(unsigned char c) {
        const char* digits = "0123456789abcdef";
        return {digits[c >> 4], digits[c & 15]};
    }

    void parse_metadata() {
        file_.metadata_.reserve(static_cast<size_t>(entry_count_));
        std::unordered_set<std::string> keys;
        for (uint64_t i = 0; i < entry_count_; ++i) {
            const std::string where = "metadata entry " + std::to_string(i);
            MetadataEntry entry;
            entry.key = read_string("the key of " + where);
            if (entry.key.empty()) file_.fail(where + " has an empty key");
            if (!keys.insert(entry.key).second) file_.fail("duplicate metadata key " + quoted(entry.key));
            const std::string context = "metadata key " + quoted(entry.key);
            const uint32_t raw_type = read<uint32_t>("the value type of " + context);
            entry.value = read_value(raw_type, context, 0);
            file_.metadata_.push_back(std::move(entry));
        }
        for (size_t i = 0; i < file_.metadata_.size(); ++i)
            file_.index_.emplace(file_.metadata_[i].key, i);
    }

    ValueType checked_type(uint32_t raw_type, const std::string& context) const {
        if (!is_known_value_type(raw_type))
            file_.fail(context + " has unknown value type " + std::to_string(raw_type));
        return static_cast<ValueType>(raw_type);
    }

    Value read_value(uint32_t raw_type, const std::string& context, int depth) {
        const ValueType type = checked_type(raw_type, context);
        Value v;
        v.type = type;
        const std::string what = "the value of " + context;
        switch (type) {
        case ValueType::UInt8:
            v.data = uint64_t{read<uint8_t>(what)};
            break;
        case ValueType::Int8:
            v.data = int64_t{read<int8_t>(what)};
            break;
        case ValueType::UInt16:
            v.data = uint64_t{read<uint16_t>(what)};
            break;
        case ValueType::Int16:
            v.data = int64_t{read<int16_t>(what)};
            break;
        case ValueType::UInt32:
            v.data = uint64_t{read<uint32_t>(what)};
            break;
        case ValueType::Int32:
            v.data = int64_t{read<int32_t>(what)};
            break;
        case ValueType::UInt64:
            v.data = read<uint64_t>(what);
            break;
        case ValueType::Int64:
            v.data = read<int64_t>(what);
            break;
        case ValueType::Float32:
            v.data = double{read<float>(what)};
            break;
        case ValueType::Float64:
            v.data = read<double>(what);
            break;
        case ValueType::Bool: {
            const uint8_t b = read<uint8_t>(what);
            if (b > 1) file_.fail(context + " has an invalid bool value " + std::to_string(b));
            v.data = b == 1;
            break;
        }
        case ValueType::String:
            v.data = read_string(what);
            break;
        case ValueType::Array:
            v.data = read_array(context, depth);
            break;
        }
        return v;
    }

    Array read_array(const std::string& context, int depth) {
        if (depth >= kMaxArrayDepth)
            file_.fail(context + " nests arrays more than " + std::to_string(kMaxArrayDepth) + " deep");
        Array array;
        array.element_type = checked_type(read<uint32_t>("the array element type of " + context), context);
        const uint64_t count = read<uint64_t>("the array length of " + context);
        if (count > remaining() / min_value_bytes(array.element_type))
            file_.fail(context + " has array length " + std::to_string(count) +
                       ", which runs past the end of " + "the file (" + std::to_string(remaining()) +
                       " bytes left; truncated or corrupt)");
        array_elements_ += count;
        if (array_elements_ > kMaxMetadataArrayElements)
            file_.fail(context + ": metadata arrays hold more than " +
                       std::to_string(kMaxMetadataArrayElements) +
                       " elements in all, too many for a model file");
        array.items.reserve(static_cast<size_t>(count));
        for (uint64_t i = 0; i < count; ++i)
            array.items.push_back(read_value(static_cast<uint32_t>(array.element_type), context, depth + 1));
        return array;
    }

    void apply_alignment() {
        const Value* v = file_.find("general.alignment");
        if (!v) {
            file_.alignment_ = kDefaultAlignment;
            return;
        }
        uint64_t alignment = 0;
        if (const auto* u = std::get_if<uint64_t>(&v->data))
            alignment = *u;
        else if (const auto* s = std::get_if<int64_t>(&v->data); s && *s > 0)
            alignment = static_cast<uint64_t>(*s);
        else if (!std::holds_alternative<int64_t>(v->data))
            file_.fail("general.alignment has type " + std::string(value_type_name(v->type)) +
                       ", expected an integer");
        if (!is_power_of_two(alignment) || alignment > kMaxAlignment)
            file_.fail("bad alignment: general.alignment = " + std::to_string(alignment) +
                       " is not a power of two between 1 and " + std::to_string(kMaxAlignment));
        file_.alignment_ = static_cast<size_t>(alignment);
    }

    void parse_tensor_infos() {
        file_.tensors_.reserve(static_cast<size_t>(tensor_count_));
        std::unordered_set<std::string> names;
        for (uint64_t i = 0; i < tensor_count_; ++i) {
            const std::string where = "tensor info " + std::to_string(i);
            TensorInfo t;
            t.name = read_string("the name of " + where);
            if (t.name.empty()) file_.fail(where + " has an empty name");
            if (!names.insert(t.name).second) file_.fail("duplicate tensor name " + quoted(t.name));
            const std::string context = "tensor " + quoted(t.name);

            const uint32_t n_dims = read<uint32_t>("the dimension count of " + context);
            if (n_dims == 0 || n_dims > kMaxDims)
                file_.fail(context + " has " + std::to_string(n_dims) + " dimensions (expected 1 to " +
                           std::to_string(kMaxDims) + ")");
            for (uint32_t d = 0; d < n_dims; ++d) {
                const uint64_t dim = read<uint64_t>("the dimensions of " + context);
                if (dim == 0)
                    file_.fail(context + " has a zero dimension (dimension " + std::to_string(d) + ")");
                if (dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
                    file_.fail(context + " dimension " + std::to_string(d) + " = " + std::to_string(dim) +
                               " overflows");
                t.shape.push_back(static_cast<int64_t>(dim));
            }

            const uint32_t raw_type = read<uint32_t>("the type of " + context);
            const auto traits = kernels::type_traits(raw_type);
            if (!traits) file_.fail(context + " has unknown tensor type id " + std::to_string(raw_type));
            t.type = traits->type;
            t.offset = read<uint64_t>("the data offset of " + context);
            t.bytes = checked_bytes(t, *traits, context);
            file_.tensors_.push_back(std::move(t));
        }
        for (size_t i = 0; i < file_.tensors_.size(); ++i)
            file_.tensor_index_.emplace(file_.tensors_[i].name, i);
    }

    // Bytes of the tensor's data, refusing shapes whose size overflows or splits a block.
    size_t checked_bytes(const TensorInfo& t, const kernels::TypeTraits& traits,
                         const std::string& context) const {
        const uint64_t row = static_cast<uint64_t>(t.shape[0]);
        const uint64_t block = static_cast<uint64_t>(traits.block_elements);
        if (row % block != 0)
            file_.fail(context + " has rows of " + std::to_string(row) + " elements, not a multiple of the " +
                       std::to_string(block) + "-element block of type " + std::string(traits.name));
        // A size past 2^62 bytes is corrupt whatever the file; one merely past this file's end is
        // what a cut-off download gives, and place_tensor_data says so, with the offsets.
        constexpr uint64_t kLimit = uint64_t{1} << 62;
        uint64_t bytes = row / block;
        auto multiply = [&](uint64_t factor) {
            if (factor != 0 && bytes > kLimit / factor)
                file_.fail(context + " is too large: its dimensions overflow 2^62 bytes (corrupt)");
            bytes *= factor;
        };
        multiply(traits.block_bytes);
        uint64_t elements = row;
        for (size_t d = 1; d < t.shape.size(); ++d) {
            const auto dim = static_cast<uint64_t>(t.shape[d]);
            multiply(dim);
            elements = elements > std::numeric_limits<uint64_t>::max() / dim ? 0 : elements * dim;
        }
        if (elements == 0 || elements > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            file_.fail(context + " dimensions overflow: the element count does not fit in 64 bits");
        return static_cast<size_t>(bytes);
    }

    void place_tensor_data() {
        const size_t alignment = file_.alignment_;
        // pos_ <= size_, and alignment is at most kMaxAlignment, so this cannot overflow.
        const size_t data_start = (pos_ + alignment - 1) / alignment * alignment;
        file_.data_offset_ = data_start;
        if (file_.tensors_.empty()) return; // vocab-only files may end without a data section
        if (data_start > size_)
            file_.fail("truncated file: the tensor data section would start at byte " +
                       std::to_string(data_start) + ", past the end of the file (" + std::to_string(size_) +
                       " bytes)");
        const size_t data_size = size_ - data_start;

        for (auto& t : file_.tensors_) {
            const std::string context = "tensor " + quoted(t.name);
            if (t.offset % alignment != 0)
                file_.fail(context + " has misaligned data offset " + std::to_string(t.offset) +
                           " (not a multiple of the alignment " + std::to_string(alignment) + ")");
            if (t.offset > data_size || t.bytes > data_size - t.offset)
                file_.fail(context + " data (offset " + std::to_string(t.offset) + ", " +
                           std::to_string(t.bytes) +
                           " bytes) lies outside the file (truncated or corrupt; the data section holds " +
                           std::to_string(data_size) + " bytes)");
            t.data = base_ + data_start + t.offset;
        }

        std::vector<const TensorInfo*> by_offset;
        by_offset.reserve(file_.tensors_.size());
        for (const auto& t : file_.tensors_)
            by_offset.push_back(&t);
        std::sort(by_offset.begin(), by_offset.end(),
                  [](const TensorInfo* a, const TensorInfo* b) { return a->offset < b->offset; });
        for (size_t i = 1; i < by_offset.size(); ++i) {
            const TensorInfo& prev = *by_offset[i - 1];
            const TensorInfo& next = *by_offset[i];
            if (prev.offset + prev.bytes > next.offset)
                file_.fail("tensors " + quoted(prev.name) + " and " + quoted(next.name) +
                           " overlap in the data");
        }
    }
};

std::shared_ptr<const GgufFile> GgufFile::open(const std::string& path) {
    return open_for_loading(path);
}

std::shared_ptr<GgufFile> GgufFile::open_for_loading(const std::string& path) {
    std::shared_ptr<GgufFile> file(new GgufFile());
    file->path_ = path;

    FdGuard fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (fd.fd < 0) file->fail(std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd.fd, &st) != 0) file->fail(std::string("cannot stat: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) file->fail("not a regular file");
    if (st.st_size == 0) file->fail("the file is empty, not a GGUF model");
    file->size_ = static_cast<size_t>(st.st_size);

    void* mapping = ::mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd.fd, 0);
    if (mapping == MAP_FAILED) file->fail(std::string("cannot map the file: ") + std::strerror(errno));
    file->base_ = static_cast<const std::byte*>(mapping);

    GgufParser(*file).parse();
    return file;
}

GgufFile::~GgufFile() {
    if (base_) ::munmap(const_cast<std::byte*>(base_), size_);
}

void release_mapped_pages(const void* mapping, size_t mapping_bytes, const void* data, size_t bytes) {
    const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<uintptr_t>(data);
    const uintptr_t first = (begin + page - 1) / page * page, last = (begin + bytes) / page * page;
    const auto mapped = reinterpret_cast<uintptr_t>(mapping);
    if (first < mapped || last > mapped + mapping_bytes || last <= first) return;
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

void GgufFile::release_pages(const void* data, size_t bytes) const {
    release_mapped_pages(base_, size_, data, bytes);
}

void GgufFile::release_large_arrays() {
    for (MetadataEntry& entry : metadata_) {
        auto* array = std::get_if<Array>(&entry.value.data);
        if (!array || array->items.size() <= kLargeArrayItems) continue;
        std::vector<Value>().swap(array->items);
        released_arrays_.push_back(entry.key);
    }
    // Every value left is a copy; the section is read again from the file if anything touches it.
    release_pages(base_, data_offset_);
}

void GgufFile::fail(const std::string& problem) const {
    throw Error(path_ + ": " + problem);
}

const Value* GgufFile::find(std::string_view key) const {
    const auto it = index_.find(key);
    return it == index_.end() ? nullptr : &metadata_[it->second].value;
}

namespace {
std::string type_mismatch(std::string_view key, const Value& v, const char* expected) {
    return "metadata key '" + std::string(key) + "' has type " + std::string(value_type_name(v.type)) +
           ", expected " + expected;
}
} // namespace

std::optional<std::string> GgufFile::get_string(std::string_view key) const {
    const Value* v = find(key);
    if (!v) return std::nullopt;
    if (const auto* s = std::get_if<std::string>(&v->data)) return *s;
    fail(type_mismatch(key, *v, "a string"));
}

std::optional<int64_t> GgufFile::get_int(std::string_view key) const {
    const Value* v = find(key);
    if (!v) return std::nullopt;
    if (const auto* s = std::get_if<int64_t>(&v->data)) return *s;
    if (const auto* u = std::get_if<uint64_t>(&v->data)) {
        if (*u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            fail("metadata key '" + std::string(key) + "' value " + std::to_string(*u) + " is out of range");
        return static_cast<int64_t>(*u);
    }
    fail(type_mismatch(key, *v, "an integer"));
}

std::optional<double> GgufFile::get_float(std::string_view key) const {
    const Value* v = find(key);
    if (!v) return std::nullopt;
    if (const auto* d = std::get_if<double>(&v->data)) return *d;
    if (const auto* s = std::get_if<int64_t>(&v->data)) return static_cast<double>(*s);
    if (const auto* u = std::get_if<uint64_t>(&v->data)) return static_cast<double>(*u);
    fail(type_mismatch(key, *v, "a number"));
}

std::optional<bool> GgufFile::get_bool(std::string_view key) const {
    const Value* v = find(key);
    if (!v) return std::nullopt;
    if (const auto* b = std::get_if<bool>(&v->data)) return *b;
    fail(type_mismatch(key, *v, "a bool"));
}

const Array* GgufFile::get_array(std::string_view key) const {
    const Value* v = find(key);
    if (!v) return nullptr;
    if (std::find(released_arrays_.begin(), released_arrays_.end(), key) != released_arrays_.end())
        fail("metadata array " + std::string(key) + " was released after the model loaded");
    if (const auto* a = std::get_if<Array>(&v->data)) return a;
    fail(type_mismatch(key, *v, "an array"));
}

const TensorInfo* GgufFile::find_tensor(std::string_view name) const {
    const auto it = tensor_index_.find(name);
    return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

} // namespace hearth::gguf
