#include "frfit/frf/frf_format.h"

#include "frfit/common/enum_names.h"

namespace frfit {

namespace {
constexpr std::pair<FrfFormat, const char*> kFormats[] = {{FrfFormat::kReceptance, "receptance"},
                                                          {FrfFormat::kMobility, "mobility"},
                                                          {FrfFormat::kInertance, "inertance"}};
}  // namespace

std::string ToString(FrfFormat format) { return EnumName(kFormats, format); }
bool FromString(const std::string& text, FrfFormat* format) {
  return EnumFromName(kFormats, text, format);
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
