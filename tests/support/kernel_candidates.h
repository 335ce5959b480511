#pragma once
// The candidates of the kernel tables this CPU runs, each once, for the suites that test every
// kernel: a candidate a tier inherits from the tier below is the same kernel, tested once.
#include "kernels/kernel_table.h"

#include <QString>
#include <string>
#include <vector>

namespace hearth::test {

// Every distinct candidate (the same kernel under the same guard and format) of the lists that
// list_of(table) gives, over the tables of the tiers this CPU runs, lowest tier first.
template <class Fn, class ListOf> std::vector<kernels::Candidate<Fn>> distinct_candidates(ListOf list_of) {
    std::vector<kernels::Candidate<Fn>> out;
    for (kernels::Isa isa : kernels::kIsaTiers) {
        const kernels::KernelTable* table = kernels::kernels_for(isa);
        if (table == nullptr) continue;
        for (const kernels::Candidate<Fn>& c : list_of(*table)) {
            bool seen = false;
            for (const kernels::Candidate<Fn>& o : out)
                seen = seen || (o.fn == c.fn && o.activation_type == c.activation_type &&
                                o.guard.covers(c.guard) && c.guard.covers(o.guard));
            if (!seen) out.push_back(c);
        }
    }
    return out;
}

// "avx512 attend": the candidate's backend and name, for data rows.
template <class Fn> QString candidate_label(const kernels::Candidate<Fn>& c) {
    return QString::fromUtf8(kernels::backend_name(c.backend).data()) + " " +
           QString::fromUtf8(std::string(c.name).c_str());
}

// The tiers this CPU or build does not run, with the reasons ("" when it runs them all): what a
// suite reports as skipped.
inline QString tiers_not_run() {
    QString skipped;
    for (kernels::Isa isa : kernels::kIsaTiers)
        if (kernels::kernels_for(isa) == nullptr)
            skipped += QString("%1%2: %3")
                           .arg(skipped.isEmpty() ? "" : "; ", kernels::isa_name(isa).data(),
                                kernels::isa_unavailable_reason(isa).c_str());
    return skipped;
}

} // namespace hearth::test
