#include "frfit/frf/frf_format.h"

namespace frfit {

std::string ToString(FrfFormat format) {
  switch (format) {
    case FrfFormat::kReceptance: return "receptance";
    case FrfFormat::kMobility: return "mobility";
    case FrfFormat::kInertance: return "inertance";
  }
  return "unknown";
}

bool FromString(const std::string& text, FrfFormat* format) {
  if (text == "receptance") *format = FrfFormat::kReceptance;
  else if (text == "mobility") *format = FrfFormat::kMobility;
  else if (text == "inertance") *format = FrfFormat::kInertance;
  else return false;
  return true;
}

std::string UnitsOf(FrfFormat format) {
  switch (format) {
    case FrfFormat::kReceptance: return "m/N";
    case FrfFormat::kMobility: return "m/s/N";
    case FrfFormat::kInertance: return "m/s^2/N";
  }
  return "";
}

int DerivativeOrder(FrfFormat format) {
  switch (format) {
    case FrfFormat::kReceptance: return 0;
    case FrfFormat::kMobility: return 1;
    case FrfFormat::kInertance: return 2;
  }
  return 0;
}

std::complex<double> ConversionFactor(FrfFormat from, FrfFormat to, double omega_rad_s) {
  const int order = DerivativeOrder(to) - DerivativeOrder(from);
  const std::complex<double> i_omega(0.0, omega_rad_s);
  std::complex<double> factor(1.0, 0.0);
  for (int k = 0; k < order; ++k) factor *= i_omega;
  for (int k = 0; k > order; --k) factor /= i_omega;
  return factor;
}

}  // namespace frfit
