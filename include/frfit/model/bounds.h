// Bounds: the initial value and search box of one fitted parameter.
#pragma once

namespace frfit {

// Initial value and search bounds of one elastic parameter, in SI units.
struct Bounds {
  double initial = 0.0;
  double min = 0.0;
  double max = 0.0;
};

}  // namespace frfit
