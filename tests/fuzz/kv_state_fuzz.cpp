// Fuzz target: the saved-KV-state reader (restore_kv_state). The first byte picks the cache's
// types and whether to fix the checksum up (else almost every mutation stops at it); the rest
// is the file. A state either restores whole or is refused with a reason, leaving the cache
// as it was; no exception, no crash.
#include "engine/error.h"
#include "engine/session/kv_state_file.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/kv_state_fuzz_shape.h"
#include <cstring>
#include <vector>

using namespace hearth;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const uint8_t options = data[0];
    std::vector<uint8_t> file(data + 1, data + size);
    if ((options & fuzz::kFixChecksum) && file.size() >= 8) {
        const uint64_t checksum = engine::hash_bytes(file.data(), file.size() - 8);
        std::memcpy(file.data() + file.size() - 8, &checksum, 8);
    }
    static fuzz::MemoryFile memory;
    const std::string path = memory.write(file.data(), file.size());

    engine::KvCache cache(fuzz::kv_state_hparams(), fuzz::kKvStateContext, fuzz::kv_state_types(options));
    const std::vector<int32_t> before = {1, 2, 3};
    cache.set_tokens(before);
    const engine::KvRestoreResult result =
        engine::restore_kv_state(path, cache, fuzz::kv_state_identity(), fuzz::kKvStateVocab);
    if (!result.restored) {
        if (result.reason.empty()) fuzz::invariant_failed("a refusal without a reason");
        if (cache.tokens() != before) fuzz::invariant_failed("a refused state changed the cache");
        return 0;
    }
    if (result.tokens != cache.size()) fuzz::invariant_failed("restored token count differs from the cache");
    // Negative ids are image positions (KvCache::is_image_position); the others are tokens.
    for (const int32_t id : cache.logical_tokens())
        if (id >= fuzz::kKvStateVocab) fuzz::invariant_failed("a restored token outside the vocabulary");
    std::vector<float> row(static_cast<size_t>(cache.kv_width()));
    for (int32_t layer = 0; layer < cache.n_layer(); ++layer)
        for (int32_t pos = 0; pos < cache.size(); ++pos)
            for (const auto part : {engine::KvCache::Part::Keys, engine::KvCache::Part::Values})
                cache.read_row_f32(part, layer, pos, row.data());
    return 0;
}
