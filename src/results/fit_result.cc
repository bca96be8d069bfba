// A finished run's result assembled and assessed (AssembleFitResult), and its --json object. The
// result file's writer and reader are in fit_result_file.cc.
#include "frfit/results/fit_result.h"

#include <cmath>

#include "frfit/common/error.h"
#include "frfit/common/json_number.h"
#include "frfit/cost/static_sets.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/constraints_io.h"
#include "frfit/results/identifiability_io.h"
#include "frfit/fit/regularization_io.h"
#include "frfit/fit/load_problem.h"
#include "frfit/results/mode_uncertainty.h"
#include "frfit/results/model_check_io.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/frf/synthesize.h"
#include "frfit/io/ema_hdf5.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/files/atomic_file.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/model/joint_coefficients.h"

namespace frfit {

double StaticTestResult::Chi2() const {
  double chi2 = 0.0;
  for (int i = 0; i < 3; ++i) chi2 += std::pow((fitted_m[i] - measured_m[i]) / std_m[i], 2);
  return chi2;
}

namespace {

// The fitted model's deflection for each static test of the problem.
std::vector<StaticTestResult> StaticTestResults(const Problem& problem,
                                                const std::vector<double>& parameters) {
  std::vector<StaticTestResult> out;
  for (const ProblemPosture& pp : problem.postures) {
    if (!pp.is_static) continue;
    const Eigen::Vector3d fitted = PredictedDeflection(*problem.model, pp, parameters);
    StaticTestResult t;
    t.source = pp.source;
    t.posture = pp.posture.name;
    t.force_frame = pp.measured.excitation_frame;
    t.displacement_frame = pp.measured.response_frame;
    for (int i = 0; i < 3; ++i) t.force_n[i] = pp.static_force_n(i);
    for (int i = 0; i < 3; ++i) {
      t.measured_m[i] = pp.measured.H[EntryIndex(i, 0)].real();
      t.fitted_m[i] = fitted(i);
      t.std_m[i] = std::sqrt(pp.measured.noise_variance[EntryIndex(i, 0)]);
    }
    out.push_back(std::move(t));
  }
  return out;
}

// The measured modes' residuals at the fitted point, and their share of the identifiability's
// normal equations: residuals of unit variance, so noise-weighted alone or beside noise-weighted
// FRFs (fit/modal_cost.h).
void AddModalData(const ModalData& modes, const ParameterMap& map, std::span<const double> u,
                  IdentifiabilityInputs* inputs, FitResult* r) {
  if (modes.empty()) return;
  const ModalEvaluation e = EvaluateModalData(modes, map, u, false);
  r->modal_data = e.modes;
  // The shapes' σ from their own residuals; the frequencies' are the EMA files' (decisions.md).
  r->modal_shape_variance_ratio = ShapeVarianceRatio(modes, e, map.dim());
  AddModalNormalTermsForSigma(modes, map, u, r->modal_shape_variance_ratio, inputs->normal);
  AddModalNormalTermsForSigma(modes, map, u, r->modal_shape_variance_ratio,
                              inputs->normal_squared_weights);
  if (inputs->residuals == 0) inputs->noise_weighted = true;  // modes alone
  inputs->residuals += ModalResidualCount(modes);
}

nlohmann::ordered_json ModalDataToJson(const std::vector<ModalResidual>& modes,
                                       double shape_variance_ratio) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  double cost = 0.0;
  int unpaired = 0;
  for (const ModalResidual& m : modes) {
    cost += m.cost;
    unpaired += m.model_mode < 0;
    rows.push_back({{"source", m.source},
                    {"posture", m.posture},
                    {"mode", m.mode},
                    {"frequency_hz", m.frequency_hz},
                    {"frequency_sigma_hz", m.frequency_sigma_hz},
                    {"paired", m.model_mode >= 0},
                    {"model_mode", m.model_mode},
                    {"model_frequency_hz", JsonNumber(m.model_frequency_hz)},
                    {"frequency_residual", m.frequency_residual},
                    {"damping_residual", m.damping_residual},
                    {"mac", m.mac},
                    {"shape_residual", m.shape_residual},
                    {"cost", m.cost}});
  }
  return {{"fitted", true},
          {"cost", cost},
          {"unpaired", unpaired},
          {"shape_variance_ratio", JsonNumber(shape_variance_ratio)},
          {"modes", rows}};
}


// Each paired row's fitted 1σ, from the sigmas of the fitted modes in ComputeModes order.
void SetModeSigmas(const std::vector<ModeSigma>& sigmas, ModalComparison* modal) {
  for (ModalComparisonRow& row : modal->rows)
    if (row.fitted_index >= 0 && static_cast<size_t>(row.fitted_index) < sigmas.size()) {
      row.fitted_frequency_sigma_hz = sigmas[row.fitted_index].frequency_hz;
      row.fitted_damping_sigma = sigmas[row.fitted_index].damping_ratio;
    }
}


}  // namespace

FitResult AssembleFitResult(const Problem& searched, const ParameterMap& map, const FitRun& run,
                            const FitOptions& options) {
  // The problem the run ended on: the search's, or its last refinement pass's, with the weights
  // the drive computed for it where the run kept them.
  const std::vector<std::vector<double>>* kept = run.PassWeights(searched);
  const Problem problem = kept && PassReweights(searched, run.pass(), run.pass_point())
                              ? WithWeights(searched, *kept)
                              : ProblemForPass(searched, map, run.pass(), run.pass_point());
  const Model& model = *problem.model;
  FitResult r;
  r.model_name = model.name;
  r.model_file = model.source;
  for (int i = 0; i < model.num_parameters(); ++i) {
    r.parameter_names.push_back(model.parameters[i].name);
    r.parameter_units.push_back(model.parameters[i].unit);
    r.lower.push_back(map.bounds()[i].min);
    r.upper.push_back(map.bounds()[i].max);
    r.free.push_back(0);
  }
  for (int index : map.free_indices()) r.free[index] = 1;
  r.parameters = map.Physical(run.best_u());
  r.constraints = map.ConstraintStatuses(r.parameters);
  // The start as the model or configuration gave it: mapped to u and back a free parameter would
  // come out a few ulps off (3e6 as 2999999.999999999). A random start has no such value.
  r.initial_parameters = map.Physical(run.initial_u());
  if (options.parameters.initial != InitialGuess::kRandom)
    for (int index : map.free_indices()) r.initial_parameters[index] = map.bounds()[index].initial;
  r.cost = run.best_cost();
  r.initial_population_best_cost = run.initial_population_best_cost();
  r.evaluations = run.evaluations();
  r.ga_evaluations = run.ga_evaluations();
  r.nm_evaluations = run.nm_evaluations();
  r.ga_seconds = run.ga_seconds();
  r.nm_seconds = run.nm_seconds();
  r.lm_evaluations = run.lm_evaluations();
  r.rounds = run.rounds();
  r.lm_seconds = run.lm_seconds();
  r.refinement = ToString(options.fitter.refinement);
  r.start_costs = run.lm_start_costs();
  r.search_cost = run.search_best_cost();
  r.refinement_passes = run.pass();
  const std::vector<double>& points = run.lm_start_points();
  for (size_t at = 0; at + map.dim() <= points.size() && !r.start_costs.empty(); at += map.dim()) {
    const std::vector<double> physical =
        map.Physical(std::span<const double>(points).subspan(at, map.dim()));
    std::vector<double> free;
    for (int index : map.free_indices()) free.push_back(physical[index]);
    r.start_parameters.push_back(free);
  }
  r.starts_agreeing = run.lm_starts_agreeing();
  r.refinement_termination = run.lm_termination();
  r.cycles = run.cycle();
  r.termination = ToString(run.termination());
  r.seed = run.seed();
  r.settings_yaml = FitOptionsToYaml(options);
  r.history = run.history();

  // Per-posture cost shares, through the same evaluator arithmetic as the fit.
  const PackedProblem packed = Pack(problem);
  IdentifiabilityInputs inputs =
      EvaluateIdentifiabilityInputs(packed, map, PostureCoordinates(problem), run.best_u());
  auto evaluator = CreateCpuEvaluator(1);
  r.static_tests = StaticTestResults(problem, r.parameters);
  AddModalData(problem.modes, map, run.best_u(), &inputs, &r);
  // The per-set analyses (cost shares, modes, model check) are of the FRF sets.
  const Problem frf = FrfSetsOnly(problem);
  const PackedProblem frf_packed = Pack(frf);
  std::vector<FrfSet> model_frfs;  // at the fitted point, for the model check too
  for (size_t p = 0; p < frf.postures.size(); ++p) {
    const ProblemPosture& pp = frf.postures[p];
    const HostPosture host = HostPostureOf(pp);  // reduced or full (docs/reduction.md)
    const JointCoefficients coefficients = host.CoefficientsAt(model, r.parameters);
    std::vector<double> packed_coefficients;
    map.AppendCoefficients(run.best_u(), {pp.posture.q}, &packed_coefficients);
    PostureResult out;
    out.name = SetName(pp);
    out.frf_source = pp.source;
    out.measured = pp.measured;
    out.weights = pp.weights;
    out.dropped_hz = pp.dropped_hz;
    model_frfs.push_back(Synthesize(*host.posture, coefficients, pp.measured.frequency_hz,
                                    pp.measured.format, host.points));
    out.fitted = model_frfs.back();
    out.fitted.present = pp.measured.present;
    PackedProblem single = frf_packed;
    single.postures = {frf_packed.postures[p]};
    evaluator->SetProblems({single});
    double cost = 0.0;
    EvalStatus status;
    const int one = 1;
    evaluator->Evaluate({&one, 1}, packed_coefficients, {&cost, 1}, {&status, 1});
    out.cost = cost;
    std::string description;
    const double max_hz = pp.measured.frequency_hz.back();
    std::shared_ptr<const EmaResult> ema;
    const std::vector<Mode> reference =
        ReferenceModes(model, host, pp.measured, max_hz, &description, &ema);
    std::vector<Mode> fitted = ComputeModes(*host.posture, coefficients);
    SeeShapesAt(host.points.response_basis, &fitted);
    out.modal = CompareModes(reference, fitted, description, max_hz);
    out.modal.ema = ema;
    r.postures.push_back(std::move(out));
  }
  std::vector<const ModalComparison*> modal;
  for (const PostureResult& p : r.postures) modal.push_back(&p.modal);
  r.modal_comparison_points = CompareModesAtPoints(frf, r.parameters, modal);
  r.model_check = CheckModel(frf, map, run.best_u(), modal, &model_frfs);
  // A misfit is the model's fault only at the best minimum: a search that did not converge (the
  // paper's GA ⇄ Nelder-Mead on 18 parameters) may have stopped in a worse one.
  if (!r.model_check.reasons.empty() && run.termination() != FitTermination::kConverged)
    r.model_check.reasons.push_back(
        "the fit ended " + r.termination + ", not at a converged least-squares minimum: a better "
        "minimum may explain the data (refine with fitter.refinement: levenberg_marquardt, "
        "docs/fit-config.md) before concluding that the model lacks something");
  // σ widens on the model check's χ² (linear residuals), when the weights are the noise's.
  if (r.model_check.has_noise_model) inputs.reduced_chi2 = r.model_check.reduced_chi2;
  r.identifiability = AssessIdentifiability(map, run.best_u(), inputs);
  // The fitted modes' 1σ, from the covariance just assessed: once per posture, for its sets'
  // comparisons and its comparison over all points.
  std::vector<std::vector<ModeSigma>> sigmas;
  for (size_t p = 0; p < frf.postures.size(); ++p) {
    sigmas.push_back(
        PropagateModeSigmas(HostPostureOf(frf.postures[p]), model, r.parameters, r.identifiability));
    SetModeSigmas(sigmas.back(), &r.postures[p].modal);
  }
  for (ModalComparisonPoints& c : r.modal_comparison_points)
    for (size_t p = 0; p < frf.postures.size(); ++p)
      if (frf.postures[p].posture.name == c.posture) {
        SetModeSigmas(sigmas[p], &c.modal);
        break;
      }
  r.mode_sigmas = std::move(sigmas);
  return r;
}

namespace {

nlohmann::ordered_json Number(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

// A modal comparison's rows, one object per reference mode, null where a value is not known.
nlohmann::ordered_json ModeRowsToJson(const ModalComparison& modal) {
  nlohmann::ordered_json modes = nlohmann::json::array();
  for (const ModalComparisonRow& row : modal.rows)
    modes.push_back({{"reference_frequency_hz", Number(row.reference_frequency_hz)},
                     {"fitted_frequency_hz", Number(row.fitted_frequency_hz)},
                     {"frequency_error_percent", Number(row.frequency_error_percent)},
                     {"reference_damping_ratio", Number(row.reference_damping_ratio)},
                     {"fitted_damping_ratio", Number(row.fitted_damping_ratio)},
                     {"damping_error_percent", Number(row.damping_error_percent)},
                     {"mac", Number(row.mac)},
                     {"fitted_frequency_sigma_hz", Number(row.fitted_frequency_sigma_hz)},
                     {"fitted_damping_sigma", Number(row.fitted_damping_sigma)}});
  return modes;
}

}  // namespace

nlohmann::ordered_json FitResultToJson(const FitResult& r) {
  nlohmann::ordered_json j;
  nlohmann::ordered_json params;
  for (size_t i = 0; i < r.parameters.size(); ++i) params[r.parameter_names[i]] = r.parameters[i];
  j["parameters"] = params;
  j["cost"] = r.cost;
  j["evaluations"] = r.evaluations;
  j["rounds"] = r.rounds;
  j["wall_seconds"] = r.wall_seconds;
  j["backend"] = r.backend_used;
  j["backend_given"] = r.backend_given;
  j["seed"] = r.seed;
  j["termination"] = r.termination;
  j["cycles"] = r.cycles;
  j["initial_population_best_cost"] = r.initial_population_best_cost;
  j["phases"] = {{"ga", {{"evaluations", r.ga_evaluations}, {"seconds", r.ga_seconds}}},
                 {"nm", {{"evaluations", r.nm_evaluations}, {"seconds", r.nm_seconds}}},
                 {"lm", {{"evaluations", r.lm_evaluations}, {"seconds", r.lm_seconds}}}};
  nlohmann::ordered_json refinement = {{"method", r.refinement}};
  if (!r.start_costs.empty()) {
    refinement["starts"] = r.start_costs.size();
    refinement["starts_agreeing"] = r.starts_agreeing;
    refinement["starts_agree"] = r.starts_agreeing == static_cast<int>(r.start_costs.size());
    refinement["start_costs"] = r.start_costs;
    // Where each start began, by parameter name (the free parameters).
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    for (const std::vector<double>& start : r.start_parameters) {
      nlohmann::ordered_json point;
      for (size_t j = 0; j < start.size(); ++j)
        point[r.identifiability.per_parameter[j].name] = start[j];
      points.push_back(point);
    }
    refinement["start_parameters"] = points;
    refinement["termination"] = r.refinement_termination;
    refinement["search_cost"] = r.search_cost;
    refinement["passes"] = r.refinement_passes;
  }
  j["refinement"] = refinement;
  j["identifiability"] = IdentifiabilityToJson(r.identifiability);
  j["model_check"] = ModelCheckToJson(r.model_check);
  if (!r.constraints.empty()) j["constraints"] = ConstraintsToJson(r.constraints);
  if (r.regularization.enabled) j["regularization"] = RegularizationToJson(r.regularization);
  for (const PostureResult& p : r.postures)
    j["postures"].push_back({{"name", p.name},
                             {"frf_file", p.frf_source},
                             {"cost", p.cost},
                             {"lines", p.measured.num_lines()},
                             {"dropped_lines", p.dropped_hz.size()},
                             {"modal_reference", p.modal.reference},
                             {"noise_source", p.measured.noise_source},
                             {"unpaired_fitted_frequency_hz", p.modal.unpaired_fitted_frequency_hz},
                             {"modes", ModeRowsToJson(p.modal)}});
  for (const ModalComparisonPoints& c : r.modal_comparison_points) {
    // [reference][fitted], null where a MAC is not known.
    nlohmann::ordered_json mac = nlohmann::json::array();
    for (Eigen::Index row = 0; row < c.modal.mac.rows(); ++row) {
      nlohmann::ordered_json cells = nlohmann::json::array();
      for (Eigen::Index col = 0; col < c.modal.mac.cols(); ++col)
        cells.push_back(Number(c.modal.mac(row, col)));
      mac.push_back(cells);
    }
    j["modal_comparison_points"].push_back(
        {{"posture", c.posture},
         {"points", c.points},
         {"modal_reference", c.modal.reference},
         {"unpaired_fitted_frequency_hz", c.modal.unpaired_fitted_frequency_hz},
         {"modes", ModeRowsToJson(c.modal)},
         {"mac_fitted_frequency_hz", c.modal.mac_fitted_frequency_hz},
         {"mac", mac}});
  }
  if (!r.modal_data.empty())
    j["modal_data"] = ModalDataToJson(r.modal_data, r.modal_shape_variance_ratio);
  for (const StaticTestResult& t : r.static_tests) {
    j["static_tests"].push_back({{"source", t.source},
                                 {"posture", t.posture},
                                 {"force_frame", t.force_frame},
                                 {"displacement_frame", t.displacement_frame},
                                 {"force_n", t.force_n},
                                 {"measured_m", t.measured_m},
                                 {"fitted_m", t.fitted_m},
                                 {"std_m", t.std_m},
                                 {"chi2", t.Chi2()}});
  }
  return j;
}

}  // namespace frfit
