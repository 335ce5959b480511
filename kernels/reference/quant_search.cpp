#include "kernels/reference/quant_search.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace hearth::kernels {
namespace {

constexpr float kAllZero = 1e-15f; // groups below this magnitude quantize to zero
constexpr int kMaxGroup = 32;      // the K-quants search groups of 16 or 32 values

int clamp_int(int v, int lo, int hi) {
    return std::min(hi, std::max(lo, v));
}

// The value of largest magnitude, with its sign.
float signed_extreme(int n, const float* x) {
    float extreme = 0, magnitude = 0;
    for (int i = 0; i < n; ++i) {
        if (std::fabs(x[i]) > magnitude) {
            magnitude = std::fabs(x[i]);
            extreme = x[i];
        }
    }
    return extreme;
}

} // namespace

float fit_scale_and_min(int n, int nmax, const float* x, const float* weights, uint8_t* L, float* min,
                        float rmin, float rdelta, int nstep, bool use_mad) {
    assert(n <= kMaxGroup);
    float lo = x[0], hi = x[0];
    float sum_w = 0, sum_wx = 0;
    for (int i = 0; i < n; ++i) {
        lo = std::min(lo, x[i]);
        hi = std::max(hi, x[i]);
        sum_w += weights[i];
        sum_wx += weights[i] * x[i];
    }
    lo = std::min(lo, 0.f); // the offset only ever lowers the grid: min is stored as a non-negative number
    if (hi == lo) {
        std::fill(L, L + n, uint8_t{0});
        *min = -lo;
        return 0.f;
    }
    const auto error_of = [use_mad](float diff) { return use_mad ? std::fabs(diff) : diff * diff; };

    // Start from the plain min/max grid.
    float inverse = nmax / (hi - lo);
    float scale = 1 / inverse;
    float best_error = 0;
    for (int i = 0; i < n; ++i) {
        L[i] = static_cast<uint8_t>(clamp_int(nearest_int(inverse * (x[i] - lo)), 0, nmax));
        best_error += weights[i] * error_of(scale * L[i] + lo - x[i]);
    }

    uint8_t trial[kMaxGroup];
    const int n_trials = nstep > 0 ? nstep + 1 : 0;
    for (int step = 0; step < n_trials; ++step) {
        if (hi - lo <= 0) break;
        inverse = (rmin + rdelta * step + nmax) / (hi - lo);
        float sum_l = 0, sum_l2 = 0, sum_xl = 0;
        for (int i = 0; i < n; ++i) {
            const int l = clamp_int(nearest_int(inverse * (x[i] - lo)), 0, nmax);
            trial[i] = static_cast<uint8_t>(l);
            sum_l += weights[i] * l;
            sum_l2 += weights[i] * l * l;
            sum_xl += weights[i] * l * x[i];
        }
        // Weighted least squares of x ~ s * l + m for these quants.
        const float det = sum_w * sum_l2 - sum_l * sum_l;
        if (det <= 0) continue;
        float trial_scale = (sum_w * sum_xl - sum_wx * sum_l) / det;
        float trial_offset = (sum_l2 * sum_wx - sum_l * sum_xl) / det;
        if (trial_offset > 0) { // a positive offset cannot be stored: refit the scale alone
            trial_offset = 0;
            trial_scale = sum_xl / sum_l2;
        }
        float error = 0;
        for (int i = 0; i < n; ++i)
            error += weights[i] * error_of(trial_scale * trial[i] + trial_offset - x[i]);
        if (error < best_error) {
            std::copy(trial, trial + n, L);
            best_error = error;
            scale = trial_scale;
            lo = trial_offset;
        }
    }
    *min = -lo;
    return scale;
}

float fit_symmetric_scale(int n, int nmax, const float* x, int8_t* L) {
    const float extreme = signed_extreme(n, x);
    if (std::fabs(extreme) < kAllZero) {
        std::fill(L, L + n, int8_t{0});
        return 0.f;
    }
    // Weighted by x^2: the sums of w*x*l and w*l*l for the grid nmax' / extreme.
    const auto sums_for = [&](float inverse, float& sum_lx, float& sum_l2) {
        sum_lx = sum_l2 = 0;
        for (int i = 0; i < n; ++i) {
            const int l = clamp_int(nearest_int(inverse * x[i]), -nmax, nmax - 1);
            const float w = x[i] * x[i];
            sum_lx += w * x[i] * l;
            sum_l2 += w * l * l;
        }
    };
    const auto store = [&](float inverse) {
        for (int i = 0; i < n; ++i)
            L[i] = static_cast<int8_t>(nmax + clamp_int(nearest_int(inverse * x[i]), -nmax, nmax - 1));
    };

    float inverse = -nmax / extreme;
    float sum_lx, sum_l2;
    sums_for(inverse, sum_lx, sum_l2);
    store(inverse);
    float scale = sum_l2 > 0 ? sum_lx / sum_l2 : 0.f;
    // The least-squares error falls as sum_lx^2 / sum_l2 rises; try grids slightly finer and coarser.
    float best = scale * sum_lx;
    for (int step = -9; step <= 9; ++step) {
        if (step == 0) continue;
        inverse = -(nmax + 0.1f * step) / extreme;
        sums_for(inverse, sum_lx, sum_l2);
        if (sum_l2 > 0 && sum_lx * sum_lx > best * sum_l2) {
            store(inverse);
            scale = sum_lx / sum_l2;
            best = scale * sum_lx;
        }
    }
    return scale;
}

float fit_symmetric_scale_iterative(int n, int nmax, const float* x, int8_t* L) {
    assert(n <= kMaxGroup);
    const float extreme = signed_extreme(n, x);
    if (std::fabs(extreme) < kAllZero) {
        std::fill(L, L + n, int8_t{0});
        return 0.f;
    }
    const float inverse = -nmax / extreme;
    int q[kMaxGroup];
    float sum_lx = 0, sum_l2 = 0;
    for (int i = 0; i < n; ++i) {
        q[i] = clamp_int(nearest_int(inverse * x[i]), -nmax, nmax - 1);
        const float w = x[i] * x[i];
        sum_lx += w * x[i] * q[i];
        sum_l2 += w * q[i] * q[i];
    }
    // Move one quant at a time to its best value given the others, while that helps.
    for (int pass = 0; pass < 5; ++pass) {
        bool changed = false;
        for (int i = 0; i < n; ++i) {
            const float w = x[i] * x[i];
            float others_lx = sum_lx - w * x[i] * q[i];
            if (others_lx <= 0) continue;
            float others_l2 = sum_l2 - w * q[i] * q[i];
            const int candidate = clamp_int(nearest_int(x[i] * others_l2 / others_lx), -nmax, nmax - 1);
            if (candidate == q[i]) continue;
            others_lx += w * x[i] * candidate;
            others_l2 += w * candidate * candidate;
            if (others_l2 > 0 && others_lx * others_lx * sum_l2 > sum_lx * sum_lx * others_l2) {
                q[i] = candidate;
                sum_lx = others_lx;
                sum_l2 = others_l2;
                changed = true;
            }
        }
        if (!changed) break;
    }
    for (int i = 0; i < n; ++i)
        L[i] = static_cast<int8_t>(q[i] + nmax);
    return sum_l2 > 0 ? sum_lx / sum_l2 : 0.f;
}

} // namespace hearth::kernels
