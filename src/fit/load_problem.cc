#include "frfit/io/ema_hdf5.h"
#include "frfit/fit/load_problem.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "frfit/campaign/campaign_ema_hdf5.h"
#include "frfit/common/error.h"
#include "frfit/cost/campaign_modal_set.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/common/warning.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/modal/ema.h"

namespace frfit {
namespace {

bool IsCampaignEmaResult(const std::string& path) {
  try {
    const Hdf5File f(path, Hdf5File::Mode::kRead);
    return f.HasAttribute("/", "frfit_file") &&
           f.GetAttribute("/", "frfit_file") == "campaign_ema_result";
  } catch (const Error&) {
    return false;  // ReadEmaResult says what is wrong with it
  }
}

// FRFs from an impact test under an exponential window exp(−t/τ) (frfit frf) hold every pole
// moved by −1/τ: the structure's damping ratio plus 1/(τω). The fit's model has no window, so its
// damping parameters take the window's on; the stiffnesses do not (frequencies stay). Said here,
// with the size over the set's band; frfit ema removes it from the modes it estimates.
void WarnOfExponentialWindow(const FrfSet& measured, const std::string& file) {
  const double tau = measured.exponential_window_tau_s;
  if (!std::isfinite(tau) || measured.frequency_hz.empty()) return;
  const double f0 = std::max(measured.frequency_hz.front(), 1e-9), f1 = measured.frequency_hz.back();
  char text[96];
  std::snprintf(text, sizeof text, "%.3g %% at %.3g Hz to %.3g %% at %.3g Hz",
                100.0 / (tau * 2 * M_PI * f0), f0, 100.0 / (tau * 2 * M_PI * f1), f1);
  Warn(file, "/provenance@exponential_window_tau_s",
       "these FRFs were measured under an exponential window (tau " + FormatDouble(tau) +
           " s), which adds damping ratio 1/(tau*omega): " + text +
           "; the fitted dampings include it (the stiffnesses do not): read damping from frfit "
           "ema, which removes it, or measure records that decay without the window");
}

// Adds one measured set at its posture to `problem`; `source` names it in messages.
void AddMeasured(const FrfSet& measured, const std::string& source, const FitOptions& options,
                 Problem* problem) {
  const Model& model = *problem->model;
  // FRFs synthesised from another model are legitimate input (a model error study), but rarely
  // what a user meant: say so.
  for (const auto& [key, value] : measured.provenance)
    if (key == "model" && value != model.name)
      Warn(source, "/provenance@model",
           "the FRFs were synthesised from model '" + value + "', this fit uses model '" +
               model.name + "' (" + model.source + ")");
  WarnOfExponentialWindow(measured, source);
  if (measured.posture.empty())
    throw Error(source, "/@posture",
                "names no posture (converted without --posture): give the posture it was "
                "measured at, frfit convert IN.uff OUT.h5 --posture NAME (model '" +
                    model.name + "' has " + model.PostureNames() + ")");
  if (model.FindPosture(measured.posture) < 0)
    throw Error(source, "/@posture", "model '" + model.name + "' has no posture '" +
                                         measured.posture + "' (it has " +
                                         model.PostureNames() + ")");
  const auto w = options.posture_weights.find(measured.posture);
  ProblemPosture pp =
      PreparePosture(Linearize(model, measured.posture), measured, options.cost, source,
                     w == options.posture_weights.end() ? 1.0 : w->second);
  SetMeasurementPoints(model, source, &pp);
  // A posture may carry several sets (roving hammer or accelerometer), one per pair of points.
  for (const ProblemPosture& other : problem->postures)
    if (SetName(other) == SetName(pp))
      throw Error(source, "/@posture",
                  other.measured.response_frame.empty() && other.measured.excitation_frame.empty()
                      ? "posture '" + measured.posture + "' is already given by " + other.source
                      : "set " + SetName(pp) + " (posture:response:excitation) is already given by " +
                            other.source);
  problem->postures.push_back(std::move(pp));
}

void RequirePostureWeightsUsed(const Problem& problem, const FitOptions& options,
                               const std::string& config_source) {
  for (const auto& [name, weight] : options.posture_weights) {
    bool used = false;
    for (const ProblemPosture& p : problem.postures) used = used || p.posture.name == name;
    if (!used) throw Error(config_source, "postures." + name, "no FRF file given for this posture");
  }
}

}  // namespace

Problem LoadProblem(std::shared_ptr<const Model> model, const std::vector<std::string>& frf_files,
                    const FitOptions& options, const std::string& config_source) {
  Problem problem;
  problem.model = model;
  problem.cost = options.cost;
  for (const std::string& file : frf_files) AddMeasured(ReadFrfSet(file), file, options, &problem);
  RequirePostureWeightsUsed(problem, options, config_source);
  return problem;
}

Problem ProblemFromSets(std::shared_ptr<const Model> model, const std::vector<FrfSet>& sets,
                        const std::vector<std::string>& sources, const FitOptions& options,
                        const std::string& config_source) {
  if (sources.size() != sets.size())
    throw Error("expected one source name per FRF set, got " + std::to_string(sources.size()) +
                " for " + std::to_string(sets.size()));
  Problem problem;
  problem.model = model;
  problem.cost = options.cost;
  for (size_t i = 0; i < sets.size(); ++i) {
    Validate(sets[i], sources[i]);
    AddMeasured(sets[i], sources[i], options, &problem);
  }
  RequirePostureWeightsUsed(problem, options, config_source);
  return problem;
}

void AddModes(const std::vector<std::string>& files, const FitOptions& options, Problem* problem) {
  AddModes(files, options, CampaignModesSettings{}, problem);
}

void AddModes(const std::vector<std::string>& files, const FitOptions& options,
              const CampaignModesSettings& campaign, Problem* problem) {
  problem->modes.options = options.modes;
  bool any_campaign = false;
  for (const std::string& file : files) {
    if (!problem->postures.empty() && problem->cost.weights.mode != WeightMode::kNoise)
      throw Error(file, "cost.weights.mode",
                  "expected noise beside FRF sets (a mode's residuals are in units of its sigma; "
                  "other weights are emphasis, not variances)");
    if (!IsCampaignEmaResult(file)) {
      problem->modes.sets.push_back(MakeModalSet(*problem->model, ReadEmaResult(file), file));
      continue;
    }
    any_campaign = true;
    if (campaign.mapping.empty())
      throw Error("frfit fit", "--mapping",
                  "expected a node map (nodes: {node id: model frame}) for the campaign's modes "
                  "in " + file);
    if (campaign.posture.empty())
      throw Error("frfit fit", "--posture",
                  "expected the posture the campaign of " + file + " was measured at (model '" +
                      problem->model->name + "' has " + problem->model->PostureNames() + ")");
    problem->modes.sets.push_back(MakeCampaignModalSet(*problem->model, campaign.posture,
                                                       campaign::ReadEmaResult(file),
                                                       uff::ReadMapping(campaign.mapping), file));
  }
  if (!any_campaign && !campaign.empty())
    throw Error("frfit fit", campaign.mapping.empty() ? "--posture" : "--mapping",
                "given, but no --modes file is a campaign's EMA result (frfit ema CAMPAIGN "
                "--out); an frfit ema result names its own posture and point");
}

std::vector<std::vector<double>> PostureCoordinates(const Problem& problem) {
  std::vector<std::vector<double>> q;
  for (const ProblemPosture& p : problem.postures) q.push_back(p.posture.q);
  return q;
}

}  // namespace frfit
