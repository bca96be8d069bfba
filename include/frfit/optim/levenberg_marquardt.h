// LevenbergMarquardt: bounded Levenberg–Marquardt on u ∈ [0,1]^n for a weighted least-squares
// cost F(u) = Σ w r², run from several starts in lock-step, as an ask/tell stepper: each round
// asks for one point per unfinished start, and the caller hands back, for every point, the
// normal-equation terms an Evaluator computes (the cost F, g = JᵀWr and the upper triangle of
// A = JᵀWJ, packed as kernels::NormalTermCount orders them). It never sees physics.
//
// One iteration of a start, at its current point u with (F, g, A):
//   - coordinates at a bound whose descent direction −g leaves the box are held (active set);
//   - the step solves (A + λ·D) δ = −g on the others, D the largest diagonal of A seen so far
//     (Marquardt's scaling, MINPACK's non-decreasing variant, floored so that a parameter the
//     data do not move cannot make the system singular); the trial point is u + δ clamped into
//     [0,1];
//   - the gain ratio ρ = (F − F_trial) / (F − F_model(δ)) decides: a trial that lowers F is
//     accepted and λ shrinks by max(1/3, 1 − (2ρ − 1)³), otherwise λ grows by ν, ν doubles
//     (Nielsen's update).
// A start stops on relative tests, never an absolute cost (docs/fit-config.md):
//   gradient   every free coordinate's |g_j| / √(D_j·F) ≤ tol_gradient (the cosine between the
//              residual and that Jacobian column; F = 0 counts);
//   step       the proposed step ‖δ‖∞ ≤ tol_step·(‖u‖∞ + tol_step);
//   cost       an accepted step whose actual and predicted reductions are both ≤ tol_cost·F;
//   iterations max_iterations trial points evaluated; no_progress: λ beyond 1e16 with no
//              acceptable step (the model and the cost disagree at machine precision);
//   sigma_step (only when options.sigma_step > 0) the undamped Gauss–Newton step −A⁻¹g moves
//              every free coordinate by at most sigma_step of its 1σ, √((2A)⁻¹)_jj — the
//              covariance when the weights are the noise's inverse variances (F = χ²/2,
//              fit/identifiability.h): the minimum is within that fraction of 1σ, and what is
//              left to find is far below what the data determine;
// Exact fits: once a start's cost falls below 1e-20 of its initial cost, its residuals are zero
// to working precision, which only a global minimum of a sum of squares can be. The other starts
// then stop ("stopped": none can do better); this one runs on to the tests above (gradient,
// step, cost, iterations, no_progress) like any other start — an exact fit is no test of its own.
// A caller whose model itself is exact only to a known error installs the cost that error
// explains (set_exact_fit_cost): a start whose cost falls to it is an exact fit too.
// Agreeing starts: once the best start has converged, a start whose cost agrees with it
// (agreement_tolerance) and whose own undamped Gauss–Newton model cannot take it below it stops
// ("agreed"): going on would only polish the same minimum.
//
// Everything is deterministic (Eigen's LDLT on the host, no randomness); SaveState captures a
// run bit-exactly for checkpoints.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

namespace frfit {

struct LevenbergMarquardtOptions {
  // Trial points evaluated per start at most (one per iteration). >= 1.
  int max_iterations = 200;
  // λ at the first iteration (dimensionless: it multiplies Marquardt's diagonal scaling). > 0.
  double initial_damping = 1e-3;
  // Convergence tests (see above). Each >= 0; 0 turns a test off.
  double tol_gradient = 1e-10;
  double tol_step = 1e-10;
  double tol_cost = 1e-12;
  // Starts run in lock-step: the best distinct individuals of the preceding GA (a fitter's
  // choice; this class takes whatever starts it is given). >= 1.
  int starts = 8;
  // Two GA individuals closer than this in every coordinate of u count as one start. In [0, 1].
  double start_separation = 0.02;
  // Racing: a start still running after drop_after iterations whose cost is above drop_factor
  // times the best start's is dropped ("dropped"), so that the starts in lock-step cost little
  // once one of them has found the valley the others are far above. drop_factor > 1, or 0 (off);
  // drop_after >= 1.
  double drop_factor = 1e3;
  int drop_after = 5;
  // A start agrees with the best when its final cost is within this fraction of the best cost
  // (plus 1e-12 of the best start's initial cost, so exact fits agree at any cost near 0). >= 0.
  double agreement_tolerance = 1e-3;
  // A fit that is not exact ends only when this many starts agree (fewer when fewer were
  // started); otherwise another cycle follows. Two starts can fall into the same local minimum:
  // on 60 random KUKA truths two agreeing starts accepted a wrong minimum three times as often as
  // three (docs/fit-config.md). >= 1.
  int agreeing_starts = 3;
  // The sigma_step test (above): a start stops once the Gauss–Newton step left is below this
  // fraction of every free coordinate's 1σ. 0 (the default): off. >= 0.
  double sigma_step = 0.0;

  bool IsValid(std::string* error) const;
};

enum class LmTermination {
  kNotDone,
  kGradient,
  kStep,
  kCost,
  kMaxIterations,
  kNoProgress,
  kStopped,
  kDropped,
  kAgreed,
  kSigmaStep,
};
// "not_done" | "gradient" | "step" | "cost" | "max_iterations" | "no_progress" | "stopped" |
// "dropped" | "agreed" | "sigma_step"
std::string ToString(LmTermination t);
// Whether a start that stopped this way sits at a minimum (gradient, step, cost or sigma_step).
bool IsConverged(LmTermination t);
bool FromString(const std::string& text, LmTermination* t);

// One start's run.
struct LmStart {
  std::vector<double> u;      // current (accepted) point
  double cost = 0.0;          // F(u); +inf before the first Tell
  std::vector<double> g;      // at u
  std::vector<double> a;      // A at u, full dim×dim row-major
  std::vector<double> scale;  // D
  double lambda = 0.0;
  double nu = 2.0;
  std::vector<double> trial;  // pending point
  double predicted = 0.0;     // F(u) − F_model(trial − u)
  bool have_current = false;
  bool exact = false;  // its cost reached an exact fit (see above)
  int iterations = 0;
  double initial_cost = 0.0;
  LmTermination termination = LmTermination::kNotDone;
};

class LevenbergMarquardt {
 public:
  // starts: packed [start][dim] in [0,1]. Throws frfit::Error for invalid options or starts.
  LevenbergMarquardt(const LevenbergMarquardtOptions& options, int dim,
                     std::span<const double> starts);
  // Resumes a run saved by SaveState. Throws frfit::Error naming what is malformed.
  explicit LevenbergMarquardt(const nlohmann::json& state);

  // Points to evaluate next, one per unfinished start, packed [point][dim]; empty when Done().
  const std::vector<double>& Ask() const { return pending_; }
  int batch_size() const { return static_cast<int>(pending_.size()) / dim_; }
  // For every asked point, in order: NormalTermCount(dim) terms. A point whose evaluation
  // failed (non-finite cost) is a rejected trial, or, at a start's first point, ends that start.
  void Tell(std::span<const double> normal);

  bool Done() const { return pending_.empty(); }
  int dim() const { return dim_; }
  const LevenbergMarquardtOptions& options() const { return options_; }
  const std::vector<LmStart>& starts() const { return starts_; }
  // Best start so far (lowest current cost; ties: lowest index).
  int best_start() const;
  const std::vector<double>& best_u() const { return starts_[best_start()].u; }
  double best_cost() const { return starts_[best_start()].cost; }
  // Starts whose final cost agrees with the best (options.agreement_tolerance), the best included.
  int agreeing_starts() const;
  // Whether some start fitted the data exactly (then the best start is that one).
  bool exact_fit() const;
  // Rounds told so far, less one: 0 after the starts themselves, then one per lock-step iteration
  // (-1 before the first Tell).
  int round() const { return rounds_ - 1; }
  std::int64_t evaluations() const { return evaluations_; }

  nlohmann::json SaveState() const;

  // Constraints beyond the box (fit/parameter_map.h): given the current point u, the damped
  // step's target u + δ and its metric A + λD (dim×dim, row-major), the point the step goes to
  // instead, feasible. With one installed every step solves (A + λD)δ = −g on all coordinates
  // and the projection (which knows the box too) replaces the clamping and the held set. Not
  // part of SaveState: whoever resumes a run installs it again.
  using StepProjection = std::function<std::vector<double>(
      std::span<const double> u, std::span<const double> target, std::span<const double> metric)>;
  void set_step_projection(StepProjection projection) { projection_ = std::move(projection); }

  // An exact fit beside the relative test above: a start whose accepted cost is at or below
  // `cost` fitted the data as exactly as the model can (a reduced model: the floor its reduction
  // error explains, fit/reduce_problem.h). 0 (the default): none. Not part of SaveState: whoever
  // resumes a run installs it again.
  void set_exact_fit_cost(double cost) { exact_fit_cost_ = cost; }
  double exact_fit_cost() const { return exact_fit_cost_; }

 private:
  void Accept(LmStart& s, std::span<const double> terms);
  void Propose(LmStart& s);
  void StopAgreeingStarts();
  double ModelReduction(const LmStart& s) const;
  bool WithinSigmaStep(const LmStart& s, const std::vector<int>& free) const;
  double AgreementMargin(const LmStart& best) const;
  void Refresh();

  LevenbergMarquardtOptions options_;
  int dim_ = 0;
  std::vector<LmStart> starts_;
  std::vector<int> asked_;  // start of each pending point
  std::vector<double> pending_;
  std::int64_t evaluations_ = 0;
  int rounds_ = 0;
  StepProjection projection_;
  double exact_fit_cost_ = 0.0;
};

}  // namespace frfit
