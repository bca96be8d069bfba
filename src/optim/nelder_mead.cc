// NelderMead (fminsearch as an ask/tell state machine), its bounded wrapper and checkpoint state.
// The branch structure of Tell() follows fminsearch.m's main loop one decision at a time; see
// nelder_mead.h for what is reproduced.
#include "frfit/optim/nelder_mead.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "frfit/common/enum_names.h"
#include "frfit/common/error.h"
#include "frfit/optim/parameter_space.h"
#include "frfit/optim/state_json.h"

namespace frfit {
namespace {

// fminsearch.m's coefficients.
constexpr double kRho = 1.0;                // reflection
constexpr double kChi = 2.0;                // expansion
constexpr double kPsi = 0.5;                // contraction
constexpr double kSigma = 0.5;              // shrink
constexpr double kUsualDelta = 0.05;        // initial simplex: 5 % of a nonzero coordinate
constexpr double kZeroTermDelta = 0.00025;  // initial simplex: value for a zero coordinate

// Matlab's ascending sort order: NaN after everything, the rest by <.
bool SortsBefore(double a, double b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return a < b;
}

// Matlab's max ignores NaN unless every element is NaN.
void MaxIgnoringNaN(double v, double* acc) {
  if (std::isnan(v)) return;
  if (std::isnan(*acc) || v > *acc) *acc = v;
}

const NelderMeadStep kAllSteps[] = {
    NelderMeadStep::kInitialSimplex,  NelderMeadStep::kReflect,        NelderMeadStep::kExpand,
    NelderMeadStep::kContractOutside, NelderMeadStep::kContractInside, NelderMeadStep::kShrink};
const NelderMeadTermination kAllReasons[] = {
    NelderMeadTermination::kNotDone, NelderMeadTermination::kTolerance,
    NelderMeadTermination::kMaxIterations, NelderMeadTermination::kMaxEvaluations};

}  // namespace

bool NelderMeadOptions::IsValid(std::string* error) const {
  auto fail = [&](const std::string& message) {
    if (error != nullptr) *error = message;
    return false;
  };
  if (max_iterations < 1) {
    return fail("max_iterations: expected >= 1, got " + std::to_string(max_iterations));
  }
  if (max_evaluations < 1 && max_evaluations != -1) {
    return fail("max_evaluations: expected >= 1 or -1 (200 * dim), got " +
                std::to_string(max_evaluations));
  }
  if (!(tol_x >= 0.0) || !std::isfinite(tol_x)) {
    return fail("tol_x: expected finite and >= 0, got " + FormatDouble(tol_x));
  }
  if (!(tol_fun >= 0.0) || !std::isfinite(tol_fun)) {
    return fail("tol_fun: expected finite and >= 0, got " + FormatDouble(tol_fun));
  }
  return true;
}

namespace {
constexpr std::pair<NelderMeadTermination, const char*> kTerminations[] = {
    {NelderMeadTermination::kNotDone, "not_done"},
    {NelderMeadTermination::kTolerance, "tol"},
    {NelderMeadTermination::kMaxIterations, "max_iterations"},
    {NelderMeadTermination::kMaxEvaluations, "max_evaluations"}};
constexpr std::pair<NelderMeadStep, const char*> kSteps[] = {
    {NelderMeadStep::kInitialSimplex, "initial_simplex"},
    {NelderMeadStep::kReflect, "reflect"},
    {NelderMeadStep::kExpand, "expand"},
    {NelderMeadStep::kContractOutside, "contract_outside"},
    {NelderMeadStep::kContractInside, "contract_inside"},
    {NelderMeadStep::kShrink, "shrink"}};
}  // namespace

std::string ToString(NelderMeadTermination reason) { return EnumName(kTerminations, reason); }
std::string ToString(NelderMeadStep step) { return EnumName(kSteps, step); }

NelderMead::NelderMead(const NelderMeadOptions& options, std::span<const double> x0)
    : options_(options), dim_(static_cast<int>(x0.size())) {
  std::string error;
  if (!options.IsValid(&error)) throw Error("", "nelder_mead", error);
  if (x0.empty()) throw Error("NelderMead: expected a start point of dim >= 1, got 0 values");
  for (std::size_t i = 0; i < x0.size(); ++i) {
    if (!std::isfinite(x0[i])) {
      throw Error("NelderMead: expected a finite start point, got x0[" + std::to_string(i) +
                  "] = " + FormatDouble(x0[i]));
    }
  }
  // Vertex 0 is x0; vertex j+1 perturbs coordinate j (Pfeffer's rule, as in fminsearch.m).
  const std::size_t n = dim_;
  pending_.assign(x0.begin(), x0.end());
  for (std::size_t j = 0; j < n; ++j) {
    std::vector<double> y(x0.begin(), x0.end());
    y[j] = y[j] != 0.0 ? (1.0 + kUsualDelta) * y[j] : kZeroTermDelta;
    pending_.insert(pending_.end(), y.begin(), y.end());
  }
}

NelderMead::NelderMead(const NelderMeadState& s)
    : options_(s.options),
      dim_(s.dim),
      simplex_(s.simplex),
      values_(s.values),
      step_(s.step),
      pending_(s.pending),
      reflected_(s.reflected),
      reflected_cost_(s.reflected_cost),
      iterations_(s.iterations),
      evaluations_(s.evaluations),
      termination_(s.termination) {
  std::string error;
  if (!options_.IsValid(&error)) throw Error("", "nelder_mead_state.options", error);
  const auto bad = [](const std::string& what) { throw Error("", "nelder_mead_state", what); };
  if (s.bounded) bad("saved by BoundedNelderMead; resume it with BoundedNelderMead");
  if (dim_ < 1) bad("expected dim >= 1, got " + std::to_string(dim_));
  const std::size_t n = dim_;
  const bool started = step_ != NelderMeadStep::kInitialSimplex;
  if (simplex_.size() != (started ? (n + 1) * n : 0) || values_.size() != (started ? n + 1 : 0)) {
    bad("simplex/values sizes do not match dim and step");
  }
  std::size_t batch = step_ == NelderMeadStep::kInitialSimplex ? n + 1
                      : step_ == NelderMeadStep::kShrink       ? n
                                                               : 1;
  if (pending_.size() != (Done() ? 0 : batch * n)) bad("pending size does not match step");
  const bool needs_xr =
      step_ == NelderMeadStep::kExpand || step_ == NelderMeadStep::kContractOutside;
  if (!Done() && needs_xr != !reflected_.empty()) bad("reflected point does not match step");
  if (!reflected_.empty() && reflected_.size() != n) bad("reflected point size does not match dim");
  // xbar is a pure function of the sorted simplex; recomputing it gives the same bits.
  if (started && !Done()) {
    xbar_.assign(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      double sum = 0.0;
      for (std::size_t j = 0; j < n; ++j) sum += simplex_[j * n + i];
      xbar_[i] = sum / static_cast<double>(n);
    }
  }
}

NelderMeadState NelderMead::SaveState() const {
  NelderMeadState s;
  s.options = options_;
  s.dim = dim_;
  s.simplex = simplex_;
  s.values = values_;
  s.step = step_;
  s.pending = pending_;
  s.reflected = reflected_;
  s.reflected_cost = reflected_cost_;
  s.iterations = iterations_;
  s.evaluations = evaluations_;
  s.termination = termination_;
  return s;
}

std::vector<double> NelderMead::best_x() const {
  if (simplex_.empty()) return {pending_.begin(), pending_.begin() + dim_};
  return {simplex_.begin(), simplex_.begin() + dim_};
}

double NelderMead::best_cost() const {
  return values_.empty() ? std::numeric_limits<double>::infinity() : values_[0];
}

std::vector<double> NelderMead::Combine(double a, double b) const {
  const std::size_t n = dim_;
  const double* worst = &simplex_[n * n];
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = a * xbar_[i] + b * worst[i];
  return x;
}

void NelderMead::ReplaceWorst(const std::vector<double>& x, double cost) {
  const std::size_t n = dim_;
  std::copy(x.begin(), x.end(), simplex_.begin() + n * n);
  values_[n] = cost;
}

void NelderMead::Tell(std::span<const double> costs) {
  if (Done()) throw Error("NelderMead::Tell: the run is done (" + ToString(termination_) + ")");
  const std::size_t n = dim_;
  const std::size_t batch = pending_.size() / n;
  if (costs.size() != batch) {
    throw Error("NelderMead::Tell: expected " + std::to_string(batch) + " costs (" +
                ToString(step_) + "), got " + std::to_string(costs.size()));
  }
  const double f = costs[0];
  switch (step_) {
    case NelderMeadStep::kInitialSimplex:
      simplex_ = pending_;
      values_.assign(costs.begin(), costs.end());
      evaluations_ = static_cast<std::int64_t>(n) + 1;
      EndIteration();  // the initial simplex is iteration 1
      return;

    case NelderMeadStep::kReflect:
      ++evaluations_;
      if (f < values_[0]) {
        reflected_ = pending_;
        reflected_cost_ = f;
        step_ = NelderMeadStep::kExpand;
        pending_ = Combine(1.0 + kRho * kChi, -(kRho * kChi));
      } else if (f < values_[n - 1]) {
        ReplaceWorst(pending_, f);
        EndIteration();
      } else if (f < values_[n]) {
        reflected_ = pending_;
        reflected_cost_ = f;
        step_ = NelderMeadStep::kContractOutside;
        pending_ = Combine(1.0 + kPsi * kRho, -(kPsi * kRho));
      } else {
        // Reached also for NaN f (every comparison false), as in fminsearch.m.
        reflected_.clear();
        step_ = NelderMeadStep::kContractInside;
        pending_ = Combine(1.0 - kPsi, kPsi);
      }
      return;

    case NelderMeadStep::kExpand:
      ++evaluations_;
      if (f < reflected_cost_) {
        ReplaceWorst(pending_, f);
      } else {
        ReplaceWorst(reflected_, reflected_cost_);
      }
      EndIteration();
      return;

    case NelderMeadStep::kContractOutside:
      ++evaluations_;
      if (f <= reflected_cost_) {
        ReplaceWorst(pending_, f);
        EndIteration();
      } else {
        AskShrink();
      }
      return;

    case NelderMeadStep::kContractInside:
      ++evaluations_;
      if (f < values_[n]) {
        ReplaceWorst(pending_, f);
        EndIteration();
      } else {
        AskShrink();
      }
      return;

    case NelderMeadStep::kShrink:
      std::copy(pending_.begin(), pending_.end(), simplex_.begin() + n);
      std::copy(costs.begin(), costs.end(), values_.begin() + 1);
      evaluations_ += static_cast<std::int64_t>(n);
      EndIteration();
      return;
  }
}

void NelderMead::AskShrink() {
  const std::size_t n = dim_;
  pending_.resize(n * n);
  for (std::size_t j = 1; j <= n; ++j) {
    for (std::size_t i = 0; i < n; ++i) {
      const double best = simplex_[i];
      pending_[(j - 1) * n + i] = best + kSigma * (simplex_[j * n + i] - best);
    }
  }
  step_ = NelderMeadStep::kShrink;
  reflected_.clear();
}

void NelderMead::SortSimplex() {
  const std::size_t n = dim_;
  std::vector<std::size_t> order(n + 1);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return SortsBefore(values_[a], values_[b]);
  });
  std::vector<double> simplex((n + 1) * n), values(n + 1);
  for (std::size_t r = 0; r <= n; ++r) {
    values[r] = values_[order[r]];
    std::copy_n(&simplex_[order[r] * n], n, &simplex[r * n]);
  }
  simplex_.swap(simplex);
  values_.swap(values);
}

void NelderMead::EndIteration() {
  SortSimplex();
  ++iterations_;
  reflected_.clear();
  BeginIteration();
}

void NelderMead::BeginIteration() {
  const std::size_t n = dim_;
  pending_.clear();
  // fminsearch's while condition, then its convergence break, in that order.
  const std::int64_t max_evals = options_.MaxEvaluationsUsed(dim_);
  if (!(evaluations_ < max_evals && iterations_ < options_.max_iterations)) {
    termination_ = evaluations_ >= max_evals ? NelderMeadTermination::kMaxEvaluations
                                             : NelderMeadTermination::kMaxIterations;
    return;
  }
  double fun_spread = std::nan("");
  double x_spread = std::nan("");
  for (std::size_t j = 1; j <= n; ++j) {
    MaxIgnoringNaN(std::fabs(values_[0] - values_[j]), &fun_spread);
    for (std::size_t i = 0; i < n; ++i) {
      MaxIgnoringNaN(std::fabs(simplex_[j * n + i] - simplex_[i]), &x_spread);
    }
  }
  if (fun_spread <= options_.tol_fun && x_spread <= options_.tol_x) {
    termination_ = NelderMeadTermination::kTolerance;
    return;
  }
  // xbar: mean of the n best vertices, summed in vertex order like sum(v(:,one2n),2)/n.
  xbar_.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < n; ++j) sum += simplex_[j * n + i];
    xbar_[i] = sum / static_cast<double>(n);
  }
  step_ = NelderMeadStep::kReflect;
  pending_ = Combine(1.0 + kRho, -kRho);
}

// --- bounded wrapper -----------------------------------------------------------------------------

namespace {

std::vector<double> CheckedUnitStart(std::span<const double> u0) {
  for (std::size_t i = 0; i < u0.size(); ++i) {
    if (!(u0[i] >= 0.0 && u0[i] <= 1.0)) {
      throw Error("BoundedNelderMead: expected a start point in [0, 1], got u0[" +
                  std::to_string(i) + "] = " + FormatDouble(u0[i]));
    }
  }
  return {u0.begin(), u0.end()};
}

NelderMeadState AsUnbounded(NelderMeadState s) {
  if (!s.bounded) {
    throw Error("", "nelder_mead_state.bounded",
                "expected a state saved by BoundedNelderMead, got an unbounded one");
  }
  s.bounded = false;
  return s;
}

}  // namespace

BoundedNelderMead::BoundedNelderMead(const NelderMeadOptions& options, std::span<const double> u0)
    : nm_(options, CheckedUnitStart(u0)) {
  Refresh();
}

BoundedNelderMead::BoundedNelderMead(const NelderMeadState& state) : nm_(AsUnbounded(state)) {
  Refresh();
}

void BoundedNelderMead::Tell(std::span<const double> costs) {
  nm_.Tell(costs);
  Refresh();
}

void BoundedNelderMead::Refresh() {
  const std::vector<double>& v = nm_.Ask();
  asked_u_.resize(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) asked_u_[k] = ReflectIntoUnitInterval(v[k]);
}

std::vector<double> BoundedNelderMead::best_u() const {
  std::vector<double> u = nm_.best_x();
  for (double& x : u) x = ReflectIntoUnitInterval(x);
  return u;
}

NelderMeadState BoundedNelderMead::SaveState() const {
  NelderMeadState s = nm_.SaveState();
  s.bounded = true;
  return s;
}

// --- JSON ----------------------------------------------------------------------------------------

void to_json(nlohmann::json& j, const NelderMeadState& s) {
  j = nlohmann::json{{"format", "frfit.nelder_mead_state.v1"},
                     {"options",
                      {{"max_iterations", s.options.max_iterations},
                       {"max_evaluations", s.options.max_evaluations},
                       {"tol_x", DoubleToHex(s.options.tol_x)},
                       {"tol_fun", DoubleToHex(s.options.tol_fun)}}},
                     {"dim", s.dim},
                     {"bounded", s.bounded},
                     {"simplex", DoublesToJson(s.simplex)},
                     {"values", DoublesToJson(s.values)},
                     {"step", ToString(s.step)},
                     {"pending", DoublesToJson(s.pending)},
                     {"reflected", DoublesToJson(s.reflected)},
                     {"reflected_cost", DoubleToHex(s.reflected_cost)},
                     {"iterations", s.iterations},
                     {"evaluations", s.evaluations},
                     {"termination", ToString(s.termination)}};
}

void from_json(const nlohmann::json& j, NelderMeadState& s) {
  const std::string ctx = "nelder_mead_state";
  const std::string format = JsonField<std::string>(j, "format", ctx);
  if (format != "frfit.nelder_mead_state.v1") {
    throw Error("", ctx + ".format", "expected frfit.nelder_mead_state.v1, got " + format);
  }
  const nlohmann::json o = JsonField<nlohmann::json>(j, "options", ctx);
  const std::string octx = ctx + ".options";
  s.options.max_iterations = JsonField<int>(o, "max_iterations", octx);
  s.options.max_evaluations = JsonField<int>(o, "max_evaluations", octx);
  s.options.tol_x = DoubleFromHex(JsonField<std::string>(o, "tol_x", octx), octx + ".tol_x");
  s.options.tol_fun = DoubleFromHex(JsonField<std::string>(o, "tol_fun", octx), octx + ".tol_fun");
  s.dim = JsonField<int>(j, "dim", ctx);
  s.bounded = JsonField<bool>(j, "bounded", ctx);
  auto doubles = [&](const char* key) {
    return DoublesFromJson(JsonField<nlohmann::json>(j, key, ctx), ctx + "." + key);
  };
  s.simplex = doubles("simplex");
  s.values = doubles("values");
  s.pending = doubles("pending");
  s.reflected = doubles("reflected");
  s.reflected_cost =
      DoubleFromHex(JsonField<std::string>(j, "reflected_cost", ctx), ctx + ".reflected_cost");
  s.iterations = JsonField<int>(j, "iterations", ctx);
  s.evaluations = JsonField<std::int64_t>(j, "evaluations", ctx);
  const std::string step = JsonField<std::string>(j, "step", ctx);
  bool found = false;
  for (NelderMeadStep candidate : kAllSteps) {
    if (ToString(candidate) == step) {
      s.step = candidate;
      found = true;
    }
  }
  if (!found) throw Error("", ctx + ".step", "expected a NelderMeadStep name, got " + step);
  const std::string reason = JsonField<std::string>(j, "termination", ctx);
  found = false;
  for (NelderMeadTermination candidate : kAllReasons) {
    if (ToString(candidate) == reason) {
      s.termination = candidate;
      found = true;
    }
  }
  if (!found) {
    throw Error("", ctx + ".termination", "expected a NelderMeadTermination name, got " + reason);
  }
}

}  // namespace frfit
