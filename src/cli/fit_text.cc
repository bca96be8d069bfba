#include "fit_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace frfit::cli {
namespace {

// 1σ as a percentage that stays readable from 1e-12 % to "not determined".
std::string Percent(double relative) {
  char text[32];
  if (!std::isfinite(relative)) return "-";
  if (relative > 10.0) return ">1000";
  std::snprintf(text, sizeof text, relative * 100 >= 0.01 ? "%.2f" : "%.1e", relative * 100);
  return text;
}

}  // namespace

void PrintParameterTable(const FitResult& result) {
  const Identifiability& id = result.identifiability;
  std::printf(
      "\n  parameter          fitted      1σ [%%]      initial          min          max  unit\n");
  for (size_t i = 0; i < result.parameters.size(); ++i) {
    const auto it = std::find_if(
        id.per_parameter.begin(), id.per_parameter.end(),
        [&](const ParameterIdentifiability& q) { return q.name == result.parameter_names[i]; });
    const auto tied = std::find_if(
        id.tied.begin(), id.tied.end(),
        [&](const ParameterIdentifiability& q) { return q.name == result.parameter_names[i]; });
    if (tied != id.tied.end()) {  // an equality constraint ties it: its σ through the free ones
      std::printf("  %-12s %12.5g %11s %12.5g %12.5g %12.5g  %s  (tied: %s)\n",
                  result.parameter_names[i].c_str(), result.parameters[i],
                  Percent(tied->std_relative).c_str(), result.initial_parameters[i],
                  result.lower[i], result.upper[i], result.parameter_units[i].c_str(),
                  id.tied_by[tied - id.tied.begin()].c_str());
      continue;
    }
    const bool free = it != id.per_parameter.end();
    const std::string flag = !free                             ? "  (fixed)"
                             : it->at_bound == BoundFlag::kMin ? "  AT MIN BOUND"
                             : it->at_bound == BoundFlag::kMax ? "  AT MAX BOUND"
                                                               : "";
    std::printf("  %-12s %12.5g %11s %12.5g %12.5g %12.5g  %s%s\n",
                result.parameter_names[i].c_str(), result.parameters[i],
                free ? Percent(it->std_relative).c_str() : "", result.initial_parameters[i],
                result.lower[i], result.upper[i], result.parameter_units[i].c_str(), flag.c_str());
  }
}

// Constraints as the bounds are flagged: each one's slack, and ACTIVE where the fit ended on it.
void PrintConstraints(const std::vector<ConstraintStatus>& constraints) {
  if (constraints.empty()) return;
  std::printf("\n  constraints (docs/fit-config.md, \"Constraints\"):\n");
  for (const ConstraintStatus& c : constraints)
    std::printf("    %-32s slack %-12.4g%s\n", c.text.c_str(), c.slack,
                c.relation == Relation::kEqual ? "  (equality: eliminated)"
                : c.active                     ? "  ACTIVE"
                                               : "");
}

void PrintRegularization(const RegularizationSummary& r) {
  if (!r.enabled) return;
  const WeightCurvePoint& chosen = r.curve.points.at(r.curve.chosen);
  std::printf("\n  regularization toward the %s (docs/fit-config.md, \"Regularization\"): weight %.4g",
              ToString(r.toward).c_str(), r.weight);
  if (r.toward == RegularizationTarget::kNominal)
    std::printf(" (a prior of relative 1 sigma %.3g)", 1.0 / std::sqrt(r.weight));
  const char* rule = r.curve.rule == WeightRule::kGcv ? "GCV" : "the evidence";
  if (r.automatic)
    std::printf(", chosen by %s in %d fit%s\n", rule, r.fits, r.fits == 1 ? "" : "s");
  else
    std::printf(", as given; %s at the fit would choose %.4g\n", rule, chosen.weight);
  std::printf("    at the weight: residual norm %.6g, regularization norm %.4g\n",
              r.at_weight.residual_norm, r.at_weight.regularization_norm);
}

void PrintRefinement(const FitResult& result) {
  if (result.start_costs.empty()) return;
  const int starts = static_cast<int>(result.start_costs.size());
  std::printf(
      "\n  refinement: Levenberg-Marquardt from %d start%s, %d agree%s on the best minimum (%s)\n",
      starts, starts == 1 ? "" : "s", result.starts_agreeing,
      result.starts_agreeing == 1 ? "s" : "", result.refinement_termination.c_str());
  if (result.starts_agreeing < starts && starts > 1) {
    // The starts' costs are the search's (before the passes reweighted at the model): compared
    // with the search's best, not with the final cost.
    const double tolerance = 1e-3 * result.search_cost;
    std::vector<double> others;
    for (double c : result.start_costs)
      if (c > result.search_cost + tolerance) others.push_back(c);
    std::sort(others.begin(), others.end());
    std::printf("  the other starts ended at costs");
    for (size_t k = 0; k < std::min<size_t>(others.size(), 4); ++k) std::printf(" %.3g", others[k]);
    std::printf("%s: other local minima, or stopped once one start fitted the data exactly\n",
                others.size() > 4 ? " ..." : "");
    if (result.refinement_passes > 0)
      std::printf("  (the search's costs, whose best was %.3g; then %d refinement pass%s from it)\n",
                  result.search_cost, result.refinement_passes,
                  result.refinement_passes == 1 ? "" : "es");
  }
}

void PrintIdentifiability(const Identifiability& id) {
  if (id.singular_values.empty()) return;
  std::printf("\n  identifiability (docs/identifiability.md): condition number %.3g, %d residuals, ",
              id.condition_number, id.residuals);
  if (id.sigma_basis == SigmaBasis::kResidualScatter)
    std::printf("residual rms %.3g; 1σ from the residuals' scatter (the weights are emphasis)\n",
                std::sqrt(id.sigma2));
  else if (id.sigma_basis == SigmaBasis::kNoiseModel)
    std::printf("1σ from the noise model (reduced chi2 %.3g)\n", id.reduced_chi2);
  else if (id.sigma_basis == SigmaBasis::kNoiseModelScaled)
    std::printf("1σ from the noise model, scaled by sqrt(reduced chi2) = %.3g: noise "
                "overestimated (reduced chi2 %.3g, below %.3g, its 0.1 %% quantile)\n",
                id.widening, id.reduced_chi2, ReducedChi2Floor(id.residuals - id.parameters));
  else
    std::printf("1σ from the noise model, widened: the residual exceeds the noise (reduced chi2 "
                "%.3g)\n",
                id.reduced_chi2);
  if (id.has_prior) {
    std::printf("    with the prior (a MAP fit): 1σ are the posterior's; the weak directions are "
                "the data's\n    %-12s %14s %18s %11s %14s  %s\n",
                "parameter", "prior 1σ [%]", "posterior 1σ [%]", "post/prior", "shift [σ_pr]",
                "determined by");
    for (const ParameterIdentifiability& q : id.per_parameter)
      if (std::isfinite(q.prior_std_relative))
        std::printf("    %-12s %14s %18s %11.3f %+14.2f  %s\n", q.name.c_str(),
                    Percent(q.prior_std_relative).c_str(), Percent(q.std_relative).c_str(),
                    q.std_ratio, q.shift_in_prior_std, q.moved_by_data ? "the data" : "the prior");
  }
  for (const WeakDirection& d : id.weak_directions)
    std::printf("    weakly determined: %s  (singular value %.3g, 1σ %s %%)\n",
                d.description.c_str(), d.singular_value, Percent(d.std_relative).c_str());
  const size_t p = id.per_parameter.size();
  for (size_t j = 0; j < p; ++j)
    for (size_t k = j + 1; k < p; ++k) {
      const double rho = id.correlation[j * p + k];
      if (std::abs(rho) >= 0.95)
        std::printf("    correlated: %s and %s, %.3f\n", id.per_parameter[j].name.c_str(),
                    id.per_parameter[k].name.c_str(), rho);
    }
}

void PrintModelCheck(const ModelCheck& check) {
  if (!check.has_noise_model) {
    std::printf("\n  model check (docs/noise.md): unchecked, no noise model to hold the residual "
                "against\n");
    return;
  }
  std::printf("\n  model check (docs/noise.md): %s; reduced chi2 %.3g against the noise (%s)\n",
              check.verdict().c_str(), check.reduced_chi2, check.noise_source.c_str());
  for (const std::string& reason : check.reasons) std::printf("    %s\n", reason.c_str());
  if (check.verdict() == "misfit")
    std::printf("    the fitted values absorb what the model lacks: read them as effective "
                "values, not as the joints' physics\n");
}

void PrintStaticTests(const std::vector<StaticTestResult>& tests) {
  if (tests.empty()) return;
  double chi2 = 0.0;
  for (const StaticTestResult& t : tests) chi2 += t.Chi2();
  std::printf("\n  static deflection tests (docs/static-tests.md): %zu, chi2 %.3g over %zu "
              "components\n",
              tests.size(), chi2, 3 * tests.size());
  std::printf("    %-10s  measured [mm]                    fitted [mm]\n", "posture");
  for (const StaticTestResult& t : tests)
    std::printf("    %-10s  %9.4f %9.4f %9.4f    %9.4f %9.4f %9.4f\n", t.posture.c_str(),
                1e3 * t.measured_m[0], 1e3 * t.measured_m[1], 1e3 * t.measured_m[2],
                1e3 * t.fitted_m[0], 1e3 * t.fitted_m[1], 1e3 * t.fitted_m[2]);
}

void PrintModalData(const std::vector<ModalResidual>& modes) {
  if (modes.empty()) return;
  double cost = 0.0;
  for (const ModalResidual& m : modes) cost += m.cost;
  std::printf("\n  measured modes fitted (docs/fit-config.md, \"Modal data\"): %zu, cost %.4g\n",
              modes.size(), cost);
  std::printf("    %-10s %4s  %10s %10s  %8s  %6s  %8s\n", "posture", "mode", "f [Hz]",
              "model [Hz]", "df/sigma", "MAC", "shape r");
  for (const ModalResidual& m : modes) {
    if (m.model_mode < 0) {
      std::printf("    %-10s %4d  %10.3f %10s  %8s  %6s  %8.3g  (no partner among the model's modes)\n",
                  m.posture.c_str(), m.mode, m.frequency_hz, "-", "-", "-", m.shape_residual);
      continue;
    }
    std::printf("    %-10s %4d  %10.3f %10.3f  %8.3f  %6.4f  %8.3g\n", m.posture.c_str(), m.mode,
                m.frequency_hz, m.model_frequency_hz, m.frequency_residual, m.mac, m.shape_residual);
  }
}

namespace {

// The table's rows: each reference mode, its fitted partner with 1σ, the errors and the MAC.
void PrintModeRows(const ModalComparison& modal) {
  std::printf(
      "  mode   f_ref [Hz]   f_fit [Hz]   1σ [Hz]  error [%%]  zeta_ref [%%]  zeta_fit [%%]  "
      "1σ [%%]  error [%%]    MAC\n");
  for (size_t k = 0; k < modal.rows.size(); ++k) {
    const ModalComparisonRow& row = modal.rows[k];
    if (std::isnan(row.fitted_frequency_hz)) {  // one to one: no fitted mode left for it
      std::printf("  %4zu %12.4f %12s %9s %10s %13.3f %13s %7s %10s %6s\n", k + 1,
                  row.reference_frequency_hz, "unpaired", "-", "-",
                  100 * row.reference_damping_ratio, "-", "-", "-", "-");
      continue;
    }
    std::printf("  %4zu %12.4f %12.4f %9.3g %10.3f %13.3f %13.3f %7.2g %10.2f %6.3f\n", k + 1,
                row.reference_frequency_hz, row.fitted_frequency_hz,
                row.fitted_frequency_sigma_hz, row.frequency_error_percent,
                100 * row.reference_damping_ratio, 100 * row.fitted_damping_ratio,
                100 * row.fitted_damping_sigma, row.damping_error_percent, row.mac);
  }
  for (double f : modal.unpaired_fitted_frequency_hz)
    std::printf("  fitted mode at %.4f Hz: no reference mode pairs with it\n", f);
}

// The largest MAC of a reference mode with a fitted mode other than its partner: how close the
// shapes the comparison sees come to confusing two modes (near 1: it cannot tell them apart).
void PrintLargestMacOffPairs(const ModalComparison& modal) {
  double largest = -1.0, reference_hz = 0.0, fitted_hz = 0.0;
  for (Eigen::Index r = 0; r < modal.mac.rows(); ++r)
    for (Eigen::Index c = 0; c < modal.mac.cols(); ++c) {
      const double mac = modal.mac(r, c);
      if (modal.mac_fitted_frequency_hz[c] == modal.rows[r].fitted_frequency_hz || !(mac > largest))
        continue;
      largest = mac, reference_hz = modal.rows[r].reference_frequency_hz;
      fitted_hz = modal.mac_fitted_frequency_hz[c];
    }
  if (largest >= 0.0)
    std::printf("  largest MAC off the pairs: %.3f (reference %.4f Hz, fitted %.4f Hz)\n", largest,
                reference_hz, fitted_hz);
}

}  // namespace

void PrintModalComparison(const PostureResult& p) {
  std::printf("\n  posture %s (%s), cost %.6e; reference: %s\n", p.name.c_str(),
              p.frf_source.c_str(), p.cost, p.modal.reference.c_str());
  PrintModeRows(p.modal);
  PrintLargestMacOffPairs(p.modal);
}

void PrintModalComparisonPoints(const ModalComparisonPoints& c) {
  std::printf("\n  posture %s, mode shapes over all its points (%s); reference: %s\n",
              c.posture.c_str(), PointsAttribute(c.points).c_str(), c.modal.reference.c_str());
  PrintModeRows(c.modal);
  PrintLargestMacOffPairs(c.modal);
}

}  // namespace frfit::cli
