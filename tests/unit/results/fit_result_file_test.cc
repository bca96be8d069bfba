// The result file's one writer and one reader (results/fit_result_file.cc) keep every field: a
// result of a real fit (identifiability, model check, modal comparison with its EMA reference,
// history), with every other field set by hand to a value that is not its default, is written,
// read back with ReadFitResult and compared field by field. A field the writer or the reader
// drops fails here; a field added to these structs fails the counts below until it is written,
// read and compared. Fields the file does not hold are listed and skipped on purpose.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "frfit/fit/constraints_io.h"
#include "frfit/fit/regularization_io.h"
#include "frfit/results/fit_call.h"
#include "frfit/fit/load_problem.h"
#include "frfit/model/model_yaml.h"
#include "frfit/modal/ema.h"
#include "frfit/results/fit_result.h"
#include "frfit/results/identifiability_io.h"
#include "frfit/results/model_check_io.h"
#include "frfit/report/html_report.h"
#include "round_trip_checks.h"
#include "test_support.h"

namespace frfit {
namespace {

using round_trip::FieldCount;

// Equal to the bit, NaN included (the file keeps doubles as they are).
void ExpectSame(double a, double b, const std::string& field) {
  round_trip::ExpectSameBits(a, b, field);
}
void ExpectSame(const std::vector<double>& a, const std::vector<double>& b,
                const std::string& field) {
  ASSERT_EQ(a.size(), b.size()) << field;
  for (size_t k = 0; k < a.size(); ++k) ExpectSame(a[k], b[k], field + "[" + std::to_string(k) + "]");
}

void ExpectSameModal(const ModalComparison& a, const ModalComparison& b, const std::string& at) {
  EXPECT_EQ(a.reference, b.reference) << at;
  ASSERT_EQ(a.rows.size(), b.rows.size()) << at;
  for (size_t k = 0; k < a.rows.size(); ++k) {
    const ModalComparisonRow &x = a.rows[k], &y = b.rows[k];
    const std::string row = at + " row " + std::to_string(k);
    ExpectSame(x.reference_frequency_hz, y.reference_frequency_hz, row + " reference_frequency_hz");
    ExpectSame(x.reference_damping_ratio, y.reference_damping_ratio, row + " reference_damping_ratio");
    ExpectSame(x.fitted_frequency_hz, y.fitted_frequency_hz, row + " fitted_frequency_hz");
    ExpectSame(x.fitted_damping_ratio, y.fitted_damping_ratio, row + " fitted_damping_ratio");
    ExpectSame(x.frequency_error_percent, y.frequency_error_percent, row + " frequency_error_percent");
    ExpectSame(x.damping_error_percent, y.damping_error_percent, row + " damping_error_percent");
    ExpectSame(x.mac, y.mac, row + " mac");
    ExpectSame(x.fitted_frequency_sigma_hz, y.fitted_frequency_sigma_hz, row + " frequency sigma");
    ExpectSame(x.fitted_damping_sigma, y.fitted_damping_sigma, row + " damping sigma");
    // fitted_index: the pairing's index into the fitted modes given, not stored.
  }
  ExpectSame(a.unpaired_fitted_frequency_hz, b.unpaired_fitted_frequency_hz, at + " unpaired");
  ExpectSame(a.mac_fitted_frequency_hz, b.mac_fitted_frequency_hz, at + " mac_fitted_frequency_hz");
  ASSERT_EQ(a.mac.rows(), b.mac.rows()) << at;
  ASSERT_EQ(a.mac.cols(), b.mac.cols()) << at;
  for (Eigen::Index r = 0; r < a.mac.rows(); ++r)
    for (Eigen::Index c = 0; c < a.mac.cols(); ++c) ExpectSame(a.mac(r, c), b.mac(r, c), at + " mac");
  ASSERT_EQ(a.ema != nullptr, b.ema != nullptr) << at;
  if (a.ema) {  // the EMA group's own writer and reader (io/ema_hdf5.h)
    ASSERT_EQ(a.ema->modes.size(), b.ema->modes.size()) << at;
    for (size_t m = 0; m < a.ema->modes.size(); ++m)
      ExpectSame(a.ema->modes[m].mode.frequency_hz, b.ema->modes[m].mode.frequency_hz, at + " ema");
    EXPECT_EQ(a.ema->poles.size(), b.ema->poles.size()) << at;
  }
}

// The sets as the fit leaves them, plus what the file holds of a multi-point set.
void ExpectSameSet(const PostureResult& a, const PostureResult& b) {
  const std::string at = "posture " + a.name;
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.frf_source, b.frf_source) << at;
  EXPECT_EQ(a.measured.posture, b.measured.posture) << at;
  EXPECT_EQ(a.measured.response_frame, b.measured.response_frame) << at;
  EXPECT_EQ(a.measured.excitation_frame, b.measured.excitation_frame) << at;
  EXPECT_EQ(a.measured.format, b.measured.format) << at;
  ExpectSame(a.measured.frequency_hz, b.measured.frequency_hz, at + " frequency_hz");
  EXPECT_EQ(a.measured.H, b.measured.H) << at;
  EXPECT_EQ(a.measured.present, b.measured.present) << at;
  ExpectSame(a.measured.noise_variance, b.measured.noise_variance, at + " noise_variance");
  EXPECT_EQ(a.measured.noise_source, b.measured.noise_source) << at;
  // The measured set's coherence, averages and provenance are not stored.
  EXPECT_EQ(a.fitted.H, b.fitted.H) << at;
  EXPECT_EQ(a.fitted.present, b.fitted.present) << at;
  ExpectSame(a.weights, b.weights, at + " weights");
  ExpectSame(a.cost, b.cost, at + " cost");
  ExpectSame(a.dropped_hz, b.dropped_hz, at + " dropped_hz");
  ExpectSameModal(a.modal, b.modal, at);
}

class FitResultFile : public test::TempDirTest {};

// A fit of the paper's example with its FRFs' provenance removed: the reference modes then come
// from the EMA of the data (modal.ema), as on measured data.
// With `ema` false the FRFs keep their provenance: the reference modes are the model's at the
// parameters they were synthesised from.
FitResult RealFit(bool ema = true) {
  const std::string dir = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/";
  auto model = std::make_shared<const Model>(LoadModel(dir + "model.yaml"));
  const FitOptions options = LoadFitOptions(dir + "fit.yaml");
  const ParameterMap map(*model, options.parameters, dir + "fit.yaml");
  Problem problem =
      LoadProblem(model, {dir + "frf_milling_inertance.h5"}, options, dir + "fit.yaml");
  if (ema) problem.postures[0].measured.provenance.clear();
  FitRunSettings settings;
  settings.seed = 3;
  settings.evaluator.backend = BackendType::kCpu;
  settings.evaluator.threads = 1;
  return Fit(problem, map, options, settings);
}

TEST_F(FitResultFile, ReadsBackEveryFieldItWrites) {
  // A field added to these structs must be written, read and compared here, and left as the
  // reader leaves it by AsReadBack (InMemoryResultAsReadBackEqualsTheFile): then these counts.
  EXPECT_EQ(FieldCount<FitResult>(), 49u);
  EXPECT_EQ(FieldCount<PostureResult>(), 8u);
  EXPECT_EQ(FieldCount<ModalComparison>(), 6u);
  EXPECT_EQ(FieldCount<ModalComparisonRow>(), 10u);
  EXPECT_EQ(FieldCount<ModalComparisonPoints>(), 3u);
  EXPECT_EQ(FieldCount<StaticTestResult>(), 8u);
  EXPECT_EQ(FieldCount<ModalResidual>(), 12u);
  EXPECT_EQ(FieldCount<HistoryRow>(), 5u);

  FitResult a = RealFit();
  ASSERT_EQ(a.postures.size(), 1u);
  ASSERT_TRUE(a.postures[0].modal.ema) << a.postures[0].modal.reference;
  ASSERT_FALSE(a.postures[0].modal.rows.empty());
  ASSERT_FALSE(a.history.empty());
  ASSERT_FALSE(a.identifiability.per_parameter.empty());
  ASSERT_FALSE(a.start_costs.empty());
  // Everything the fit left at a default, set to something else.
  a.frfit_version = "0.0.0-roundtrip";
  a.model_file = "/models/roundtrip.yaml";
  a.parameter_units.assign(a.parameters.size(), "N*m/rad");
  a.parameter_units[1] = "";
  a.free[0] = 0;
  a.nm_evaluations = 12345;
  a.ga_evaluations = 678;
  a.lm_evaluations = 91011;
  a.rounds = 1213;
  a.wall_seconds = 1.25;
  a.ga_seconds = 0.375;
  a.nm_seconds = 0.0625;
  a.lm_seconds = 0.5;
  a.initial_population_best_cost = 0.1 + 0.2;
  a.starts_agreeing = 2;
  a.refinement_termination = "small_step";
  a.cycles = 4;
  a.termination = "cycle_limit";
  a.seed = 18446744073709551615ull;
  a.backend_given = "auto";
  a.backend_used = "cuda";
  a.settings_yaml = "fitter:\n  max_cycles: 4\n";
  a.history.push_back({7, FitPhase::kNelderMead, 3, a.evaluations + 1, 0.5 * a.cost});
  PostureResult& p = a.postures[0];
  p.name = "milling:joint3:sensor";
  p.frf_source = "/data/roundtrip.h5";
  p.measured.response_frame = "joint3";
  p.measured.excitation_frame = "sensor";
  p.measured.present[1] = false;
  p.fitted.present = p.measured.present;
  p.measured.noise_variance.assign(p.measured.H.size(), 0.0);
  for (size_t k = 0; k < p.measured.noise_variance.size(); ++k)
    p.measured.noise_variance[k] = 1e-6 * static_cast<double>(k + 1);
  p.measured.noise_source = "coherence";
  p.dropped_hz = {3.5, 7.25};
  p.cost = 0.125;
  p.modal.unpaired_fitted_frequency_hz = {27.5};
  p.modal.rows[0].reference_damping_ratio = std::nan("");
  ModalComparisonPoints points;
  points.posture = "milling";
  points.points = {"sensor", "joint3"};
  points.modal = p.modal;
  points.modal.ema = nullptr;
  points.modal.reference = "model at the sets' parameters";
  a.modal_comparison_points = {points};
  a.static_tests = {{"static.yaml: test 2", "milling", "sensor", "joint3",
                     {1000.0, -2.0, 3.0}, {1e-4, 2e-5, -3e-6}, {1.1e-4, 2.2e-5, -3.3e-6},
                     {1e-6, 2e-6, 3e-6}}};
  a.modal_data = {{"ema_milling.h5", "milling", 2, 10.5, 0.01, 1, 10.25, -25.0, 0.5, 0.97, 0.125, 312.5},
                  {"ema_milling.h5", "milling", 3, 22.5, 0.02, -1, std::nan(""), 1125.0, 0.0,
                   0.0, 0.0, 632812.5}};
  a.modal_shape_variance_ratio = 1.75;
  a.constraints = {{"k_z1 >= k_z2", Relation::kGreaterEqual, 2.5e5, false},
                   {"k_z2 == k_z3", Relation::kEqual, 0.0, true}};

  a.regularization.enabled = true;
  a.regularization.toward = RegularizationTarget::kPrior;
  a.regularization.automatic = true;
  a.regularization.weight = 3.5;
  a.regularization.curve.points = {{0.5, 2.0, 0.25, 1.5}, {3.5, 2.5, 0.125, 1.25}};
  a.regularization.curve.chosen = 1;
  a.regularization.at_weight = {3.5, 2.5, 0.125, 1.25};
  a.regularization.fits = 2;

  const std::string path = Path("result.h5");
  WriteFitResult(path, a);
  const FitResult b = ReadFitResult(path);

  EXPECT_EQ(b.file, path);  // the reader's own: where it read from
  EXPECT_TRUE(b.has_identifiability);
  EXPECT_TRUE(b.has_model_check);
  EXPECT_EQ(a.frfit_version, b.frfit_version);
  EXPECT_EQ(a.model_name, b.model_name);
  EXPECT_EQ(a.model_file, b.model_file);
  EXPECT_EQ(a.parameter_names, b.parameter_names);
  EXPECT_EQ(a.parameter_units, b.parameter_units);
  ExpectSame(a.parameters, b.parameters, "parameters");
  ExpectSame(a.initial_parameters, b.initial_parameters, "initial_parameters");
  ExpectSame(a.lower, b.lower, "lower");
  ExpectSame(a.upper, b.upper, "upper");
  EXPECT_EQ(a.free, b.free);
  ExpectSame(a.cost, b.cost, "cost");
  ExpectSame(a.initial_population_best_cost, b.initial_population_best_cost, "initial best");
  EXPECT_EQ(a.evaluations, b.evaluations);
  EXPECT_EQ(a.ga_evaluations, b.ga_evaluations);
  EXPECT_EQ(a.nm_evaluations, b.nm_evaluations);
  EXPECT_EQ(a.lm_evaluations, b.lm_evaluations);
  EXPECT_EQ(a.rounds, b.rounds);
  ExpectSame(a.wall_seconds, b.wall_seconds, "wall_seconds");
  ExpectSame(a.ga_seconds, b.ga_seconds, "ga_seconds");
  ExpectSame(a.nm_seconds, b.nm_seconds, "nm_seconds");
  ExpectSame(a.lm_seconds, b.lm_seconds, "lm_seconds");
  EXPECT_EQ(a.refinement, b.refinement);
  ExpectSame(a.start_costs, b.start_costs, "start_costs");
  EXPECT_EQ(a.starts_agreeing, b.starts_agreeing);
  EXPECT_EQ(a.refinement_termination, b.refinement_termination);
  // Not stored (the --json of the fit that made them prints them): search_cost,
  // refinement_passes, start_parameters; the fit's reductions and its modes' σ per set (kept in
  // memory for the fleet's drift) neither.
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.termination, b.termination);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.backend_given, b.backend_given);
  EXPECT_EQ(a.backend_used, b.backend_used);
  EXPECT_EQ(a.settings_yaml, b.settings_yaml);
  ASSERT_EQ(a.history.size(), b.history.size());
  for (size_t k = 0; k < a.history.size(); ++k) {
    EXPECT_EQ(a.history[k].cycle, b.history[k].cycle) << k;
    EXPECT_EQ(a.history[k].phase, b.history[k].phase) << k;
    EXPECT_EQ(a.history[k].step, b.history[k].step) << k;
    EXPECT_EQ(a.history[k].evaluations, b.history[k].evaluations) << k;
    ExpectSame(a.history[k].best_cost, b.history[k].best_cost, "history best_cost");
  }
  ASSERT_EQ(b.postures.size(), 1u);
  ExpectSameSet(a.postures[0], b.postures[0]);
  ASSERT_EQ(b.modal_comparison_points.size(), 1u);
  EXPECT_EQ(a.modal_comparison_points[0].posture, b.modal_comparison_points[0].posture);
  EXPECT_EQ(a.modal_comparison_points[0].points, b.modal_comparison_points[0].points);
  ExpectSameModal(a.modal_comparison_points[0].modal, b.modal_comparison_points[0].modal, "points");
  ASSERT_EQ(b.static_tests.size(), 1u);
  const StaticTestResult &s = a.static_tests[0], &t = b.static_tests[0];
  EXPECT_EQ(s.source, t.source);
  EXPECT_EQ(s.posture, t.posture);
  EXPECT_EQ(s.force_frame, t.force_frame);
  EXPECT_EQ(s.displacement_frame, t.displacement_frame);
  EXPECT_EQ(s.force_n, t.force_n);
  EXPECT_EQ(s.measured_m, t.measured_m);
  EXPECT_EQ(s.fitted_m, t.fitted_m);
  EXPECT_EQ(s.std_m, t.std_m);
  ASSERT_EQ(a.modal_data.size(), b.modal_data.size());
  for (size_t k = 0; k < a.modal_data.size(); ++k) {
    const ModalResidual &m = a.modal_data[k], &n = b.modal_data[k];
    EXPECT_EQ(m.source, n.source);
    EXPECT_EQ(m.posture, n.posture);
    EXPECT_EQ(m.mode, n.mode);
    EXPECT_EQ(m.model_mode, n.model_mode);
    for (auto [x, y, name] : {std::tuple{m.frequency_hz, n.frequency_hz, "frequency_hz"},
                              {m.frequency_sigma_hz, n.frequency_sigma_hz, "frequency_sigma_hz"},
                              {m.model_frequency_hz, n.model_frequency_hz, "model_frequency_hz"},
                              {m.frequency_residual, n.frequency_residual, "frequency_residual"},
                              {m.damping_residual, n.damping_residual, "damping_residual"},
                              {m.mac, n.mac, "mac"},
                              {m.shape_residual, n.shape_residual, "shape_residual"},
                              {m.cost, n.cost, "cost"}})
      ExpectSame(x, y, std::string("modal_data ") + name);
  }
  ExpectSame(a.modal_shape_variance_ratio, b.modal_shape_variance_ratio, "shape variance ratio");
  // The sections with writers and readers of their own (results/*_io.h), through their JSON.
  EXPECT_EQ(IdentifiabilityToJson(a.identifiability), IdentifiabilityToJson(b.identifiability));
  EXPECT_EQ(ModelCheckToJson(a.model_check), ModelCheckToJson(b.model_check));
  EXPECT_EQ(ConstraintsToJson(a.constraints), ConstraintsToJson(b.constraints));
  EXPECT_EQ(RegularizationToJson(a.regularization), RegularizationToJson(b.regularization));
  // The --json a command prints from either is the same.
  EXPECT_EQ(FitResultToJson(b).dump(), [&] {
    FitResult c = a;  // what the file does not hold, as the reader leaves it
    c.search_cost = b.search_cost;
    c.refinement_passes = b.refinement_passes;
    c.start_parameters = b.start_parameters;
    c.reductions = b.reductions;
    c.mode_sigmas = b.mode_sigmas;
    return FitResultToJson(c).dump();
  }());

  // The summary: the same header, none of the per-set arrays.
  const FitResult summary = ReadFitResult(path, FitResultSections::kSummary);
  ExpectSame(summary.parameters, b.parameters, "summary parameters");
  EXPECT_EQ(summary.seed, b.seed);
  EXPECT_EQ(IdentifiabilityToJson(summary.identifiability), IdentifiabilityToJson(b.identifiability));
  EXPECT_TRUE(summary.postures.empty());
  EXPECT_TRUE(summary.history.empty());
}

// The fleet renders each robot's report from the result in memory as the file would give it back
// (AsReadBack): everything the file does not hold is set here, the sets and the comparisons over
// points out of name order, and the two must read and render the same.
TEST_F(FitResultFile, InMemoryResultAsReadBackEqualsTheFile) {
  FitResult a = RealFit(/*ema=*/false);
  ASSERT_EQ(a.postures.size(), 1u);
  ASSERT_FALSE(a.postures[0].modal.ema);
  ASSERT_FALSE(a.postures[0].modal.rows.empty());
  ASSERT_FALSE(a.identifiability.per_parameter.empty());
  ASSERT_FALSE(a.postures[0].measured.provenance.empty());  // not stored
  // What the file does not hold, set as a fit or an import leaves it.
  a.search_cost = 0.5;
  a.refinement_passes = 2;
  a.start_parameters = {{1.0, 2.0}};
  a.mode_sigmas = {{ModeSigma{0.25, 0.5}}};
  a.reductions.resize(1);
  a.regularization.enabled = true;
  a.regularization.weight = 0.1 + 0.2;
  a.regularization.curve.points = {{0.5, 2.0, 0.25, 1.5}};
  a.regularization.curve.chosen = 0;
  a.regularization.at_weight = {0.1 + 0.2, 2.5, 0.125, 1.25};
  a.constraints = {{"k_z1 >= k_z2", Relation::kGreaterEqual, 1.0 / 3.0, false}};
  a.modal_data = {{"ema.h5", "milling", 2, 10.5, 0.01, 1, 10.25, -25.0, 0.5, 0.97, 0.125, 312.5}};
  a.modal_shape_variance_ratio = 1.0 / 3.0;
  PostureResult& p = a.postures[0];
  p.measured.coherence.assign(p.measured.H.size(), 0.99);
  p.measured.averages = 8;
  p.measured.exponential_window_tau_s = 0.5;
  p.fitted.noise_variance.assign(p.measured.H.size(), 1.0);
  p.fitted.provenance = {{"model", "m"}};
  p.modal.rows[0].fitted_index = 3;
  // A multi-point set named before it, the single-point one holding no posture name of its own.
  PostureResult q = p;
  q.name = "aa:joint3:sensor";
  q.measured.posture = "milling";
  q.measured.response_frame = "joint3";
  q.measured.excitation_frame = "sensor";
  p.measured.posture = "";
  a.postures.push_back(std::move(q));
  for (const char* posture : {"zz", "aa"}) {
    ModalComparisonPoints c;
    c.posture = posture;
    c.points = {"sensor", "joint3"};
    c.modal = p.modal;
    c.modal.ema = std::make_shared<const EmaResult>();  // the file holds a set's EMA only
    a.modal_comparison_points.push_back(c);
  }

  const std::string path = Path("result.h5");
  WriteFitResult(path, a);
  const FitResult b = ReadFitResult(path);
  const std::optional<FitResult> stored = AsReadBack(a, path);
  ASSERT_TRUE(stored);
  const FitResult& c = *stored;
  ASSERT_EQ(c.postures.size(), b.postures.size());
  for (size_t k = 0; k < b.postures.size(); ++k) {
    ExpectSameSet(c.postures[k], b.postures[k]);
    EXPECT_EQ(c.postures[k].fitted.posture, b.postures[k].fitted.posture);
    EXPECT_EQ(c.postures[k].measured.coherence, b.postures[k].measured.coherence);
    EXPECT_EQ(c.postures[k].measured.provenance, b.postures[k].measured.provenance);
    EXPECT_EQ(c.postures[k].fitted.noise_variance, b.postures[k].fitted.noise_variance);
    EXPECT_EQ(c.postures[k].modal.rows[0].fitted_index, b.postures[k].modal.rows[0].fitted_index);
  }
  ASSERT_EQ(c.modal_comparison_points.size(), b.modal_comparison_points.size());
  for (size_t k = 0; k < b.modal_comparison_points.size(); ++k) {
    EXPECT_EQ(c.modal_comparison_points[k].posture, b.modal_comparison_points[k].posture);
    ExpectSameModal(c.modal_comparison_points[k].modal, b.modal_comparison_points[k].modal, "points");
  }
  EXPECT_EQ(c.file, b.file);
  EXPECT_EQ(c.free, b.free);
  EXPECT_EQ(c.search_cost, b.search_cost);
  EXPECT_EQ(c.refinement_passes, b.refinement_passes);
  EXPECT_EQ(c.start_parameters, b.start_parameters);
  EXPECT_EQ(c.mode_sigmas.size(), b.mode_sigmas.size());
  EXPECT_EQ(c.reductions.size(), b.reductions.size());
  ExpectSame(c.modal_shape_variance_ratio, b.modal_shape_variance_ratio, "shape variance ratio");
  EXPECT_EQ(IdentifiabilityToJson(c.identifiability), IdentifiabilityToJson(b.identifiability));
  EXPECT_EQ(ModelCheckToJson(c.model_check), ModelCheckToJson(b.model_check));
  EXPECT_EQ(ConstraintsToJson(c.constraints), ConstraintsToJson(b.constraints));
  EXPECT_EQ(RegularizationToJson(c.regularization), RegularizationToJson(b.regularization));
  EXPECT_EQ(FitResultToJson(c).dump(), FitResultToJson(b).dump());
  EXPECT_EQ(RenderReportHtml(c, {"index.html", "fleet index"}),
            RenderReportHtml(b, {"index.html", "fleet index"}));

  // Without a start's costs the file holds neither their agreement nor the best one's stop.
  a.start_costs.clear();
  a.modal_data.clear();
  a.regularization.enabled = false;
  WriteFitResult(path, a);
  EXPECT_EQ(FitResultToJson(*AsReadBack(a, path)).dump(), FitResultToJson(ReadFitResult(path)).dump());
  EXPECT_EQ(RenderReportHtml(*AsReadBack(a, path)), RenderReportHtml(ReadFitResult(path)));
}

// An EMA reference the file keeps only in part (no FRFs, no dropped columns): the caller reads
// the file instead.
TEST_F(FitResultFile, ResultWithAnEmaReferenceIsNotReadBackInMemory) {
  const FitResult a = RealFit();
  ASSERT_TRUE(a.postures[0].modal.ema);
  EXPECT_FALSE(AsReadBack(a, Path("result.h5")));
}

}  // namespace
}  // namespace frfit
