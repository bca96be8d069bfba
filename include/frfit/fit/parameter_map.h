// ParameterMap: which of a model's elastic parameters a fit moves, their bounds, and the chain
// u (optimiser space, [0,1]^free) → physical parameter vector → packed joint coefficients for the
// evaluator. The optimisers never see physics; the evaluators never see u.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "frfit/fit/constraints.h"
#include "frfit/fit/fit_options.h"
#include "frfit/model/model.h"
#include "frfit/optim/parameter_space.h"

namespace frfit {

class ParameterMap {
 public:
  // Validates names, fixed values and bounds (errors name `source`, the fit configuration).
  ParameterMap(const Model& model, const ParameterOptions& options, const std::string& source);

  int dim() const { return static_cast<int>(free_.size()); }
  const Model& model() const { return *model_; }
  const std::string& source() const { return source_; }  // the fit configuration, for errors
  const std::vector<int>& free_indices() const { return free_; }  // into Model::parameters
  const std::vector<Bounds>& bounds() const { return bounds_; }   // per model parameter, effective
  const ParameterSpace& space() const { return space_; }

  // The full physical parameter vector (Model::parameters order) for one point u.
  std::vector<double> Physical(std::span<const double> u) const;
  // u of the effective initial values.
  std::vector<double> InitialU() const;
  std::vector<double> ToU(std::span<const double> physical) const;

  // Joint coefficients of every point of a packed batch u [point][dim] at each posture (its
  // coordinates, rad / m), appended to `out` as [point][posture][3n + 1 + masses].
  void AppendCoefficients(std::span<const double> u, const std::vector<std::vector<double>>& posture_q,
                          std::vector<double>* out) const;
  // The same for models whose stiffness does not depend on the posture (Error otherwise).
  void AppendCoefficients(std::span<const double> u, int num_postures, std::vector<double>* out) const;

  // ∂(joint coefficients)/∂u of every point of a packed batch u [point][dim] at each posture,
  // appended as [point][posture][3n + 1 + masses][dim] (Evaluator::EvaluateNormalEquations).
  void AppendSensitivities(std::span<const double> u,
                           const std::vector<std::vector<double>>& posture_q,
                           std::vector<double>* out) const;
  // Postures reduced for the evaluators (ProblemPosture::reduction): the packed coefficients and
  // their sensitivities then follow the reduced layout (ReducedCoefficients): the first `joints`
  // diagonal entries of k, viscous and hysteretic kept, zeros to `size`; α, masses and parts as
  // they are. size 0: the full layout (the default).
  void UseReducedLayout(int joints, int size);
  int reduced_size() const { return reduced_size_; }
  int reduced_joints() const { return reduced_joints_; }

  // d(physical value)/du of each free parameter at u (ParameterSpace::Slope).
  std::vector<double> Slopes(std::span<const double> u) const;
  // The prior of each free parameter (map order), std resolved; std 0 where it has none. Empty
  // when the fit has no prior (fit/prior.h).
  const std::vector<Prior>& priors() const { return priors_; }
  // With a `regularization:` block (fit/regularization.h): each free parameter's centre c_j (mean)
  // and scale s_j (std; 0: not regularised), map order; empty without one. A given weight λ makes
  // the priors N(c_j, s_j²/λ) at construction; with `auto` the fit sets them (SetPriors).
  const std::vector<Prior>& regularization_basis() const { return regularization_basis_; }
  // The priors of weight λ on that basis (std s_j/√λ; std 0 stays 0).
  std::vector<Prior> RegularizationPriors(double weight) const;
  // Replaces the priors (map order, std resolved; empty: none): how a fit with `weight: auto`
  // tries its weights.
  void SetPriors(std::vector<Prior> priors) { priors_ = std::move(priors); }
  // Makes u the initial point (InitialU): a refit starts where the previous fit ended.
  void SetInitial(std::span<const double> u);

  // Constraints (fit/constraints.h). An equality ties one parameter to the others: it leaves the
  // search, its value θ = constant + Σᵢ coefficient[i]·θ(u_i) over the free parameters (map
  // order). Inequalities bound the search: Σᵢ a[i]·θ(u_i) ≥ b, the tied parameters' bounds among
  // them (those with an empty text).
  struct Tied {
    int index = 0;  // into Model::parameters
    double constant = 0.0;
    std::vector<double> coefficient;
    std::string by;  // the equality that tied it
  };
  struct Inequality {
    std::vector<double> a;
    double b = 0.0;
    std::string text;  // the constraint as written; empty for a tied parameter's bound
  };
  const std::vector<Tied>& tied() const { return tied_; }
  const std::vector<Inequality>& inequalities() const { return inequalities_; }
  const std::vector<LinearConstraint>& constraints() const { return constraints_; }
  // u itself when it satisfies every inequality, else the nearest point that does (in u, to first
  // order: the polytope's projection in the metric of u at u; fit/parameter_constraints.cc).
  std::vector<double> Repair(std::span<const double> u) const;
  // The constrained step from a feasible u towards `target` in the metric `metric` (dim×dim,
  // row-major, in u): the point of the polytope and the box nearest to target in that metric
  // (exact in the physical values, where the constraints are linear; the metric taken at u).
  std::vector<double> ProjectStep(std::span<const double> u, std::span<const double> target,
                                  std::span<const double> metric) const;
  // Each configured constraint's slack and activity at a full physical parameter vector.
  std::vector<ConstraintStatus> ConstraintStatuses(std::span<const double> physical) const;

 private:
  const Model* model_;
  std::string source_;
  std::vector<int> free_;
  std::vector<Bounds> bounds_;
  std::vector<double> template_;  // fixed values in place, free ones overwritten per point
  ParameterSpace space_;
  std::vector<Prior> priors_;
  std::vector<Prior> regularization_basis_;
  std::vector<LinearConstraint> constraints_;
  std::vector<Tied> tied_;
  std::vector<Inequality> inequalities_;
  int reduced_joints_ = 0, reduced_size_ = 0;

  // Reads options.constraints: ties the equalities' parameters (removing them from free_) and
  // keeps the inequalities over the remaining free parameters. Before space_ is built.
  void ApplyConstraints(const ParameterOptions& options, const std::string& source);
  // Builds regularization_basis_ from options.regularization (after the priors).
  void ApplyRegularization(const ParameterOptions& options);
};

}  // namespace frfit
