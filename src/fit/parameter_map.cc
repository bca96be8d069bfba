#include "frfit/fit/parameter_map.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "frfit/common/error.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/posture/reduction.h"
#include "kernels/line_cost.h"

namespace frfit {

ParameterMap::ParameterMap(const Model& model, const ParameterOptions& options,
                           const std::string& source)
    : model_(&model), source_(source) {
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
    if (!(target.min > 0.0) && model.parameters[model.FindParameter(name)].log_scale)
      throw Error(source, field + ".min", "expected a positive lower bound, got " + FormatDouble(target.min));
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
  ApplyConstraints(options, source);
  if (free_.empty())
    throw Error(source, "constraints", "expected at least one parameter left free by the equalities");
  for (int index : free_) {
    const Bounds& b = bounds_[index];
    if (!(b.max > b.min))
      throw Error(source, "parameters.bounds." + model.parameters[index].name,
                  "a free parameter needs min < max, got [" + FormatDouble(b.min) + ", " + FormatDouble(b.max) + "]");
    const bool log_scale = model.parameters[index].log_scale && b.min > 0.0;
    space_.Add(model.parameters[index].name, b.min, b.max,
               log_scale ? ParameterScale::kLog : ParameterScale::kLinear);
  }
  std::string error;
  if (!space_.IsValid(&error)) throw Error(source, "parameters", error);
  for (const auto& [name, prior] : options.priors) {
    const int index = require_known(name, "prior");
    const auto at = std::find(free_.begin(), free_.end(), index);
    if (at == free_.end())
      throw Error(source, "prior." + name, "expected a free parameter (it is fixed or not listed in parameters.free)");
    if (priors_.empty()) priors_.assign(free_.size(), Prior{0.0, 0.0, std::nan("")});
    priors_[at - free_.begin()] = Prior{prior.mean, prior.Std(), std::nan("")};
  }
  ApplyRegularization(options);
}

void ParameterMap::ApplyRegularization(const ParameterOptions& options) {
  const RegularizationOptions& g = options.regularization;
  if (!g.enabled) return;
  if (g.toward == RegularizationTarget::kPrior) {
    regularization_basis_ = priors_;
  } else {
    // Relative deviations from the nominal; a nominal of 0 has no size, its bounds' span does.
    for (int index : free_) {
      const double c = template_[index];
      const double s = c != 0.0 ? std::abs(c) : bounds_[index].max - bounds_[index].min;
      regularization_basis_.push_back(Prior{c, s, std::nan("")});
    }
  }
  // auto: toward prior starts from the prior itself (λ = 1), toward nominal from none; the fit
  // chooses (fit/regularization.h).
  if (!g.automatic) priors_ = RegularizationPriors(g.weight);
}

std::vector<Prior> ParameterMap::RegularizationPriors(double weight) const {
  std::vector<Prior> priors = regularization_basis_;
  for (Prior& p : priors) p.std /= std::sqrt(weight);
  return priors;
}

void ParameterMap::SetInitial(std::span<const double> u) {
  for (int i = 0; i < dim(); ++i) template_[free_[i]] = space_.ToPhysical(i, u[i]);
}

std::vector<double> ParameterMap::Physical(std::span<const double> u) const {
  std::vector<double> values = template_;
  for (int i = 0; i < dim(); ++i) values[free_[i]] = space_.ToPhysical(i, u[i]);
  for (const Tied& t : tied_) {
    double value = t.constant;
    for (int i = 0; i < dim(); ++i) value += t.coefficient[i] * values[free_[i]];
    values[t.index] = value;
  }
  return values;
}

std::vector<double> ParameterMap::ToU(std::span<const double> physical) const {
  std::vector<double> u(dim());
  for (int i = 0; i < dim(); ++i) u[i] = space_.ToNormalized(i, physical[free_[i]]);
  return u;
}

std::vector<double> ParameterMap::InitialU() const { return ToU(template_); }

void ParameterMap::AppendCoefficients(std::span<const double> u,
                                      const std::vector<std::vector<double>>& posture_q,
                                      std::vector<double>* out) const {
  const int d = dim();
  for (size_t start = 0; start + d <= u.size(); start += d) {
    const std::vector<double> physical = Physical(u.subspan(start, d));
    for (const std::vector<double>& q : posture_q) {
      const JointCoefficients c = Coefficients(*model_, physical, q);
      AppendPacked(reduced_size_ > 0 ? ReducedCoefficients(c, reduced_joints_, reduced_size_) : c, out);
    }
  }
}

void ParameterMap::AppendCoefficients(std::span<const double> u, int num_postures,
                                      std::vector<double>* out) const {
  if (model_->has_posture_dependent_stiffness())
    throw Error(model_->source, "dofs", "posture-dependent stiffness needs the postures' coordinates");
  AppendCoefficients(u, std::vector<std::vector<double>>(num_postures, std::vector<double>(model_->num_coordinates(), 0.0)), out);
}

void ParameterMap::UseReducedLayout(int joints, int size) {
  reduced_joints_ = joints;
  reduced_size_ = size;
}

std::vector<double> ParameterMap::Slopes(std::span<const double> u) const {
  std::vector<double> slopes(dim());
  for (int i = 0; i < dim(); ++i) slopes[i] = space_.Slope(i, u[i]);
  return slopes;
}

void ParameterMap::AppendSensitivities(std::span<const double> u,
                                       const std::vector<std::vector<double>>& posture_q,
                                       std::vector<double>* out) const {
  const int d = dim(), count = model_->num_parameters();
  for (size_t start = 0; start + d <= u.size(); start += d) {
    const std::span<const double> point = u.subspan(start, d);
    const std::vector<double> physical = Physical(point);
    const std::vector<double> slopes = Slopes(point);
    for (const std::vector<double>& q : posture_q) {
      const std::vector<double> dc = CoefficientJacobian(*model_, physical, q);
      // Its rows are the packed coefficients: 3n + 1 + masses, then the affine part coefficients.
      const int rows = static_cast<int>(dc.size() / static_cast<size_t>(count));
      // A tied parameter moves with the free ones it is tied to (its coefficients).
      auto append_row = [&](int r) {
        for (int i = 0; i < d; ++i) {
          if (r < 0) {
            out->push_back(0.0);
            continue;
          }
          const double* row = dc.data() + static_cast<size_t>(r) * count;
          double derivative = row[free_[i]];
          for (const Tied& t : tied_) derivative += row[t.index] * t.coefficient[i];
          out->push_back(derivative * slopes[i]);
        }
      };
      if (reduced_size_ == 0) {
        for (int r = 0; r < rows; ++r) append_row(r);
        continue;
      }
      const int n = model_->num_dofs();  // k, viscous, hysteretic cut to the reduced layout
      for (int block = 0; block < 3; ++block)
        for (int r = 0; r < reduced_size_; ++r) append_row(r < reduced_joints_ ? block * n + r : -1);
      for (int r = 3 * n; r < rows; ++r) append_row(r);
    }
  }
}

}  // namespace frfit
