#include "frfit/fit/fit_result.h"

#include <charconv>
#include <cmath>

#include "frfit/common/error.h"
#include "frfit/common/json_number.h"
#include "frfit/cost/static_sets.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/constraints_io.h"
#include "frfit/fit/identifiability_io.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/mode_uncertainty.h"
#include "frfit/fit/model_check_io.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/frf/synthesize.h"
#include "frfit/io/ema_hdf5.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/files/atomic_file.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/model/joint_coefficients.h"

namespace frfit {
namespace {

void WriteScalar(Hdf5File* file, const std::string& name, double value) {
  file->WriteDoubles(name, {1}, &value);
}

double ReadScalar(const Hdf5File& file, const std::string& name) {
  std::vector<hsize_t> dims;
  const std::vector<double> v = file.ReadDoubles(name, 1, &dims);
  if (v.size() != 1) throw Error(file.path(), name, "expected one value");
  return v[0];
}

}  // namespace

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

// /static_tests: one row per test, [test][3] in the displacement frame's axes (docs/static-tests.md).
void WriteStaticTests(Hdf5File* f, const std::vector<StaticTestResult>& tests) {
  f->CreateGroup("/static_tests");
  std::vector<std::string> sources, postures, force_frames, displacement_frames;
  std::vector<double> force, measured, fitted, std_m;
  for (const StaticTestResult& t : tests) {
    sources.push_back(t.source);
    postures.push_back(t.posture);
    force_frames.push_back(t.force_frame);
    displacement_frames.push_back(t.displacement_frame);
    force.insert(force.end(), t.force_n.begin(), t.force_n.end());
    measured.insert(measured.end(), t.measured_m.begin(), t.measured_m.end());
    fitted.insert(fitted.end(), t.fitted_m.begin(), t.fitted_m.end());
    std_m.insert(std_m.end(), t.std_m.begin(), t.std_m.end());
  }
  const hsize_t k = tests.size();
  f->WriteStrings("/static_tests/source", sources);
  f->WriteStrings("/static_tests/posture", postures);
  f->WriteStrings("/static_tests/force_frame", force_frames);
  f->WriteStrings("/static_tests/displacement_frame", displacement_frames);
  f->WriteDoubles("/static_tests/force_n", {k, 3}, force.data());
  f->WriteDoubles("/static_tests/measured_m", {k, 3}, measured.data());
  f->WriteDoubles("/static_tests/fitted_m", {k, 3}, fitted.data());
  f->WriteDoubles("/static_tests/std_m", {k, 3}, std_m.data());
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

// /modal_data: one row per measured mode (docs/file-formats.md, "Modal data").
void WriteModalData(Hdf5File* f, const std::vector<ModalResidual>& modes,
                    double shape_variance_ratio) {
  f->CreateGroup("/modal_data");
  std::vector<std::string> sources, postures;
  std::vector<std::int64_t> index, partner;
  std::vector<double> table;
  for (const ModalResidual& m : modes) {
    sources.push_back(m.source);
    postures.push_back(m.posture);
    index.push_back(m.mode);
    partner.push_back(m.model_mode);
    for (double v : {m.frequency_hz, m.frequency_sigma_hz, m.model_frequency_hz,
                     m.frequency_residual, m.damping_residual, m.mac, m.shape_residual, m.cost})
      table.push_back(v);
  }
  const hsize_t k = modes.size();
  f->WriteStrings("/modal_data/source", sources);
  f->WriteStrings("/modal_data/posture", postures);
  f->WriteInts("/modal_data/mode", {k}, index.data());
  f->WriteInts("/modal_data/model_mode", {k}, partner.data());
  f->WriteDoubles("/modal_data/modes", {k, 8}, table.data());
  f->SetAttribute("/modal_data/modes", "columns", kModalDataColumns);
  f->SetAttribute("/modal_data", "shape_variance_ratio", FormatDouble(shape_variance_ratio));
}

// Each paired row's fitted 1σ, from the sigmas of the fitted modes in ComputeModes order.
void SetModeSigmas(const std::vector<ModeSigma>& sigmas, ModalComparison* modal) {
  for (ModalComparisonRow& row : modal->rows)
    if (row.fitted_index >= 0 && static_cast<size_t>(row.fitted_index) < sigmas.size()) {
      row.fitted_frequency_sigma_hz = sigmas[row.fitted_index].frequency_hz;
      row.fitted_damping_sigma = sigmas[row.fitted_index].damping_ratio;
    }
}

// A modal comparison's tables in group g: modal_comparison, the unpaired fitted modes, the MAC of
// every reference mode with every fitted mode and those modes' frequencies.
void WriteModalComparison(Hdf5File* f, const std::string& g, const ModalComparison& modal) {
  f->WriteDoubles(g + "/unpaired_fitted_frequency_hz", {modal.unpaired_fitted_frequency_hz.size()},
                  modal.unpaired_fitted_frequency_hz.data());
  std::vector<double> table;  // [mode][kModalComparisonColumns]
  for (const ModalComparisonRow& row : modal.rows)
    table.insert(table.end(),
                 {row.reference_frequency_hz, row.reference_damping_ratio, row.fitted_frequency_hz,
                  row.fitted_damping_ratio, row.frequency_error_percent, row.damping_error_percent,
                  row.mac, row.fitted_frequency_sigma_hz, row.fitted_damping_sigma});
  f->WriteDoubles(g + "/modal_comparison", {modal.rows.size(), kModalComparisonColumns},
                  table.data());
  f->SetAttribute(g + "/modal_comparison", "columns", kModalComparisonColumnNames);
  // Every reference mode against every fitted mode in the band, row-major [reference][fitted].
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> mac = modal.mac;
  f->WriteDoubles(g + "/mac", {static_cast<hsize_t>(mac.rows()), static_cast<hsize_t>(mac.cols())},
                  mac.data());
  f->WriteDoubles(g + "/mac_fitted_frequency_hz", {modal.mac_fitted_frequency_hz.size()},
                  modal.mac_fitted_frequency_hz.data());
}

}  // namespace

FitResult AssembleFitResult(const Problem& searched, const ParameterMap& map, const FitRun& run,
                            const FitOptions& options) {
  // The problem the run ended on: the search's, or its last refinement pass's.
  const Problem problem = ProblemForPass(searched, map, run.pass(), run.pass_point());
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
  return r;
}

void WriteFitResult(const std::string& path, const FitResult& r) {
  WriteFileAtomically(path, FitResultImage(path, r));
}

std::string FitResultImage(const std::string& path, const FitResult& r) {
  Hdf5File f(path, Hdf5File::Mode::kCreate);  // in memory until Image
  {
    f.SetAttribute("/", "frfit_file", "fit_result");
    f.SetAttribute("/", "frfit_version", r.frfit_version);
    f.SetAttribute("/", "model", r.model_name);
    f.SetAttribute("/", "model_file", r.model_file);
    f.SetAttribute("/", "seed", std::to_string(r.seed));
    f.SetAttribute("/", "backend_given", r.backend_given);
    f.SetAttribute("/", "backend_used", r.backend_used);
    f.SetAttribute("/", "termination", r.termination);
    f.SetAttribute("/", "settings_yaml", r.settings_yaml);
    f.CreateGroup("/parameters");
    f.WriteStrings("/parameters/names", r.parameter_names);
    f.WriteStrings("/parameters/units", r.parameter_units);
    const hsize_t np = r.parameters.size();
    f.WriteDoubles("/parameters/values", {np}, r.parameters.data());
    f.WriteDoubles("/parameters/initial", {np}, r.initial_parameters.data());
    f.WriteDoubles("/parameters/min", {np}, r.lower.data());
    f.WriteDoubles("/parameters/max", {np}, r.upper.data());
    std::vector<std::int64_t> free(r.free.begin(), r.free.end());
    f.WriteInts("/parameters/free", {np}, free.data());
    f.CreateGroup("/summary");
    WriteScalar(&f, "/summary/cost", r.cost);
    WriteScalar(&f, "/summary/initial_population_best_cost", r.initial_population_best_cost);
    WriteScalar(&f, "/summary/evaluations", static_cast<double>(r.evaluations));
    WriteScalar(&f, "/summary/ga_evaluations", static_cast<double>(r.ga_evaluations));
    WriteScalar(&f, "/summary/nm_evaluations", static_cast<double>(r.nm_evaluations));
    WriteScalar(&f, "/summary/wall_seconds", r.wall_seconds);
    WriteScalar(&f, "/summary/ga_seconds", r.ga_seconds);
    WriteScalar(&f, "/summary/nm_seconds", r.nm_seconds);
    WriteScalar(&f, "/summary/lm_evaluations", static_cast<double>(r.lm_evaluations));
    WriteScalar(&f, "/summary/rounds", static_cast<double>(r.rounds));
    WriteScalar(&f, "/summary/lm_seconds", r.lm_seconds);
    f.SetAttribute("/summary", "refinement", r.refinement);
    if (!r.start_costs.empty()) {
      f.WriteDoubles("/summary/start_costs", {r.start_costs.size()}, r.start_costs.data());
      WriteScalar(&f, "/summary/starts_agreeing", r.starts_agreeing);
      f.SetAttribute("/summary", "refinement_termination", r.refinement_termination);
    }
    WriteScalar(&f, "/summary/cycles", r.cycles);
    WriteIdentifiability(&f, "/identifiability", r.identifiability);
    if (!r.constraints.empty()) WriteConstraints(&f, r.constraints);
    WriteModelCheck(&f, "/model_check", r.model_check);
    f.CreateGroup("/history");
    std::vector<std::int64_t> cycle, phase, step, evaluations;
    std::vector<double> best;
    for (const HistoryRow& h : r.history) {
      cycle.push_back(h.cycle);
      phase.push_back(PhaseCode(h.phase));
      step.push_back(h.step);
      evaluations.push_back(h.evaluations);
      best.push_back(h.best_cost);
    }
    const hsize_t nh = r.history.size();
    f.SetAttribute("/history", "phase_codes", kPhaseCodes);
    f.WriteInts("/history/cycle", {nh}, cycle.data());
    f.WriteInts("/history/phase", {nh}, phase.data());
    f.WriteInts("/history/step", {nh}, step.data());
    f.WriteInts("/history/evaluations", {nh}, evaluations.data());
    f.WriteDoubles("/history/best_cost", {nh}, best.data());
    f.CreateGroup("/postures");
    for (const PostureResult& p : r.postures) {
      const std::string g = "/postures/" + p.name;
      f.CreateGroup(g);
      f.SetAttribute(g, "frf_file", p.frf_source);
      // A multi-point set's group is named posture:response:excitation (SetName).
      if (!p.measured.response_frame.empty() || !p.measured.excitation_frame.empty()) {
        f.SetAttribute(g, "posture", p.measured.posture);
        f.SetAttribute(g, "response_frame", p.measured.response_frame);
        f.SetAttribute(g, "excitation_frame", p.measured.excitation_frame);
      }
      f.SetAttribute(g, "format", ToString(p.measured.format));
      f.SetAttribute(g, "units", UnitsOf(p.measured.format));
      f.SetAttribute(g, "modal_reference", p.modal.reference);
      const hsize_t lines = p.measured.frequency_hz.size();
      f.WriteDoubles(g + "/frequency_hz", {lines}, p.measured.frequency_hz.data());
      WriteFrfMatrix(&f, g + "/measured_H", p.measured);
      WriteFrfMatrix(&f, g + "/fitted_H", p.fitted);
      f.WriteDoubles(g + "/weights", {lines, 3, 3}, p.weights.data());
      // The noise model the fit held the residual against (docs/noise.md).
      if (p.measured.noise_variance.size() == p.measured.H.size()) {
        f.WriteDoubles(g + "/noise_variance", {lines, 3, 3}, p.measured.noise_variance.data());
        f.SetAttribute(g + "/noise_variance", "source", p.measured.noise_source);
      }
      std::int64_t present[9];
      for (int e = 0; e < 9; ++e) present[e] = p.measured.present[e];
      f.WriteInts(g + "/present", {3, 3}, present);
      WriteScalar(&f, g + "/cost", p.cost);
      f.WriteDoubles(g + "/dropped_hz", {p.dropped_hz.size()}, p.dropped_hz.data());
      WriteModalComparison(&f, g, p.modal);
      if (p.modal.ema) WriteEmaGroup(&f, g + "/ema", *p.modal.ema, false);
    }
    if (!r.modal_comparison_points.empty()) f.CreateGroup("/modal_comparison_points");
    for (const ModalComparisonPoints& c : r.modal_comparison_points) {
      const std::string g = "/modal_comparison_points/" + c.posture;
      f.CreateGroup(g);
      f.SetAttribute(g, "points", PointsAttribute(c.points));
      f.SetAttribute(g, "modal_reference", c.modal.reference);
      WriteModalComparison(&f, g, c.modal);
    }
    if (!r.static_tests.empty()) WriteStaticTests(&f, r.static_tests);
    if (!r.modal_data.empty()) WriteModalData(&f, r.modal_data, r.modal_shape_variance_ratio);
  }
  return f.Image();
}

FitResult ReadFitResultSummary(const std::string& path) {
  Hdf5File f(path, Hdf5File::Mode::kRead);
  f.RequireFileKind("fit_result", "an frfit fit result");
  FitResult r;
  r.frfit_version = f.GetAttribute("/", "frfit_version");
  r.model_name = f.GetAttribute("/", "model");
  r.model_file = f.GetAttribute("/", "model_file");
  // Digits only: std::stoull would throw a bare std::invalid_argument and read "-1" as 2^64 - 1.
  const std::string seed = f.GetAttribute("/", "seed");
  const auto [end, status] = std::from_chars(seed.data(), seed.data() + seed.size(), r.seed);
  if (seed.empty() || status != std::errc() || end != seed.data() + seed.size())
    throw Error(path, "/@seed", "expected an unsigned 64-bit integer, got '" + seed + "'");
  r.backend_given = f.GetAttribute("/", "backend_given");
  r.backend_used = f.GetAttribute("/", "backend_used");
  r.termination = f.GetAttribute("/", "termination");
  r.settings_yaml = f.GetAttribute("/", "settings_yaml");
  std::vector<hsize_t> dims;
  r.parameter_names = f.ReadStrings("/parameters/names");
  r.parameters = f.ReadDoubles("/parameters/values", 1, &dims);
  if (r.parameters.size() != r.parameter_names.size())
    throw Error(path, "/parameters/values", "expected one value per name");
  r.cost = ReadScalar(f, "/summary/cost");
  r.evaluations = f.ToInt64(ReadScalar(f, "/summary/evaluations"), "/summary/evaluations");
  r.wall_seconds = ReadScalar(f, "/summary/wall_seconds");
  if (f.Exists("/identifiability")) r.identifiability = ReadIdentifiability(f, "/identifiability");
  if (f.Exists("/constraints")) r.constraints = ReadConstraints(f);
  return r;
}

std::vector<double> ParametersFromResult(const std::string& path, const Model& model) {
  return ParametersFromResult(ReadFitResultSummary(path), model, path);
}

std::vector<double> ParametersFromResult(const FitResult& r, const Model& model,
                                         const std::string& path) {
  std::vector<double> values(model.num_parameters(), std::nan(""));
  for (size_t i = 0; i < r.parameter_names.size(); ++i) {
    const int index = model.FindParameter(r.parameter_names[i]);
    if (index < 0)
      throw Error(path, "/parameters/names", "parameter '" + r.parameter_names[i] +
                                                 "' is not in model '" + model.name + "'");
    values[index] = r.parameters[i];
  }
  for (int i = 0; i < model.num_parameters(); ++i)
    if (std::isnan(values[i]))
      throw Error(path, "/parameters/names", "missing parameter '" + model.parameters[i].name + "'");
  return values;
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
