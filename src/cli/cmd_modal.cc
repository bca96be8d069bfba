// frfit modal: natural frequencies, damping ratios and sensor-frame mode shapes at one posture.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "args.h"
#include "commands.h"
#include "frfit/common/error.h"
#include "frfit/common/json_number.h"
#include "frfit/results/mode_uncertainty.h"
#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"

namespace frfit::cli {

int RunModal(int argc, char** argv) {
  const Args args("modal", argc, argv, {"model", "posture", "q", "params", "ema", "mapping"},
                  {"json"});
  const ModelContext ctx = LoadModelContext(args);
  const Posture posture = Linearize(ctx.model, ctx.q, ctx.posture_name);
  const ModalAnalysis analysis =
      AnalyseModes(posture, Coefficients(ctx.model, ctx.parameters, ctx.q));
  const std::vector<Mode>& modes = analysis.modes;
  if (args.Has("ema")) return RunModalCorrelation(args, ctx, posture, modes);
  if (args.Has("mapping"))
    throw Error("frfit modal", "--mapping", "expected --ema CAMPAIGN_EMA.h5 with it");
  // With a fit result's covariance, each mode's 1σ (linearised, fit/mode_uncertainty.h).
  const bool has_sigma = !ctx.identifiability.per_parameter.empty();
  const std::vector<ModeSigma> sigma =
      has_sigma ? PropagateModeSigmas(posture, ctx.model, ctx.parameters, ctx.identifiability)
                : std::vector<ModeSigma>(modes.size(), ModeSigma{NAN, NAN});
  // A DOF that does not oscillate (overdamped: two real eigenvalues) has no mode; say so rather
  // than show fewer modes than DOFs without a word.
  const int dofs = ctx.model.num_dofs();
  const int rigid = analysis.rigid_body_eigenvalues / 2;  // free coordinates' rigid motions
  const int not_oscillating = dofs - rigid - static_cast<int>(modes.size());
  if (args.Flag("json")) {
    nlohmann::ordered_json out;
    out["model"] = ctx.model.name;
    out["posture"] = ctx.posture_name;
    out["parameters_source"] = ctx.parameters_source;
    out["dofs"] = dofs;
    out["modes"] = nlohmann::json::array();
    for (size_t k = 0; k < modes.size(); ++k) {
      const Mode& m = modes[k];
      nlohmann::ordered_json shape;
      for (int i = 0; i < 3; ++i) shape.push_back({m.sensor_shape(i).real(), m.sensor_shape(i).imag()});
      out["modes"].push_back({{"frequency_hz", m.frequency_hz},
                              {"frequency_sigma_hz", JsonNumber(sigma[k].frequency_hz)},
                              {"damping_ratio", m.damping_ratio},
                              {"damping_ratio_sigma", JsonNumber(sigma[k].damping_ratio)},
                              {"sensor_shape", shape}});
    }
    out["overdamped_dofs"] = not_oscillating;
    if (rigid > 0) out["rigid_body_modes"] = rigid;
    out["real_eigenvalues_1_per_s"] = analysis.real_eigenvalues;
    if (!analysis.near_critical.empty()) {
      out["near_critical_pairs"] = nlohmann::json::array();
      for (const std::complex<double>& lambda : analysis.near_critical)
        out["near_critical_pairs"].push_back(
            {{"frequency_hz", lambda.imag() / (2.0 * M_PI)},
             {"damping_ratio", -lambda.real() / std::abs(lambda)}});
    }
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  std::printf("model %s, posture %s, parameters: %s\n", ctx.model.name.c_str(),
              ctx.posture_name.c_str(), ctx.parameters_source.c_str());
  if (has_sigma) {
    std::printf("  mode  damped f [Hz]    1σ [Hz]  damping [%%]    1σ [%%]   |sensor shape| x y z\n");
    for (size_t k = 0; k < modes.size(); ++k)
      std::printf("  %4zu  %13.4f  %9.3g  %11.3f  %8.2g   %.3f %.3f %.3f\n", k + 1,
                  modes[k].frequency_hz, sigma[k].frequency_hz, 100.0 * modes[k].damping_ratio,
                  100.0 * sigma[k].damping_ratio, std::abs(modes[k].sensor_shape(0)),
                  std::abs(modes[k].sensor_shape(1)), std::abs(modes[k].sensor_shape(2)));
  } else {
    std::printf("  mode  damped f [Hz]  damping [%%]   |sensor shape| x y z\n");
    for (size_t k = 0; k < modes.size(); ++k)
      std::printf("  %4zu  %13.4f  %11.3f   %.3f %.3f %.3f\n", k + 1, modes[k].frequency_hz,
                  100.0 * modes[k].damping_ratio, std::abs(modes[k].sensor_shape(0)),
                  std::abs(modes[k].sensor_shape(1)), std::abs(modes[k].sensor_shape(2)));
  }
  std::printf(
      "  damped f = Im(lambda)/2pi, the frequency the mode rings at; damping = "
      "-Re(lambda)/|lambda|\n");
  if (has_sigma)
    std::printf(
        "  1σ: the fit's covariance (%s) carried to this posture, linearised "
        "(docs/identifiability.md)\n",
        ctx.parameters_source.c_str());
  // The DOFs with real eigenvalues; a near-critical pair (its own line below) is the other kind.
  const int overdamped = not_oscillating - static_cast<int>(analysis.near_critical.size());
  if (overdamped > 0) {
    std::string rates;
    for (double v : analysis.real_eigenvalues) {
      char text[32];
      std::snprintf(text, sizeof text, "%.4g", v);
      rates += (rates.empty() ? "" : ", ") + std::string(text);
    }
    std::printf(
        "  %zu modes for %d DOFs: %d DOF%s overdamped (real eigenvalues %s 1/s), no frequency\n",
        modes.size(), dofs, overdamped, overdamped == 1 ? " is" : "s are", rates.c_str());
  }
  for (const std::complex<double>& lambda : analysis.near_critical)
    std::printf(
        "  near-critical pair at %.4g Hz, damping ratio %.4f (>= %.2f): no resonance, not a mode\n",
        lambda.imag() / (2.0 * M_PI), -lambda.real() / std::abs(lambda), kNearCriticalDamping);
  if (rigid > 0)
    std::printf("  %d rigid-body mode%s (eigenvalue 0: coordinates without springs), not listed\n",
                rigid, rigid == 1 ? "" : "s");
  return 0;
}

}  // namespace frfit::cli
