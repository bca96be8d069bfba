// The stages of a fleet night after the fitting loop that concern each robot alone
// (fleet_night.h): its result kept and written to <robot>.h5 with its outcome and fitted modes,
// then its drift since the previous night. Both run on every thread; each robot's work depends on
// its own fit only.
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "frfit/results/fit_call.h"
#include "src/fleet/fleet_drift.h"
#include "src/fleet/fleet_file_writer.h"
#include "src/fleet/fleet_night.h"

namespace frfit {
namespace {

// A fallback keeps the cold refit unless it ended clearly above the warm result: the warm one was
// not trusted, and where both found the same minimum (their costs within the agreement
// tolerance; with noise weights each under weights from its own point) the cold one stands.
bool KeepsColdRun(const FleetRobotFit& r) {
  return r.cold_run &&
         r.cold_run->best_cost() <=
             r.run->best_cost() * (1.0 + r.options.levenberg_marquardt.agreement_tolerance);
}

// The result's mode 1σ (one list per FRF set) as frequencies per posture of the problem, where
// they were propagated on the posture the drift reads (the full one): the same numbers the
// drift's own propagation gives, not computed twice.
std::vector<std::vector<double>> ModeSigmasByPosture(
    const Problem& problem, const std::vector<std::vector<ModeSigma>>& by_set) {
  std::vector<std::vector<double>> out(problem.postures.size());
  size_t set = 0;
  for (size_t p = 0; p < problem.postures.size() && set < by_set.size(); ++p) {
    const ProblemPosture& pp = problem.postures[p];
    if (pp.is_static) continue;
    const std::vector<ModeSigma>& sigmas = by_set[set++];
    if (pp.reduction != nullptr && !pp.assess_on_full) continue;
    for (const ModeSigma& s : sigmas) out[p].push_back(s.frequency_hz);
  }
  return out;
}

void WriteRobotResult(const FleetNight& night, FleetRobotFit* r, FleetRobotOutcome* out,
                      FleetFileWriter* writer) {
  const bool cold = KeepsColdRun(*r);
  const FitRun& run = cold ? *r->cold_run : *r->run;
  // A robot's wall time is its share of the batched drive: the evaluator time of its phases.
  FitResult result = FinishFit(r->problem, cold ? *r->cold_map : *r->map, run,
                               cold ? r->cold_options : r->options, night.options->backend_given,
                               night.report.backend,
                               run.ga_seconds() + run.nm_seconds() + run.lm_seconds());
  out->result_file = (night.run_dir / (out->name + ".h5")).string();
  // The file is built under the HDF5 lock and written outside it, in the background: the disk's
  // wait is no other thread's.
  std::string image;
  {
    const std::lock_guard<std::mutex> lock(Hdf5Lock());
    image = FitResultImage(out->result_file, result);
  }
  writer->Write(out->result_file, std::move(image));
  // The report shows what the result file holds: the result as the file gives it back, rendered
  // beside the other threads' work under the HDF5 lock, not read back under it.
  if (const std::optional<FitResult> stored = AsReadBack(result, out->result_file)) {
    WriteRobotReport(night, out->name, *stored, writer);
    r->report_written = true;
  }
  out->status = "ok";
  out->cost = result.cost;
  out->evaluations = r->run->evaluations() + (r->cold_run ? r->cold_run->evaluations() : 0);
  out->cycles = result.cycles;
  out->termination = result.termination;
  out->model_check = result.model_check.verdict();
  out->model_check_reasons = result.model_check.reasons;
  out->parameter_names = result.parameter_names;
  out->parameter_units = result.parameter_units;
  out->parameters = result.parameters;
  if (r->cold_run) {
    out->fell_back = true;
    out->fallback = {r->fallback_reason, r->run->best_cost(), r->run->evaluations(), !cold};
  }
  // The fitted modes up to each posture's highest line, analysed once: the outcome lists their
  // frequencies and the drift compares them.
  for (const ProblemPosture& pp : r->problem.postures) {
    r->modes.push_back(
        ModesBelow(pp.posture, *r->model, result.parameters, pp.measured.frequency_hz.back()));
    out->modal_frequencies_hz.emplace_back(pp.posture.name, FrequenciesOf(r->modes.back()));
  }
  r->mode_sigma_hz = ModeSigmasByPosture(r->problem, result.mode_sigmas);
  r->identifiability = std::move(result.identifiability);
}

}  // namespace

void WriteRobotResults(FleetNight* night) {
  FleetFileWriter writer;
  ForEachRobot(night->ready.size(), night->threads, [&](size_t k) {
    FleetRobotFit& r = *night->ready[k];
    WriteRobotResult(*night, &r, &night->report.robots[r.index], &writer);
  });
  writer.Finish();  // WriteReportsFromFiles reads files back
}

void AssessDrift(FleetNight* night) {
  const FleetManifest& manifest = night->manifest;
  ForEachRobot(night->ready.size(), night->threads, [&](size_t k) {
    const FleetRobotFit& r = *night->ready[k];
    if (!r.previous) return;
    FleetRobotOutcome& out = night->report.robots[r.index];
    ComputeDrift(r.problem, *r.model, out.parameters, r.modes, r.mode_sigma_hz, r.identifiability,
                 out.cost, *r.previous, manifest.drift, manifest.warm_start.max_cost_over_previous, &out);
  });
}

}  // namespace frfit
