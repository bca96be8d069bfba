// ParameterSpace maps and validation, and the unit-interval reflection (see parameter_space.h).
//
// The physical values use libm's pow/log. That is fine for the determinism contract: the maps run
// once on the host and the evaluator backends receive the same physical bits.
#include "frfit/optim/parameter_space.h"

#include <cmath>

#include "frfit/common/enum_names.h"
#include "frfit/common/error.h"

namespace frfit {
namespace {

std::string Describe(int i, const ParameterBounds& b) {
  std::string out = "parameter " + std::to_string(i);
  if (!b.name.empty()) out += " (" + b.name + ")";
  return out;
}

double Clamp01(double u) { return u < 0.0 ? 0.0 : (u > 1.0 ? 1.0 : u); }

void CheckPacked(std::size_t from, std::size_t to, int dim) {
  if (from != to) {
    throw Error("ParameterSpace: expected output size " + std::to_string(from) + ", got " +
                std::to_string(to));
  }
  if (dim == 0 ? from != 0 : from % static_cast<std::size_t>(dim) != 0) {
    throw Error("ParameterSpace: expected a multiple of " + std::to_string(dim) +
                " values ([point][param]), got " + std::to_string(from));
  }
}

}  // namespace

constexpr std::pair<ParameterScale, const char*> kScales[] = {{ParameterScale::kLog, "log"},
                                                              {ParameterScale::kLinear, "linear"}};

std::string ToString(ParameterScale scale) { return EnumName(kScales, scale); }
bool FromString(const std::string& text, ParameterScale* scale) {
  return EnumFromName(kScales, text, scale);
}

void ParameterSpace::Add(std::string name, double lower, double upper, ParameterScale scale) {
  bounds_.push_back({std::move(name), lower, upper, scale});
}

bool ParameterSpace::IsValid(std::string* error) const {
  auto fail = [&](const std::string& message) {
    if (error != nullptr) *error = message;
    return false;
  };
  for (int i = 0; i < dim(); ++i) {
    const ParameterBounds& b = bounds_[i];
    if (!std::isfinite(b.lower) || !std::isfinite(b.upper)) {
      return fail(Describe(i, b) + ": bounds must be finite, got [" + FormatDouble(b.lower) + ", " +
                  FormatDouble(b.upper) + "]");
    }
    if (!(b.lower < b.upper)) {
      return fail(Describe(i, b) + ": lower bound must be < upper bound, got [" +
                  FormatDouble(b.lower) + ", " + FormatDouble(b.upper) + "]");
    }
    if (b.scale == ParameterScale::kLog && !(b.lower > 0.0)) {
      return fail(Describe(i, b) + ": lower bound must be > 0 for log scaling, got " +
                  FormatDouble(b.lower) + " (use linear scaling or a positive bound)");
    }
  }
  return true;
}

double ParameterSpace::ToPhysical(int i, double u) const {
  const ParameterBounds& b = bounds_.at(i);
  u = Clamp01(u);
  // The end points are returned as given so that u = 0 and u = 1 reproduce the bounds exactly.
  if (u == 0.0) return b.lower;
  if (u == 1.0) return b.upper;
  double x = b.scale == ParameterScale::kLog ? b.lower * std::pow(b.upper / b.lower, u)
                                             : b.lower + u * (b.upper - b.lower);
  return x < b.lower ? b.lower : (x > b.upper ? b.upper : x);
}

double ParameterSpace::ToNormalized(int i, double physical) const {
  const ParameterBounds& b = bounds_.at(i);
  if (physical <= b.lower) return 0.0;
  if (physical >= b.upper) return 1.0;
  const double u = b.scale == ParameterScale::kLog
                       ? std::log(physical / b.lower) / std::log(b.upper / b.lower)
                       : (physical - b.lower) / (b.upper - b.lower);
  return Clamp01(u);
}

double ParameterSpace::Slope(int i, double u) const {
  const ParameterBounds& b = bounds_.at(i);
  return b.scale == ParameterScale::kLog ? ToPhysical(i, u) * std::log(b.upper / b.lower)
                                         : b.upper - b.lower;
}

void ParameterSpace::ToPhysical(std::span<const double> u, std::span<double> physical) const {
  CheckPacked(u.size(), physical.size(), dim());
  for (std::size_t k = 0; k < u.size(); ++k) physical[k] = ToPhysical(k % dim(), u[k]);
}

void ParameterSpace::ToNormalized(std::span<const double> physical, std::span<double> u) const {
  CheckPacked(physical.size(), u.size(), dim());
  for (std::size_t k = 0; k < u.size(); ++k) u[k] = ToNormalized(k % dim(), physical[k]);
}

std::vector<double> ParameterSpace::ToPhysical(std::span<const double> u) const {
  std::vector<double> out(u.size());
  ToPhysical(u, out);
  return out;
}

std::vector<double> ParameterSpace::ToNormalized(std::span<const double> physical) const {
  std::vector<double> out(physical.size());
  ToNormalized(physical, out);
  return out;
}

double ReflectIntoUnitInterval(double v) {
  if (!std::isfinite(v)) return std::nan("");
  if (v >= 0.0 && v <= 1.0) return v;
  double t = std::fmod(v, 2.0);  // exact, in (-2, 2)
  if (t < 0.0) t += 2.0;         // may round to 2.0 for tiny |t|; 2 - 2 = 0 below is still right
  return t <= 1.0 ? t : 2.0 - t;
}

}  // namespace frfit
