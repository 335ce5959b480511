#pragma once
// A conversation's KV state on disk, for instant resume: the cache's tokens and the
// keys/values of the positions in use, with enough identity to refuse a file that
// belongs to another model or template, and a checksum to refuse a damaged one.
//
// Layout (little-endian): "HKVS", version, model path, model file size, hash of the
// GGUF header and metadata bytes, template hash, n_layer, kv_width, n_ctx, storage
// format, the cache's key and value types (since version 2; version 1 files are F16 caches),
// token count, shift window (at, dropped tokens), tokens, then per layer the keys and the
// values of every used position (rows of the cache's own type; F16 rows become Q8_0 rows
// when the format says so), and last a 64-bit checksum of everything before it. A state
// restores only into a cache of the same types; any other refuses (the caller re-prefills).
#include "engine/forward/kv_cache.h"
#include "engine/model/content_hash.h"
#include "engine/model/model.h"
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::engine {

// What identifies a model file without reading its weights.
struct ModelIdentity {
    std::string path;
    uint64_t file_bytes = 0;
    uint64_t header_hash = 0; // of the bytes before the tensor data: header, metadata, tensor infos
};
ModelIdentity model_identity(const Model& model);

inline uint64_t hash_text(std::string_view text) {
    return hash_bytes(text.data(), text.size());
}

enum class KvStateFormat : uint32_t {
    F16 = 0,  // as stored in the cache (whatever its types): restores bit for bit
    Q8_0 = 1, // F16 parts of the cache saved as Q8_0, about half the size (they come back with
              // Q8_0's rounding); quantized parts as they are
};

struct KvStateIdentity {
    ModelIdentity model;
    uint64_t template_hash = 0; // hash of the chat template's source
};

// Writes the state atomically (a temporary file renamed over `path`). Throws
// hearth::Error naming the file when it cannot be written (e.g. a full disk).
// Q8_0 falls back to F16 when kv_width is not a multiple of 32.
void save_kv_state(const std::string& path, const KvCache& cache, const KvStateIdentity& identity,
                   KvStateFormat format = KvStateFormat::F16);

struct KvRestoreResult {
    bool restored = false;
    std::string reason; // why not, naming the file, when restored is false
    int32_t tokens = 0;
};

// Reads and checks the whole file before touching `cache`; on any mismatch or damage
// the cache is left as it was and the reason says what was wrong.
KvRestoreResult restore_kv_state(const std::string& path, KvCache& cache, const KvStateIdentity& expected,
                                 int32_t n_vocab);

// The tokens a saved state holds, read from its header alone (neither the keys and values nor
// the checksum are read: restore_kv_state checks those). Nothing when the file is not a state, or
// holds a shifted cache (its tokens are not a plain prefix of the conversation).
std::optional<std::vector<int32_t>> read_kv_state_tokens(const std::string& path);

} // namespace hearth::engine
