// The CPU kernel table's Candidates, instantiated once, without any tier's flags (candidates.h).
#include "kernels/candidates_impl.h"
#include "kernels/kernel_table.h"

namespace hearth::kernels {

template class Candidates<GemmFn>;
template class Candidates<QuantizeRowFn>;
template class Candidates<DequantizeRowFn>;
template class Candidates<AttendFn>;
template class Candidates<SwigluFn>;
template class Candidates<GeluFn>;
template class Candidates<SoftmaxFn>;

} // namespace hearth::kernels
