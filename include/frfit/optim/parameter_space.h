// ParameterSpace: the map between the optimizers' normalised vector u ∈ [0,1]^n and physical
// parameter values (stiffnesses, dampings), plus the reflection that keeps search points in [0,1].
//
// Stiffnesses span decades, so by default a parameter is log-scaled: physical = lo·(hi/lo)^u, and
// equal steps in u are equal ratios in the value. A per-parameter flag selects linear scaling for
// quantities that do not span decades. The optimizers only ever see u (DESIGN.md §1); this file
// knows nothing about which physical quantity a parameter is.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace frfit {

enum class ParameterScale { kLog, kLinear };

std::string ToString(ParameterScale scale);  // "log" | "linear"
bool FromString(const std::string& text, ParameterScale* scale);

struct ParameterBounds {
  std::string name;  // for messages only; may be empty
  double lower = 0.0;
  double upper = 0.0;
  ParameterScale scale = ParameterScale::kLog;
};

class ParameterSpace {
 public:
  ParameterSpace() = default;
  explicit ParameterSpace(std::vector<ParameterBounds> bounds) : bounds_(std::move(bounds)) {}

  void Add(std::string name, double lower, double upper,
           ParameterScale scale = ParameterScale::kLog);

  int dim() const { return static_cast<int>(bounds_.size()); }
  const ParameterBounds& bounds(int i) const { return bounds_.at(i); }

  // False (with a message naming the parameter's index and name) for a non-finite bound,
  // lower >= upper, or lower <= 0 on a log-scaled parameter. The maps below assume a valid space.
  bool IsValid(std::string* error) const;

  // u outside [0,1] is clamped first; the result always lies in [lower, upper] (the end points
  // map exactly to the bounds, so rounding never steps outside them).
  double ToPhysical(int i, double u) const;
  // Inverse of ToPhysical; values outside [lower, upper] map to the nearest end of [0,1].
  double ToNormalized(int i, double physical) const;
  // d(physical)/du at u (clamped into [0,1] first, the slope of the map there, never 0):
  // physical·ln(upper/lower) when log-scaled, upper − lower when linear. The chain rule from
  // physical derivatives to the optimizers' space (least squares, identifiability).
  double Slope(int i, double u) const;

  // Packed batches [point][param]: the sizes must be equal and a multiple of dim(), else
  // frfit::Error ("expected ..., got ...").
  void ToPhysical(std::span<const double> u, std::span<double> physical) const;
  void ToNormalized(std::span<const double> physical, std::span<double> u) const;
  std::vector<double> ToPhysical(std::span<const double> u) const;
  std::vector<double> ToNormalized(std::span<const double> physical) const;

 private:
  std::vector<ParameterBounds> bounds_;
};

// Folds any real v into [0,1] by reflection at 0 and 1 (a triangle wave of period 2): continuous,
// identity on [0,1], and exact (fmod is exact). This lets an unconstrained search (Nelder–Mead)
// and unbounded mutations stay inside the box without clipping, which would create flat regions.
// Non-finite v gives NaN.
double ReflectIntoUnitInterval(double v);

}  // namespace frfit
