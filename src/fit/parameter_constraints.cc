// The ParameterMap's constraints (fit/parameter_map.h, docs/fit-config.md "Constraints"):
// equalities eliminated, inequalities as a polytope over the free parameters' physical values.
//
// The optimisers search u, in which a log-scaled parameter is θ = lo·(hi/lo)^u: a linear
// constraint in θ is curved in u. Every projection is therefore done in θ, where the constraints
// and the bounds are exactly linear, with the metric taken from u at the point: y = u0 + (θ −
// θ0)/θ'(u0). A projected point is feasible exactly (to rounding), and at a fixed point of the
// projected Levenberg–Marquardt step the constrained fit's KKT conditions hold.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "frfit/common/error.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/files/yaml_reader.h"
#include "frfit/optim/polytope_projection.h"

namespace frfit {
namespace {

// Σ a θ (relation) b over every model parameter.
struct DenseRow {
  std::vector<double> a;
  double b = 0.0;
};

double Largest(const std::vector<double>& a) {
  double largest = 0.0;
  for (double v : a) largest = std::max(largest, std::abs(v));
  return largest;
}

// Puts a tied parameter's expression into a row (or another tied parameter's expression).
void Substitute(const ParameterMap::Tied& t, std::vector<double>* a, double* b_or_constant,
                double sign) {
  const double coefficient = (*a)[t.index];
  if (coefficient == 0.0) return;
  (*a)[t.index] = 0.0;
  *b_or_constant += sign * coefficient * t.constant;
  for (size_t j = 0; j < a->size(); ++j) (*a)[j] += coefficient * t.coefficient[j];
}

// The rows of the projections, in y (see above) at u0: the inequalities, then the box.
struct Polytope {
  Eigen::MatrixXd c;
  Eigen::VectorXd d;
  std::vector<double> theta, slope;
};

Polytope BuildPolytope(const ParameterSpace& space,
                       const std::vector<ParameterMap::Inequality>& inequalities,
                       std::span<const double> u0) {
  const int n = space.dim(), rows = static_cast<int>(inequalities.size()) + 2 * n;
  Polytope p;
  p.c = Eigen::MatrixXd::Zero(rows, n);
  p.d = Eigen::VectorXd::Zero(rows);
  for (int j = 0; j < n; ++j) {
    p.theta.push_back(space.ToPhysical(j, u0[j]));
    p.slope.push_back(space.Slope(j, u0[j]));
  }
  // a·θ ≥ b with θ = θ0 + s(y − u0): Σ a s y ≥ b − a·θ0 + Σ a s u0.
  auto add = [&](int row, const std::vector<double>& a, double b) {
    double rhs = b;
    for (int j = 0; j < n; ++j) {
      p.c(row, j) = a[j] * p.slope[j];
      rhs += a[j] * (p.slope[j] * u0[j] - p.theta[j]);
    }
    p.d(row) = rhs;
  };
  int row = 0;
  for (const ParameterMap::Inequality& q : inequalities) add(row++, q.a, q.b);
  for (int j = 0; j < n; ++j) {
    std::vector<double> e(n, 0.0);
    e[j] = 1.0;
    add(row++, e, space.bounds(j).lower);
    e[j] = -1.0;
    add(row++, e, -space.bounds(j).upper);
  }
  return p;
}

std::vector<double> BackToU(const ParameterSpace& space, const Polytope& p,
                            std::span<const double> u0, const Eigen::VectorXd& y) {
  std::vector<double> u(u0.size());
  for (int j = 0; j < space.dim(); ++j)
    u[j] = space.ToNormalized(j, p.theta[j] + p.slope[j] * (y(j) - u0[j]));
  return u;
}

constexpr double kFeasible = 1e-12;  // per row of unit norm, in y (≈ u)

bool Satisfies(const Polytope& p, const Eigen::VectorXd& y) {
  for (int i = 0; i < p.c.rows(); ++i)
    if (p.c.row(i).dot(y) - p.d(i) < -kFeasible * p.c.row(i).norm()) return false;
  return true;
}

}  // namespace

void ParameterMap::ApplyConstraints(const ParameterOptions& options, const std::string& source) {
  const int count = model_->num_parameters();
  std::vector<bool> is_free(count, false);
  for (int index : free_) is_free[index] = true;
  std::vector<DenseRow> inequalities;
  std::vector<std::string> texts;
  for (size_t k = 0; k < options.constraints.size(); ++k) {
    const std::string field = JoinPath("constraints", k);
    LinearConstraint c;
    std::string error;
    if (!ParseLinearConstraint(options.constraints[k], &c, &error)) throw Error(source, field, error);
    DenseRow row{std::vector<double>(count, 0.0), c.bound};
    int pivot = -1;
    for (const auto& [name, a] : c.terms) {
      const int index = model_->FindParameter(name);
      if (index < 0)
        throw Error(source, field, "'" + c.text + "': model '" + model_->name +
                                       "' has no parameter '" + name + "'");
      const bool tied = std::any_of(tied_.begin(), tied_.end(),
                                    [&](const Tied& t) { return t.index == index; });
      if (is_free[index] || tied) row.a[index] += a;  // a tied one is substituted below
      else row.b -= a * template_[index];  // fixed, or not among the free: a constant
    }
    for (const Tied& t : tied_) Substitute(t, &row.a, &row.b, -1.0);
    const double scale = Largest(row.a);
    for (const auto& term : c.terms) {  // the last free parameter it names is tied
      const int index = model_->FindParameter(term.first);
      if (is_free[index] && std::abs(row.a[index]) > 1e-12 * scale) pivot = index;
    }
    if (c.relation == Relation::kLessEqual) {
      for (double& a : row.a) a = -a;
      row.b = -row.b;
    }
    constraints_.push_back(c);
    if (c.relation != Relation::kEqual) {
      if (scale == 0.0 && row.b > 1e-12 * std::abs(c.bound))
        throw Error(source, field, "'" + c.text + "' never holds for the fixed values");
      if (scale > 0.0) inequalities.push_back(row), texts.push_back(c.text);
      continue;
    }
    if (pivot < 0)
      throw Error(source, field, "'" + c.text + "': expected an equality that ties a free parameter"
                                 " (it follows from, or contradicts, the fixed values and the "
                                 "equalities before it)");
    // θ_pivot = (b − Σ_{j≠pivot} a_j θ_j) / a_pivot
    Tied t{pivot, row.b / row.a[pivot], std::vector<double>(count, 0.0), c.text};
    for (int j = 0; j < count; ++j)
      if (j != pivot) t.coefficient[j] = -row.a[j] / row.a[pivot];
    for (Tied& earlier : tied_) Substitute(t, &earlier.coefficient, &earlier.constant, +1.0);
    for (DenseRow& q : inequalities) Substitute(t, &q.a, &q.b, -1.0);
    is_free[pivot] = false;
    tied_.push_back(std::move(t));
  }
  std::vector<int> kept;
  for (int index : free_)
    if (is_free[index]) kept.push_back(index);
  free_ = kept;
  // A tied parameter stays within its own bounds: two more inequalities on the free ones.
  for (const Tied& t : tied_) {
    if (!options.priors.empty() && options.priors.count(model_->parameters[t.index].name))
      throw Error(source, "prior." + model_->parameters[t.index].name,
                  "expected a free parameter (it is tied by '" + t.by + "')");
    const Bounds& b = bounds_[t.index];
    inequalities.push_back({t.coefficient, b.min - t.constant});
    texts.push_back("");
    std::vector<double> negative(t.coefficient);
    for (double& a : negative) a = -a;
    inequalities.push_back({negative, t.constant - b.max});
    texts.push_back("");
  }
  // Free-parameter order (map order) for everything the optimisers see.
  auto compress = [&](const std::vector<double>& a) {
    std::vector<double> out;
    for (int index : free_) out.push_back(a[index]);
    return out;
  };
  for (Tied& t : tied_) t.coefficient = compress(t.coefficient);
  for (size_t k = 0; k < inequalities.size(); ++k)
    inequalities_.push_back({compress(inequalities[k].a), inequalities[k].b, texts[k]});
}

std::vector<double> ParameterMap::Repair(std::span<const double> u) const {
  std::vector<double> out(u.begin(), u.end());
  if (inequalities_.empty()) return out;
  const Polytope p = BuildPolytope(space_, inequalities_, u);
  const Eigen::VectorXd y0 = Eigen::Map<const Eigen::VectorXd>(u.data(), dim());
  if (Satisfies(p, y0)) return out;
  bool found = false;
  const Eigen::VectorXd start = FeasiblePoint(p.c, p.d, y0, kFeasible, &found);
  if (!found)
    throw Error("", "constraints", "expected parameter values that satisfy every constraint within "
                                   "the bounds; none found");
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(dim(), dim());
  return BackToU(space_, p, u, ProjectOntoPolytope(identity, y0, p.c, p.d, start, kFeasible).x);
}

std::vector<double> ParameterMap::ProjectStep(std::span<const double> u,
                                              std::span<const double> target,
                                              std::span<const double> metric) const {
  const int n = dim();
  const Polytope p = BuildPolytope(space_, inequalities_, u);
  const Eigen::VectorXd y0 = Eigen::Map<const Eigen::VectorXd>(u.data(), n);
  Eigen::VectorXd start = y0;
  if (!Satisfies(p, y0)) {
    bool found = false;
    start = FeasiblePoint(p.c, p.d, y0, kFeasible, &found);
  }
  const Eigen::MatrixXd m = Eigen::Map<const Eigen::MatrixXd>(metric.data(), n, n);
  const Eigen::VectorXd w = Eigen::Map<const Eigen::VectorXd>(target.data(), n);
  return BackToU(space_, p, u, ProjectOntoPolytope(0.5 * (m + m.transpose()), w, p.c, p.d, start,
                                                   kFeasible)
                                   .x);
}

std::vector<ConstraintStatus> ParameterMap::ConstraintStatuses(
    std::span<const double> physical) const {
  std::vector<ConstraintStatus> out;
  for (const LinearConstraint& c : constraints_) {
    double lhs = 0.0, size = std::abs(c.bound);
    for (const auto& [name, a] : c.terms) {
      const double term = a * physical[model_->FindParameter(name)];
      lhs += term;
      size += std::abs(term);
    }
    ConstraintStatus s{c.text, c.relation, c.relation == Relation::kLessEqual ? c.bound - lhs
                                                                              : lhs - c.bound};
    s.active = c.relation == Relation::kEqual || std::abs(s.slack) <= kActiveSlack * size;
    out.push_back(s);
  }
  return out;
}

}  // namespace frfit
