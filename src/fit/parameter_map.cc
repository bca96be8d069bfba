#include "frfit/fit/parameter_map.h"

#include <cmath>
#include <set>

#include "frfit/common/error.h"
#include "frfit/model/joint_coefficients.h"

namespace frfit {

ParameterMap::ParameterMap(const Model& model, const ParameterOptions& options,
                           const std::string& source)
    : model_(&model) {
  auto require_known = [&](const std::string& name, const std::string& field) {
    const int index = model.FindParameter(name);
    if (index < 0) {
      std::string known;
      for (const auto& p : model.parameters) known += (known.empty() ? "" : ", ") + p.name;
      throw Error(source, field + "." + name,
                  "model '" + model.name + "' has no such parameter (it has: " + known + ")");
    }
    return index;
  };
  bounds_.clear();
  for (const auto& p : model.parameters) bounds_.push_back(p.bounds);
  for (const auto& [name, b] : options.bounds) {
    Bounds& target = bounds_[require_known(name, "parameters.bounds")];
    if (!std::isnan(b.min)) target.min = b.min;
    if (!std::isnan(b.max)) target.max = b.max;
    if (!std::isnan(b.initial)) target.initial = b.initial;
    const std::string field = "parameters.bounds." + name;
    if (!(target.min > 0.0)) throw Error(source, field + ".min", "expected a positive lower bound, got " + FormatDouble(target.min));
    if (!(target.max >= target.min))
      throw Error(source, field, "expected min <= max, got [" + FormatDouble(target.min) + ", " + FormatDouble(target.max) + "]");
    if (target.initial < target.min || target.initial > target.max)
      throw Error(source, field + ".initial", "expected the initial value inside [" + FormatDouble(target.min) + ", " +
                                                  FormatDouble(target.max) + "], got " + FormatDouble(target.initial));
  }
  template_.clear();
  for (const Bounds& b : bounds_) template_.push_back(b.initial);
  std::set<int> fixed;
  for (const auto& [name, value] : options.fixed) {
    const int index = require_known(name, "parameters.fixed");
    template_[index] = value;
    fixed.insert(index);
  }
  if (options.free.empty()) {
    for (int i = 0; i < model.num_parameters(); ++i)
      if (!fixed.count(i)) free_.push_back(i);
  } else {
    std::set<int> seen;
    for (const std::string& name : options.free) {
      const int index = require_known(name, "parameters.free");
      if (fixed.count(index)) throw Error(source, "parameters.free." + name, "is also in parameters.fixed");
      if (!seen.insert(index).second) throw Error(source, "parameters.free." + name, "listed twice");
      free_.push_back(index);
    }
  }
  if (free_.empty()) throw Error(source, "parameters.free", "expected at least one free parameter");
  for (int index : free_) {
    const Bounds& b = bounds_[index];
    if (!(b.max > b.min))
      throw Error(source, "parameters.bounds." + model.parameters[index].name,
                  "a free parameter needs min < max, got [" + FormatDouble(b.min) + ", " + FormatDouble(b.max) + "]");
    space_.Add(model.parameters[index].name, b.min, b.max, ParameterScale::kLog);
  }
  std::string error;
  if (!space_.IsValid(&error)) throw Error(source, "parameters", error);
}

std::vector<double> ParameterMap::Physical(std::span<const double> u) const {
  std::vector<double> values = template_;
  for (int i = 0; i < dim(); ++i) values[free_[i]] = space_.ToPhysical(i, u[i]);
  return values;
}

std::vector<double> ParameterMap::ToU(std::span<const double> physical) const {
  std::vector<double> u(dim());
  for (int i = 0; i < dim(); ++i) u[i] = space_.ToNormalized(i, physical[free_[i]]);
  return u;
}

std::vector<double> ParameterMap::InitialU() const { return ToU(template_); }

void ParameterMap::AppendCoefficients(std::span<const double> u, int num_postures,
                                      std::vector<double>* out) const {
  const int d = dim();
  for (size_t start = 0; start + d <= u.size(); start += d) {
    const JointCoefficients c = Coefficients(*model_, Physical(u.subspan(start, d)));
    // Postures share the coefficients today; posture-dependent laws will differ per posture.
    for (int p = 0; p < num_postures; ++p) {
      out->insert(out->end(), c.stiffness.begin(), c.stiffness.end());
      out->insert(out->end(), c.viscous.begin(), c.viscous.end());
      out->insert(out->end(), c.hysteretic.begin(), c.hysteretic.end());
      out->push_back(c.mass_proportional);
    }
  }
}

}  // namespace frfit
