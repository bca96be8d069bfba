// The one reduction order both backends use (DESIGN.md §3: fixed order, no atomics):
// pairwise, in place, widths 1, 2, 4, ...: v[i] += v[i + w] for every i that is a multiple of 2w.
// A GPU block reproduces it with the textbook shared-memory tree; the host runs the same loops.
#pragma once

#include "frfit/common/host_device.h"

namespace frfit::kernels {

// Destroys `values`; returns their sum (0 for n = 0).
FRFIT_HOST_DEVICE FRFIT_INLINE double TreeSum(double* values, int n) {
  if (n <= 0) return 0.0;
  for (int width = 1; width < n; width *= 2)
    for (int i = 0; i + width < n; i += 2 * width) values[i] += values[i + width];
  return values[0];
}

}  // namespace frfit::kernels
