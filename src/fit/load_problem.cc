#include "frfit/fit/load_problem.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "frfit/common/error.h"
#include "frfit/common/warning.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/modal/ema.h"

namespace frfit {
namespace {

// FRFs from an impact test under an exponential window exp(−t/τ) (frfit frf) hold every pole
// moved by −1/τ: the structure's damping ratio plus 1/(τω). The fit's model has no window, so its
// damping parameters take the window's on; the stiffnesses do not (frequencies stay). Said here,
// with the size over the set's band; frfit ema removes it from the modes it estimates.
void WarnOfExponentialWindow(const FrfSet& measured, const std::string& file) {
  const double tau = ExponentialWindowTau(measured);
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

}  // namespace

Problem LoadProblem(std::shared_ptr<const Model> model, const std::vector<std::string>& frf_files,
                    const FitOptions& options, const std::string& config_source) {
  Problem problem;
  problem.model = model;
  problem.cost = options.cost;
  for (const std::string& file : frf_files) {
    const FrfSet measured = ReadFrfSet(file);
    // FRFs synthesised from another model are legitimate input (a model error study), but rarely
    // what a user meant: say so.
    for (const auto& [key, value] : measured.provenance)
      if (key == "model" && value != model->name)
        Warn(file, "/provenance@model",
             "the FRFs were synthesised from model '" + value + "', this fit uses model '" +
                 model->name + "' (" + model->source + ")");
    WarnOfExponentialWindow(measured, file);
    if (measured.posture.empty())
      throw Error(file, "/@posture",
                  "names no posture (converted without --posture): give the posture it was "
                  "measured at, frfit convert IN.uff OUT.h5 --posture NAME (model '" +
                      model->name + "' has " + model->PostureNames() + ")");
    if (model->FindPosture(measured.posture) < 0)
      throw Error(file, "/@posture", "model '" + model->name + "' has no posture '" +
                                         measured.posture + "' (it has " +
                                         model->PostureNames() + ")");
    for (const ProblemPosture& other : problem.postures)
      if (other.posture.name == measured.posture)
        throw Error(file, "/@posture", "posture '" + measured.posture + "' is already given by " + other.source);
    const auto w = options.posture_weights.find(measured.posture);
    problem.postures.push_back(PreparePosture(Linearize(*model, measured.posture), measured, options.cost,
                                              file, w == options.posture_weights.end() ? 1.0 : w->second));
  }
  for (const auto& [name, weight] : options.posture_weights) {
    bool used = false;
    for (const ProblemPosture& p : problem.postures) used = used || p.posture.name == name;
    if (!used) throw Error(config_source, "postures." + name, "no FRF file given for this posture");
  }
  return problem;
}

std::vector<std::vector<double>> PostureCoordinates(const Problem& problem) {
  std::vector<std::vector<double>> q;
  for (const ProblemPosture& p : problem.postures) q.push_back(p.posture.q);
  return q;
}

}  // namespace frfit
