#pragma once
// The definitions of Candidates' out-of-line members. Included only by the files that
// instantiate them, which are built without any tier's flags (candidates.cpp, the Vulkan
// table): see candidates.h.
#include "kernels/candidates.h"
#include <stdexcept>

namespace hearth::kernels {

template <class Fn> void Candidates<Fn>::put_first(std::initializer_list<Candidate<Fn>> own) {
    Candidate<Fn> all[2 * kCapacity];
    int n = 0;
    const auto append = [&](const Candidate<Fn>& c) {
        if (n == 2 * kCapacity) throw std::logic_error("kernel table: too many candidates for one operation");
        all[n++] = c;
    };
    // Repacked-row kernels first, each group in its order: own, then the tier below's.
    for (bool packed : {true, false}) {
        for (Candidate<Fn> c : own)
            if ((c.guard.layout != RowLayout::RowMajor) == packed) {
                c.id = kernel_id(c.name, c.backend);
                append(c);
            }
        for (int i = 0; i < size_; ++i)
            if ((items_[i].guard.layout != RowLayout::RowMajor) == packed) append(items_[i]);
    }
    size_ = 0;
    for (int i = 0; i < n; ++i) {
        bool reachable = true;
        for (int j = 0; j < size_ && reachable; ++j)
            reachable =
                items_[j].backend.device != all[i].backend.device || !items_[j].guard.covers(all[i].guard);
        if (!reachable) continue;
        if (size_ == kCapacity) throw std::logic_error("kernel table: too many candidates for one operation");
        items_[size_++] = all[i];
    }
}

template <class Fn> void Candidates<Fn>::remove(std::string_view name) {
    int kept = 0;
    for (int i = 0; i < size_; ++i)
        if (items_[i].name != name) items_[kept++] = items_[i];
    size_ = kept;
}

} // namespace hearth::kernels
