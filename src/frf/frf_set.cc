#include "frfit/frf/frf_set.h"

#include <cmath>

#include "frfit/common/error.h"

namespace frfit {

std::string EntryName(int entry) {
  static const char* kAxes = "xyz";
  return std::string(1, kAxes[entry / 3]) + kAxes[entry % 3];
}

void Validate(const FrfSet& set, const std::string& source) {
  const size_t lines = set.frequency_hz.size();
  if (lines == 0) throw Error(source, "frequency_hz", "expected at least one frequency line");
  if (set.H.size() != lines * 9)
    throw Error(source, "H", "expected " + std::to_string(lines) + "×3×3 values, got " +
                                 std::to_string(set.H.size()));
  bool any = false;
  for (bool p : set.present) any = any || p;
  if (!any) throw Error(source, "present", "expected at least one measured FRF entry");
  for (size_t k = 0; k < lines; ++k) {
    const double f = set.frequency_hz[k];
    if (!std::isfinite(f) || f < 0.0)
      throw Error(source, "frequency_hz[" + std::to_string(k) + "]",
                  "expected a finite frequency >= 0 Hz, got " + FormatDouble(f));
    if (k > 0 && !(f > set.frequency_hz[k - 1]))
      throw Error(source, "frequency_hz[" + std::to_string(k) + "]",
                  "expected strictly increasing frequencies, got " + FormatDouble(f) + " after " +
                      FormatDouble(set.frequency_hz[k - 1]));
  }
}

FrfSet ConvertFormat(const FrfSet& set, FrfFormat to) {
  FrfSet out = set;
  out.format = to;
  if (to == set.format) return out;
  const bool down = DerivativeOrder(to) < DerivativeOrder(set.format);
  for (int k = 0; k < set.num_lines(); ++k) {
    const double omega = 2.0 * M_PI * set.frequency_hz[k];
    if (down && omega == 0.0)
      throw Error("", "frequency_hz[" + std::to_string(k) + "]",
                  "cannot convert " + ToString(set.format) + " to " + ToString(to) + " at 0 Hz");
    const std::complex<double> factor = ConversionFactor(set.format, to, omega);
    for (int e = 0; e < 9; ++e) out.H[k * 9 + e] = set.H[k * 9 + e] * factor;
  }
  return out;
}

}  // namespace frfit
