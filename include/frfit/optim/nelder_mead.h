// NelderMead: Matlab's fminsearch (the Lagarias et al. 1998 variant as fminsearch.m implements it)
// as an ask/tell stepper, the paper's local stage. BoundedNelderMead runs it on an unbounded
// variable v and folds every point into u ∈ [0,1]^n by reflection, so bounds always hold while the
// simplex method itself stays unconstrained.
//
// What "exactly fminsearch" means here: the same initial simplex (x0, then each coordinate scaled
// by 1.05, or set to 0.00025 where it is zero), coefficients ρ=1, χ=2, ψ=0.5, σ=0.5, the same
// decision order and strict/non-strict comparisons, a stable sort of the vertices (ties keep their
// order, NaN last) after the initial simplex and after every iteration, the same stopping test
// max|fv(1)-fv(2:end)| <= tol_fun && max|v(:,2:end)-v(:,1)| <= tol_x, checked at the top of each
// iteration after the evaluation/iteration limits, and the same counts (the initial simplex is
// iteration 1 with n+1 evaluations; a shrink costs n). The expression forms of fminsearch.m are
// kept (e.g. xr = (1+ρ)·xbar − ρ·v_end) and FMA contraction is off, so the iterates are the ones a
// straightforward IEEE evaluation of fminsearch.m gives.
// Not reproduced: recent fminsearch.m releases floor the two tolerances at 10*eps of the best cost
// and of the best vertex; that only differs for tolerances within a few ulp of zero.
//
// The stepper never evaluates anything: Ask() hands out the point(s) fminsearch would evaluate
// next and Tell() consumes their costs, so the Fitter can batch many problems per Evaluator call.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

namespace frfit {

struct NelderMeadOptions {
  // Iteration limit (fminsearch's MaxIter). The initial simplex counts as iteration 1. >= 1.
  int max_iterations = 5000;

  // Evaluation limit (MaxFunEvals); -1 means fminsearch's default 200 * dim. Checked before each
  // iteration, so the last iteration may overrun it by up to dim (a shrink). >= 1 or -1.
  int max_evaluations = -1;

  // Convergence needs both: every vertex within tol_x of the best in every coordinate (∞-norm, in
  // the optimizer's variable) and every vertex cost within tol_fun of the best. Finite, >= 0.
  double tol_x = 1e-4;
  double tol_fun = 1e-4;

  int MaxEvaluationsUsed(int dim) const {
    return max_evaluations < 0 ? 200 * dim : max_evaluations;
  }

  // False with a message naming the field and the violated constraint.
  bool IsValid(std::string* error) const;
};

enum class NelderMeadTermination {
  kNotDone,
  kTolerance,       // the tol_x && tol_fun test held (fminsearch exitflag 1)
  kMaxIterations,   // max_iterations reached (exitflag 0)
  kMaxEvaluations,  // max_evaluations reached; takes precedence over kMaxIterations, as in Matlab
};
std::string ToString(NelderMeadTermination reason);  // "not_done" | "tol" | "max_iterations" |
                                                     // "max_evaluations"

// What the pending Ask() points are for (fminsearch's 'how', plus the initial simplex).
enum class NelderMeadStep {
  kInitialSimplex,
  kReflect,
  kExpand,
  kContractOutside,
  kContractInside,
  kShrink
};
std::string ToString(NelderMeadStep step);  // "initial_simplex" | "reflect" | "expand" |
                                            // "contract_outside" | "contract_inside" | "shrink"

// Everything needed to continue a run. Doubles are stored as hex bit patterns in JSON.
struct NelderMeadState {
  NelderMeadOptions options;
  int dim = 0;
  bool bounded = false;         // saved by BoundedNelderMead (points are v, not u)
  std::vector<double> simplex;  // [vertex][dim], best first; empty before the first Tell
  std::vector<double> values;   // [vertex]
  NelderMeadStep step = NelderMeadStep::kInitialSimplex;
  std::vector<double> pending;    // [point][dim]
  std::vector<double> reflected;  // xr while an expansion/contraction is pending
  double reflected_cost = 0.0;    // f(xr), same
  int iterations = 0;
  std::int64_t evaluations = 0;
  NelderMeadTermination termination = NelderMeadTermination::kNotDone;
};
void to_json(nlohmann::json& j, const NelderMeadState& state);
// Throws frfit::Error naming the field that is missing or malformed.
void from_json(const nlohmann::json& j, NelderMeadState& state);

class NelderMead {
 public:
  // x0: the start (dim = x0.size() >= 1). Throws frfit::Error for invalid options, an empty or
  // non-finite x0.
  NelderMead(const NelderMeadOptions& options, std::span<const double> x0);
  // Resumes a saved run (state.bounded must be false). Throws frfit::Error if inconsistent.
  explicit NelderMead(const NelderMeadState& state);

  // Points to evaluate next, packed [point][dim]: dim+1 for the initial simplex, dim for a shrink,
  // else 1. Empty when Done(). Stable until Tell.
  const std::vector<double>& Ask() const { return pending_; }
  int batch_size() const { return static_cast<int>(pending_.size()) / dim_; }
  NelderMeadStep step() const { return step_; }

  // Costs of the last Ask's points, same order. Throws frfit::Error on a size mismatch or if
  // Done().
  void Tell(std::span<const double> costs);

  bool Done() const { return termination_ != NelderMeadTermination::kNotDone; }
  NelderMeadTermination termination() const { return termination_; }

  // Best vertex and its cost (x0 and +inf before the first Tell).
  std::vector<double> best_x() const;
  double best_cost() const;
  int iterations() const { return iterations_; }
  std::int64_t evaluations() const { return evaluations_; }
  int dim() const { return dim_; }
  const NelderMeadOptions& options() const { return options_; }
  const std::vector<double>& simplex() const { return simplex_; }
  const std::vector<double>& values() const { return values_; }

  NelderMeadState SaveState() const;

 private:
  void SortSimplex();
  void EndIteration();
  void BeginIteration();
  void AskShrink();
  void ReplaceWorst(const std::vector<double>& x, double cost);
  std::vector<double> Combine(double a, double b) const;  // a·xbar + b·v_end, per coordinate

  NelderMeadOptions options_;
  int dim_ = 0;
  std::vector<double> simplex_;
  std::vector<double> values_;
  std::vector<double> xbar_;
  NelderMeadStep step_ = NelderMeadStep::kInitialSimplex;
  std::vector<double> pending_;
  std::vector<double> reflected_;
  double reflected_cost_ = 0.0;
  int iterations_ = 0;
  std::int64_t evaluations_ = 0;
  NelderMeadTermination termination_ = NelderMeadTermination::kNotDone;
};

// NelderMead on v ∈ R^n whose points are evaluated at u = ReflectIntoUnitInterval(v) (per
// coordinate). The reflection is continuous, so the cost seen by the simplex stays continuous, and
// a minimum on a bound becomes an interior fold of the v landscape instead of a wall.
class BoundedNelderMead {
 public:
  // u0: the start in [0,1]^n; v starts at u0. Throws frfit::Error if u0 leaves [0,1].
  BoundedNelderMead(const NelderMeadOptions& options, std::span<const double> u0);
  // Resumes a state saved by BoundedNelderMead::SaveState (state.bounded must be true).
  explicit BoundedNelderMead(const NelderMeadState& state);

  // Points to evaluate, packed [point][dim], every coordinate in [0,1].
  const std::vector<double>& Ask() const { return asked_u_; }
  int batch_size() const { return nm_.batch_size(); }
  void Tell(std::span<const double> costs);

  bool Done() const { return nm_.Done(); }
  NelderMeadTermination termination() const { return nm_.termination(); }
  std::vector<double> best_u() const;
  double best_cost() const { return nm_.best_cost(); }
  int iterations() const { return nm_.iterations(); }
  std::int64_t evaluations() const { return nm_.evaluations(); }
  int dim() const { return nm_.dim(); }
  // The underlying unbounded stepper (simplex in v).
  const NelderMead& unbounded() const { return nm_; }

  NelderMeadState SaveState() const;

 private:
  void Refresh();

  NelderMead nm_;
  std::vector<double> asked_u_;
};

}  // namespace frfit
