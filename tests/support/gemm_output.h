#pragma once
// Checks a gemm kernel's output y, max_batch rows of y_stride floats filled with NaN before the
// call, for weight rows [first, first + rows) and activation rows [0, batch): every element
// outside that tile still NaN (the kernel wrote nothing there), every one inside as
// check_inside(b, r, got) says (an empty string when right, else what is wrong). Returns the
// first failure, naming where it is, or an empty string.
#include <QString>
#include <cmath>
#include <cstdint>
#include <vector>

namespace hearth::test {

template <class CheckInside>
QString gemm_output_failure(const std::vector<float>& y, int64_t y_stride, int max_batch, int first, int rows,
                            int batch, CheckInside&& check_inside) {
    // Formatted only on failure: the tests check a million outputs.
    const auto where = [&](int b, int64_t r) {
        return QString(": rows [%1, %2), batch %3, at (row %4, activation %5)")
            .arg(first)
            .arg(first + rows)
            .arg(batch)
            .arg(r)
            .arg(b);
    };
    for (int b = 0; b < max_batch; ++b)
        for (int64_t r = 0; r < y_stride; ++r) {
            const float got = y[static_cast<size_t>(b * y_stride + r)];
            if (b >= batch || r < first || r >= first + rows) {
                if (!std::isnan(got)) return "wrote outside its tile" + where(b, r);
                continue;
            }
            const QString wrong = check_inside(b, static_cast<int>(r), got);
            if (!wrong.isEmpty()) return wrong + where(b, r);
        }
    return {};
}

} // namespace hearth::test
