#pragma once
// BPE merges by their pair of token ids, in one open-addressing table: a vocabulary has up to
// ~300k merges, which a node-based map allocated one by one at every load (~15% of a model's
// load and first token) and scattered over the heap for every merge step's lookup.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hearth::tokenizer {

class MergeTable {
public:
    struct Merge {
        int32_t rank;
        int32_t result; // the token the pair becomes
    };

    // Empties the table, with room for `count` merges at most half full.
    void reserve(size_t count) {
        slots_.assign(std::bit_ceil(std::max<size_t>(count * 2, 16)), Slot{});
        used_ = 0;
    }
    // Records the merge of (left, right) unless the pair has one already (the first rank wins).
    void insert(int32_t left, int32_t right, Merge merge) {
        if ((used_ + 1) * 2 > slots_.size()) grow();
        Slot& slot = slots_[index_of(key(left, right))];
        if (slot.key != kEmpty) return;
        slot = {key(left, right), merge};
        ++used_;
    }
    const Merge* find(int32_t left, int32_t right) const {
        if (slots_.empty()) return nullptr;
        const Slot& slot = slots_[index_of(key(left, right))];
        return slot.key == kEmpty ? nullptr : &slot.merge;
    }

private:
    static constexpr uint64_t kEmpty = ~uint64_t{0}; // ids are never negative
    struct Slot {
        uint64_t key = kEmpty;
        Merge merge{};
    };
    static uint64_t key(int32_t left, int32_t right) {
        return (uint64_t{static_cast<uint32_t>(left)} << 32) | static_cast<uint32_t>(right);
    }
    // The slot holding `k`, or the empty slot where it belongs.
    size_t index_of(uint64_t k) const {
        const size_t mask = slots_.size() - 1;
        const uint64_t h = k * 0x9E3779B97F4A7C15ull;
        for (size_t i = (h ^ (h >> 29)) & mask;; i = (i + 1) & mask)
            if (slots_[i].key == k || slots_[i].key == kEmpty) return i;
    }
    void grow() {
        std::vector<Slot> old = std::move(slots_);
        reserve(std::max<size_t>(old.size(), 8));
        for (const Slot& s : old)
            if (s.key != kEmpty) {
                slots_[index_of(s.key)] = s;
                ++used_;
            }
    }

    std::vector<Slot> slots_;
    size_t used_ = 0;
};

} // namespace hearth::tokenizer
