#include "frfit/optim/levenberg_marquardt.h"

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>

#include "frfit/common/enum_names.h"
#include "frfit/common/error.h"
#include "frfit/optim/state_json.h"
#include "kernels/line_normal.h"

namespace frfit {
namespace {

// The coordinates a step may move: those not held at a bound, where descent (−g) points out of
// the box.
std::vector<int> FreeCoordinates(const LmStart& s, int n) {
  std::vector<int> free;
  for (int j = 0; j < n; ++j)
    if (!((s.u[j] <= 0.0 && s.g[j] > 0.0) || (s.u[j] >= 1.0 && s.g[j] < 0.0))) free.push_back(j);
  return free;
}

constexpr double kInf = std::numeric_limits<double>::infinity();
// λ beyond this with no acceptable step: the Gauss–Newton model and the cost disagree at the
// precision of the cost itself.
constexpr double kMaxDamping = 1e16;
// A cost this far below the start's initial cost is zero to working precision (an exact fit).
constexpr double kExactFit = 1e-20;

double Cube(double x) { return x * x * x; }

}  // namespace

bool LevenbergMarquardtOptions::IsValid(std::string* error) const {
  auto fail = [&](const std::string& message) {
    if (error) *error = message;
    return false;
  };
  if (max_iterations < 1)
    return fail("max_iterations: expected >= 1, got " + std::to_string(max_iterations));
  if (agreeing_starts < 1)
    return fail("agreeing_starts: expected >= 1, got " + std::to_string(agreeing_starts));
  if (!(initial_damping > 0.0) || !std::isfinite(initial_damping))
    return fail("initial_damping: expected a finite number > 0, got " +
                FormatDouble(initial_damping));
  const std::pair<const char*, double> tolerances[] = {
      {"tol_gradient", tol_gradient},
      {"tol_step", tol_step},
      {"tol_cost", tol_cost},
      {"agreement_tolerance", agreement_tolerance},
      {"sigma_step", sigma_step}};
  for (const auto& [name, value] : tolerances)
    if (!(value >= 0.0) || !std::isfinite(value))
      return fail(std::string(name) + ": expected a finite number >= 0, got " +
                  FormatDouble(value));
  if (starts < 1) return fail("starts: expected >= 1, got " + std::to_string(starts));
  if (!(drop_factor == 0.0 || (drop_factor > 1.0 && std::isfinite(drop_factor))))
    return fail("drop_factor: expected 0 (off) or a finite number > 1, got " +
                FormatDouble(drop_factor));
  if (drop_after < 1) return fail("drop_after: expected >= 1, got " + std::to_string(drop_after));
  if (!(start_separation >= 0.0 && start_separation <= 1.0))
    return fail("start_separation: expected a number in [0, 1], got " +
                FormatDouble(start_separation));
  return true;
}

constexpr std::pair<LmTermination, const char*> kTerminations[] = {
    {LmTermination::kNotDone, "not_done"},
    {LmTermination::kGradient, "gradient"},
    {LmTermination::kStep, "step"},
    {LmTermination::kCost, "cost"},
    {LmTermination::kStopped, "stopped"},
    {LmTermination::kDropped, "dropped"},
    {LmTermination::kAgreed, "agreed"},
    {LmTermination::kSigmaStep, "sigma_step"},
    {LmTermination::kMaxIterations, "max_iterations"},
    {LmTermination::kNoProgress, "no_progress"}};

std::string ToString(LmTermination t) { return EnumName(kTerminations, t); }
bool FromString(const std::string& text, LmTermination* t) {
  return EnumFromName(kTerminations, text, t);
}

bool IsConverged(LmTermination t) {
  return t == LmTermination::kGradient || t == LmTermination::kStep ||
         t == LmTermination::kCost || t == LmTermination::kSigmaStep;
}

LevenbergMarquardt::LevenbergMarquardt(const LevenbergMarquardtOptions& options, int dim,
                                       std::span<const double> starts)
    : options_(options), dim_(dim) {
  std::string error;
  if (!options.IsValid(&error)) throw Error("", "levenberg_marquardt", error);
  if (dim < 1 || dim > kernels::kMaxParameters)
    throw Error("", "levenberg_marquardt",
                "expected 1 to " + std::to_string(kernels::kMaxParameters) + " parameters, got " +
                    std::to_string(dim));
  if (starts.empty() || starts.size() % dim != 0)
    throw Error("", "levenberg_marquardt",
                "expected one or more starts of " + std::to_string(dim) + " values, got " +
                    std::to_string(starts.size()) + " values");
  for (double v : starts)
    if (!(v >= 0.0 && v <= 1.0))
      throw Error("", "levenberg_marquardt", "expected starts in [0, 1], got " + FormatDouble(v));
  for (size_t at = 0; at < starts.size(); at += dim) {
    LmStart s;
    s.u.assign(starts.begin() + at, starts.begin() + at + dim);
    s.trial = s.u;
    s.cost = kInf;
    s.initial_cost = kInf;
    starts_.push_back(std::move(s));
  }
  Refresh();
}

void LevenbergMarquardt::Refresh() {
  pending_.clear();
  asked_.clear();
  for (size_t i = 0; i < starts_.size(); ++i) {
    if (starts_[i].termination != LmTermination::kNotDone) continue;
    asked_.push_back(static_cast<int>(i));
    pending_.insert(pending_.end(), starts_[i].trial.begin(), starts_[i].trial.end());
  }
}

void LevenbergMarquardt::Tell(std::span<const double> normal) {
  const size_t terms = kernels::NormalTermCount(dim_);
  if (Done()) throw Error("", "levenberg_marquardt", "Tell after the run is done");
  if (normal.size() != asked_.size() * terms)
    throw Error("", "levenberg_marquardt",
                "expected " + std::to_string(asked_.size() * terms) +
                    " normal-equation terms, got " + std::to_string(normal.size()));
  for (size_t k = 0; k < asked_.size(); ++k) {
    Accept(starts_[asked_[k]], normal.subspan(k * terms, terms));
    ++evaluations_;
  }
  ++rounds_;
  if (exact_fit())
    for (LmStart& s : starts_)
      if (!s.exact && s.termination == LmTermination::kNotDone)
        s.termination = LmTermination::kStopped;
  if (options_.drop_factor > 0.0) {
    const double best = starts_[best_start()].cost;
    for (LmStart& s : starts_)
      if (s.termination == LmTermination::kNotDone && s.iterations >= options_.drop_after &&
          s.cost > options_.drop_factor * best)
        s.termination = LmTermination::kDropped;
  }
  StopAgreeingStarts();
  Refresh();
}

// Once the best start has converged, a start that already agrees with it and whose own
// Gauss–Newton model cannot take it below it would only polish: on a warm fleet night such
// starts made 6 % of all evaluations after the best had stopped, moving their costs in the
// tenth digit. It stops ("agreed"), counted as agreeing as it would have been at its end.
void LevenbergMarquardt::StopAgreeingStarts() {
  const int best_index = best_start();
  const LmStart& best = starts_[best_index];
  if (!IsConverged(best.termination)) return;
  const double within = AgreementMargin(best);
  for (size_t i = 0; i < starts_.size(); ++i) {
    LmStart& s = starts_[i];
    if (static_cast<int>(i) == best_index || s.termination != LmTermination::kNotDone ||
        !s.have_current || !(s.cost - best.cost <= within))
      continue;
    const double reach = ModelReduction(s);
    if (s.cost - reach >= best.cost) s.termination = LmTermination::kAgreed;
  }
}

// The most the start's quadratic model F + 2gᵀδ + δᵀAδ can fall over its free coordinates,
// gᵀA⁻¹g (undamped); +inf where A is not positive definite there (the model has no bottom).
double LevenbergMarquardt::ModelReduction(const LmStart& s) const {
  const int n = dim_;
  const std::vector<int> free = FreeCoordinates(s, n);
  const int m = static_cast<int>(free.size());
  if (m == 0) return 0.0;
  Eigen::MatrixXd a(m, m);
  Eigen::VectorXd g(m);
  for (int i = 0; i < m; ++i) {
    g(i) = s.g[free[i]];
    for (int k = 0; k < m; ++k) a(i, k) = s.a[free[i] * n + free[k]];
  }
  const Eigen::LLT<Eigen::MatrixXd> llt(a);
  if (llt.info() != Eigen::Success) return std::numeric_limits<double>::infinity();
  const double reduction = g.dot(llt.solve(g));
  return std::isfinite(reduction) && reduction >= 0.0 ? reduction
                                                      : std::numeric_limits<double>::infinity();
}

// Whether the undamped Gauss–Newton step −A⁻¹g over the free coordinates moves each by at most
// sigma_step of its 1σ, √((2A)⁻¹)_jj (the covariance of a χ²/2 cost): the minimum of the start's
// quadratic model is then within that fraction of 1σ of where it stands. False where A is not
// positive definite there (no bottom to be near).
bool LevenbergMarquardt::WithinSigmaStep(const LmStart& s, const std::vector<int>& free) const {
  const int n = dim_;
  const int m = static_cast<int>(free.size());
  if (m == 0) return false;
  Eigen::MatrixXd a(m, m);
  Eigen::VectorXd g(m);
  for (int i = 0; i < m; ++i) {
    g(i) = s.g[free[i]];
    for (int k = 0; k < m; ++k) a(i, k) = s.a[free[i] * n + free[k]];
  }
  const Eigen::LLT<Eigen::MatrixXd> llt(a);
  if (llt.info() != Eigen::Success) return false;
  const Eigen::VectorXd step = llt.solve(-g);
  const Eigen::MatrixXd inverse = llt.solve(Eigen::MatrixXd::Identity(m, m));
  for (int i = 0; i < m; ++i) {
    const double sigma = std::sqrt(0.5 * inverse(i, i));
    if (!(std::abs(step(i)) <= options_.sigma_step * sigma)) return false;
  }
  return true;
}

void LevenbergMarquardt::Accept(LmStart& s, std::span<const double> terms) {
  const int n = dim_;
  const double cost = terms[0];
  auto take = [&] {
    s.u = s.trial;
    s.cost = cost;
    s.g.assign(terms.begin() + 1, terms.begin() + 1 + n);
    s.a.assign(static_cast<size_t>(n) * n, 0.0);
    for (int j = 0; j < n; ++j)
      for (int k = j; k < n; ++k)
        s.a[j * n + k] = s.a[k * n + j] = terms[kernels::NormalTermIndex(n, j, k)];
    if (s.scale.empty()) s.scale.assign(n, 0.0);
    double largest = 0.0;
    for (int j = 0; j < n; ++j) {
      s.scale[j] = std::max(s.scale[j], s.a[j * n + j]);
      largest = std::max(largest, s.scale[j]);
    }
    const double floor = std::max(1e-12 * largest, std::numeric_limits<double>::min());
    for (double& d : s.scale) d = std::max(d, floor);
  };
  if (!s.have_current) {
    if (!std::isfinite(cost)) {
      s.termination = LmTermination::kNoProgress;  // the start itself cannot be evaluated
      return;
    }
    take();
    s.have_current = true;
    s.initial_cost = cost;
    s.lambda = options_.initial_damping;
    s.nu = 2.0;
  } else {
    ++s.iterations;
    const double before = s.cost;
    if (std::isfinite(cost) && cost < before) {
      const double actual = before - cost;
      const double rho = actual / s.predicted;
      const double predicted = s.predicted;
      take();
      s.lambda *= std::max(1.0 / 3.0, 1.0 - Cube(2.0 * rho - 1.0));
      s.nu = 2.0;
      s.exact = s.exact || cost <= kExactFit * s.initial_cost ||
                (exact_fit_cost_ > 0.0 && cost <= exact_fit_cost_);
      if (cost == 0.0 ||
          (actual <= options_.tol_cost * before && predicted <= options_.tol_cost * before)) {
        s.termination = LmTermination::kCost;
        return;
      }
    } else {
      s.lambda *= s.nu;
      s.nu *= 2.0;
      if (s.lambda > kMaxDamping) {
        s.termination = LmTermination::kNoProgress;
        return;
      }
    }
    if (s.iterations >= options_.max_iterations) {
      s.termination = LmTermination::kMaxIterations;
      return;
    }
  }
  Propose(s);
}

void LevenbergMarquardt::Propose(LmStart& s) {
  const int n = dim_;
  std::vector<int> free = FreeCoordinates(s, n);
  if (projection_) {  // the projection holds what must be held
    free.resize(n);
    for (int j = 0; j < n; ++j) free[j] = j;
  }
  bool stationary = true;
  for (int j : free)
    stationary =
        stationary && std::abs(s.g[j]) <= options_.tol_gradient * std::sqrt(s.scale[j] * s.cost);
  if (stationary) {
    s.termination = LmTermination::kGradient;
    return;
  }
  if (options_.sigma_step > 0.0 && WithinSigmaStep(s, free)) {
    s.termination = LmTermination::kSigmaStep;
    return;
  }
  const int m = static_cast<int>(free.size());
  Eigen::MatrixXd a(m, m);
  Eigen::VectorXd rhs(m);
  for (int i = 0; i < m; ++i) {
    rhs(i) = -s.g[free[i]];
    for (int k = 0; k < m; ++k) a(i, k) = s.a[free[i] * n + free[k]];
  }
  double largest_u = 0.0;
  for (double v : s.u) largest_u = std::max(largest_u, std::abs(v));
  while (true) {
    Eigen::MatrixXd damped = a;
    for (int i = 0; i < m; ++i) damped(i, i) += s.lambda * s.scale[free[i]];
    const Eigen::VectorXd delta = damped.ldlt().solve(rhs);
    std::vector<double> trial = s.u;
    bool finite = true;
    for (int i = 0; i < m; ++i) {
      finite = finite && std::isfinite(delta(i));
      trial[free[i]] = projection_ ? s.u[free[i]] + delta(i)
                                   : std::clamp(s.u[free[i]] + delta(i), 0.0, 1.0);
    }
    if (projection_ && finite)
      trial = projection_(s.u, trial, std::span<const double>(damped.data(), n * n));
    if (finite) {
      std::vector<double> step(n);
      double largest_step = 0.0;
      for (int j = 0; j < n; ++j) {
        step[j] = trial[j] - s.u[j];
        largest_step = std::max(largest_step, std::abs(step[j]));
      }
      if (largest_step <= options_.tol_step * (largest_u + options_.tol_step)) {
        s.termination = LmTermination::kStep;
        return;
      }
      // F_model(δ) = F + 2gᵀδ + δᵀAδ; the reduction it predicts must be positive.
      double gd = 0.0, ada = 0.0;
      for (int j = 0; j < n; ++j) {
        gd += s.g[j] * step[j];
        for (int k = 0; k < n; ++k) ada += step[j] * s.a[j * n + k] * step[k];
      }
      const double predicted = -(2.0 * gd + ada);
      if (predicted > 0.0) {
        s.trial = std::move(trial);
        s.predicted = predicted;
        return;
      }
    }
    s.lambda *= s.nu;
    s.nu *= 2.0;
    if (s.lambda > kMaxDamping) {
      s.termination = LmTermination::kNoProgress;
      return;
    }
  }
}

int LevenbergMarquardt::best_start() const {
  int best = 0;
  for (size_t i = 1; i < starts_.size(); ++i)
    if (starts_[i].cost < starts_[best].cost) best = static_cast<int>(i);
  return best;
}

// How far above the best start's cost a start still agrees with it (options.agreement_tolerance,
// plus 1e-12 of the best's initial cost so that exact fits agree at any cost near 0).
double LevenbergMarquardt::AgreementMargin(const LmStart& best) const {
  return options_.agreement_tolerance * best.cost + 1e-12 * best.initial_cost;
}

int LevenbergMarquardt::agreeing_starts() const {
  const LmStart& best = starts_[best_start()];
  if (!best.have_current) return 0;
  const double within = AgreementMargin(best);
  int count = 0;
  for (const LmStart& s : starts_)
    if (s.have_current && s.cost - best.cost <= within) ++count;
  return count;
}

bool LevenbergMarquardt::exact_fit() const {
  for (const LmStart& s : starts_)
    if (s.exact) return true;
  return false;
}

// --- checkpoint state ---------------------------------------------------------------------------

nlohmann::json LevenbergMarquardt::SaveState() const {
  nlohmann::json j;
  j["options"] = {{"max_iterations", options_.max_iterations},
                  {"initial_damping", DoubleToHex(options_.initial_damping)},
                  {"tol_gradient", DoubleToHex(options_.tol_gradient)},
                  {"tol_step", DoubleToHex(options_.tol_step)},
                  {"tol_cost", DoubleToHex(options_.tol_cost)},
                  {"starts", options_.starts},
                  {"start_separation", DoubleToHex(options_.start_separation)},
                  {"drop_factor", DoubleToHex(options_.drop_factor)},
                  {"drop_after", options_.drop_after},
                  {"agreement_tolerance", DoubleToHex(options_.agreement_tolerance)},
                  {"agreeing_starts", options_.agreeing_starts}};
  if (options_.sigma_step > 0.0) j["options"]["sigma_step"] = DoubleToHex(options_.sigma_step);
  j["dim"] = dim_;
  j["evaluations"] = evaluations_;
  j["rounds"] = rounds_;
  nlohmann::json starts = nlohmann::json::array();
  for (const LmStart& s : starts_)
    starts.push_back({{"u", DoublesToJson(s.u)},
                      {"cost", DoubleToHex(s.cost)},
                      {"g", DoublesToJson(s.g)},
                      {"a", DoublesToJson(s.a)},
                      {"scale", DoublesToJson(s.scale)},
                      {"lambda", DoubleToHex(s.lambda)},
                      {"nu", DoubleToHex(s.nu)},
                      {"trial", DoublesToJson(s.trial)},
                      {"predicted", DoubleToHex(s.predicted)},
                      {"have_current", s.have_current},
                      {"exact", s.exact},
                      {"iterations", s.iterations},
                      {"initial_cost", DoubleToHex(s.initial_cost)},
                      {"termination", ToString(s.termination)}});
  j["starts"] = starts;
  return j;
}

LevenbergMarquardt::LevenbergMarquardt(const nlohmann::json& j) {
  const std::string ctx = "checkpoint.lm";
  auto hex = [&](const nlohmann::json& o, const char* key, const std::string& where) {
    return DoubleFromHex(JsonField<std::string>(o, key, where), where + "." + key);
  };
  const nlohmann::json& o = j.at("options");
  options_.max_iterations = JsonField<int>(o, "max_iterations", ctx + ".options");
  options_.initial_damping = hex(o, "initial_damping", ctx + ".options");
  options_.tol_gradient = hex(o, "tol_gradient", ctx + ".options");
  options_.tol_step = hex(o, "tol_step", ctx + ".options");
  options_.tol_cost = hex(o, "tol_cost", ctx + ".options");
  options_.starts = JsonField<int>(o, "starts", ctx + ".options");
  options_.start_separation = hex(o, "start_separation", ctx + ".options");
  options_.drop_factor = hex(o, "drop_factor", ctx + ".options");
  options_.drop_after = JsonField<int>(o, "drop_after", ctx + ".options");
  options_.agreement_tolerance = hex(o, "agreement_tolerance", ctx + ".options");
  options_.agreeing_starts = JsonField<int>(o, "agreeing_starts", ctx + ".options");
  if (o.contains("sigma_step")) options_.sigma_step = hex(o, "sigma_step", ctx + ".options");
  dim_ = JsonField<int>(j, "dim", ctx);
  evaluations_ = JsonField<std::int64_t>(j, "evaluations", ctx);
  rounds_ = JsonField<int>(j, "rounds", ctx);
  for (const nlohmann::json& s : j.at("starts")) {
    const std::string where = ctx + ".starts";
    LmStart start;
    start.u = DoublesFromJson(s.at("u"), where + ".u");
    start.cost = hex(s, "cost", where);
    start.g = DoublesFromJson(s.at("g"), where + ".g");
    start.a = DoublesFromJson(s.at("a"), where + ".a");
    start.scale = DoublesFromJson(s.at("scale"), where + ".scale");
    start.lambda = hex(s, "lambda", where);
    start.nu = hex(s, "nu", where);
    start.trial = DoublesFromJson(s.at("trial"), where + ".trial");
    start.predicted = hex(s, "predicted", where);
    start.have_current = JsonField<bool>(s, "have_current", where);
    start.exact = JsonField<bool>(s, "exact", where);
    start.iterations = JsonField<int>(s, "iterations", where);
    start.initial_cost = hex(s, "initial_cost", where);
    if (!FromString(JsonField<std::string>(s, "termination", where), &start.termination))
      throw Error(ctx, "starts.termination", "unknown termination");
    const size_t n = static_cast<size_t>(dim_);
    if (start.u.size() != n || start.trial.size() != n ||
        (start.have_current &&
         (start.g.size() != n || start.a.size() != n * n || start.scale.size() != n)))
      throw Error(ctx, "starts",
                  "damaged checkpoint state: sizes do not match dim " + std::to_string(dim_));
    starts_.push_back(std::move(start));
  }
  std::string error;
  if (dim_ < 1 || starts_.empty() || !options_.IsValid(&error))
    throw Error(ctx, "", "damaged checkpoint state: " + (error.empty() ? "no starts" : error));
  Refresh();
}

}  // namespace frfit
