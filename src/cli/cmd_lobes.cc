// frfit lobes: the stability lobe diagram of a milling cut at one posture, from the identified
// model's tool-tip receptance in the cutting plane (docs/lobes.md).
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "args.h"
#include "commands.h"
#include "progress.h"
#include "frfit/common/error.h"
#include "frfit/common/json_number.h"
#include "frfit/files/atomic_file.h"
#include "frfit/io/lobes_hdf5.h"
#include "frfit/files/output_path.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/predict/lobes_model.h"

namespace frfit::cli {
namespace {

// The cutting-plane receptance the lobes were computed from, for other tools (and for
// benchmarks/lobes_reference.py): every number with 17 significant digits.
std::string FrfCsv(const CuttingPlaneFrf& frf) {
  std::string text = "frequency_hz,xx_re,xx_im,xy_re,xy_im,yx_re,yx_im,yy_re,yy_im\n";
  char cell[64];
  for (int l = 0; l < frf.num_lines(); ++l) {
    std::snprintf(cell, sizeof cell, "%.17g", frf.frequency_hz[l]);
    text += cell;
    for (int e = 0; e < 4; ++e) {
      const std::complex<double> v = frf.receptance[4 * l + e];
      std::snprintf(cell, sizeof cell, ",%.17g,%.17g", v.real(), v.imag());
      text += cell;
    }
    text += "\n";
  }
  return text;
}

// Everything `--json` carries: the cut, the FRF's lines, the envelope, each lobe's minimum, and
// the band over sampled parameter sets when there is one.
nlohmann::ordered_json LobesJson(const ModelContext& ctx, const CutConfig& cut, const LobeOptions& options,
                                 const CuttingPlaneFrf& frf, const StabilityLobes& lobes,
                                 const LobeBand& band) {
  const char* axes = "xyz";
  nlohmann::ordered_json out;
  out["model"] = ctx.model.name;
  out["posture"] = ctx.posture_name;
  out["parameters_source"] = ctx.parameters_source;
  out["cut"] = cut.source;
  out["milling"] = cut.Milling();
  out["teeth"] = cut.teeth;
  out["entry_angle_deg"] = cut.entry_angle_deg;
  out["exit_angle_deg"] = cut.exit_angle_deg;
  out["kt_n_per_m2"] = cut.kt_n_per_m2;
  out["kr_ratio"] = cut.kr_ratio;
  out["feed_axis"] = std::string(1, axes[cut.feed_axis]);
  out["normal_axis"] = std::string(1, axes[cut.normal_axis]);
  out["tool_axis"] = std::string(1, axes[cut.tool_axis]);
  out["directional_factors"] = {{"xx", options.alpha.xx},
                                {"xy", options.alpha.xy},
                                {"yx", options.alpha.yx},
                                {"yy", options.alpha.yy}};
  out["frf_lines"] = frf.num_lines();
  out["frf_f0_hz"] = frf.frequency_hz.front();
  out["frf_f1_hz"] = frf.frequency_hz.back();
  out["critical_depth_m"] = JsonNumber(lobes.critical_depth_m);
  out["critical_spindle_speed_rpm"] = JsonNumber(lobes.critical_spindle_speed_rpm);
  out["critical_chatter_frequency_hz"] = JsonNumber(lobes.critical_chatter_frequency_hz);
  out["absolute_critical_depth_m"] = JsonNumber(lobes.absolute_critical_depth_m);
  out["absolute_chatter_frequency_hz"] = JsonNumber(lobes.absolute_chatter_frequency_hz);
  out["lobes_computed"] = lobes.lobes_computed;
  out["lobes_truncated"] = lobes.lobes_truncated;
  nlohmann::ordered_json minima = nlohmann::ordered_json::array();
  for (const LobeMinimum& m : lobes.lobes)
    minima.push_back({{"k", m.k},
                      {"depth_m", m.depth_m},
                      {"spindle_speed_rpm", m.spindle_speed_rpm},
                      {"chatter_frequency_hz", m.chatter_frequency_hz},
                      {"clipped", m.clipped}});
  out["lobes"] = minima;
  out["spindle_speed_rpm"] = lobes.spindle_speed_rpm;
  out["depth_limit_m"] = JsonNumbers(lobes.depth_limit_m);
  out["chatter_frequency_hz"] = JsonNumbers(lobes.chatter_frequency_hz);
  out["samples"] = band.samples;
  if (band.samples > 0) {
    out["seed"] = band.seed;
    out["samples_reflected"] = band.reflected;
    out["critical_depth_m_p05"] = JsonNumber(band.critical_depth_m_p05);
    out["critical_depth_m_p95"] = JsonNumber(band.critical_depth_m_p95);
    out["depth_limit_m_p05"] = JsonNumbers(band.depth_limit_m_p05);
    out["depth_limit_m_p95"] = JsonNumbers(band.depth_limit_m_p95);
    out["band_brackets_estimate"] = band.brackets_estimate;
    if (!band.brackets_estimate) out["band_note"] = band.note;
    if (!SigmaNote(ctx.identifiability).empty()) out["sigma_note"] = SigmaNote(ctx.identifiability);
  }
  return out;
}

// The text summary: the critical depth, its band, and each lobe's minimum.
void PrintLobes(const ModelContext& ctx, const CutConfig& cut, const CuttingPlaneFrf& frf,
                const StabilityLobes& lobes, const LobeBand& band) {
  const char* axes = "xyz";
  std::printf("model %s, posture %s, parameters: %s\n", ctx.model.name.c_str(),
              ctx.posture_name.c_str(), ctx.parameters_source.c_str());
  std::printf(
      "cut %s: %s milling %g..%g deg, %d teeth, Kt %.4g N/m2, Kr/Kt %g; feed %c, normal %c, tool "
      "%c\n",
      cut.source.c_str(), cut.Milling().c_str(), cut.entry_angle_deg, cut.exit_angle_deg,
      cut.teeth, cut.kt_n_per_m2, cut.kr_ratio, axes[cut.feed_axis], axes[cut.normal_axis],
      axes[cut.tool_axis]);
  std::printf("receptance: %d lines %.4g..%.4g Hz\n", frf.num_lines(), frf.frequency_hz.front(),
              frf.frequency_hz.back());
  if (std::isfinite(lobes.critical_depth_m))
    std::printf(
        "critical depth %.4g mm at %.0f rpm (chatter %.2f Hz) over %g..%g rpm; at any speed "
        "%.4g mm\n",
        1e3 * lobes.critical_depth_m, lobes.critical_spindle_speed_rpm,
        lobes.critical_chatter_frequency_hz, cut.speed_min_rpm, cut.speed_max_rpm,
        1e3 * lobes.absolute_critical_depth_m);
  else
    std::printf("no lobe reaches %g..%g rpm: no chatter predicted there\n", cut.speed_min_rpm,
                cut.speed_max_rpm);
  if (band.samples > 0)
    std::printf("  5..95 %% over %d parameter sets from the fit's covariance (seed %lu): %.4g..%.4g mm\n",
                band.samples, static_cast<unsigned long>(band.seed),
                1e3 * band.critical_depth_m_p05, 1e3 * band.critical_depth_m_p95);
  if (band.reflected > 0)
    std::printf("  (%d of %d sets had a parameter beyond the model's bounds, reflected back at them)\n",
                band.reflected, band.samples);
  if (band.samples > 0 && !band.brackets_estimate)
    std::printf("  the band is not meaningful: %s\n", band.note.c_str());
  if (band.samples > 0 && !SigmaNote(ctx.identifiability).empty())
    std::printf("  (%s)\n", SigmaNote(ctx.identifiability).c_str());
  std::printf("  lobe  min depth [mm]  at [rpm]  chatter [Hz]\n");
  int clipped = 0;
  for (const LobeMinimum& m : lobes.lobes) {
    if (m.clipped) {
      ++clipped;
      continue;
    }
    std::printf("  %4d  %14.4g  %8.0f  %12.2f\n", m.k, 1e3 * m.depth_m, m.spindle_speed_rpm,
                m.chatter_frequency_hz);
  }
  if (clipped > 0)
    std::printf("  (%d more lobes reach the range but have their minimum outside it)\n", clipped);
  if (lobes.lobes_truncated)
    std::printf("  (lobes k >= %d not traced; raise the range's minimum speed)\n",
                lobes.lobes_computed);
  std::printf("  the envelope per speed: --json (depth_limit_m)\n");
}

}  // namespace

int RunLobes(int argc, char** argv) {
  const Args args("lobes", argc, argv,
                  {"model", "posture", "q", "params", "cut", "samples", "seed", "frf-out", "out"},
                  {"json", "progress"});
  const CutConfig cut = LoadCutConfig(args.Get("cut"));
  const long samples_given = args.GetInt("samples", -1);
  if (args.Has("samples") && (samples_given < 0 || samples_given > 100000))
    throw Error("frfit lobes", "--samples", "expected an integer from 0 to 100000");
  const long seed = args.GetInt("seed", 1);
  if (seed < 0) throw Error("frfit lobes", "--seed", "expected an integer >= 0");
  const ModelContext ctx = LoadModelContext(args);
  const bool has_sigma = !ctx.identifiability.per_parameter.empty();
  if (samples_given > 0 && !has_sigma)
    throw Error("frfit lobes", "--samples",
                "needs a fit result with a covariance as --params (" + ctx.parameters_source +
                    " has none)");
  if (!has_sigma && args.Has("seed"))
    throw Error("frfit lobes", "--seed", "only applies with a fit result's covariance (--params R.h5)");
  const int samples = has_sigma ? static_cast<int>(samples_given < 0 ? 200 : samples_given) : 0;
  std::vector<std::string> inputs = ctx.model.files;
  inputs.push_back(args.Get("params", ""));
  inputs.push_back(args.Get("cut"));
  for (const char* option : {"frf-out", "out"})
    if (args.Has(option))
      RequireNotAnInput("frfit lobes", std::string("--") + option, args.Get(option), inputs);

  const Posture posture = Linearize(ctx.model, ctx.q, ctx.posture_name);
  const CuttingPlaneFrf frf =
      ToolTipFrf(posture, Coefficients(ctx.model, ctx.parameters, ctx.q), cut);
  const LobeOptions options = LobeOptionsFor(cut);
  const StabilityLobes lobes = ComputeStabilityLobes(frf, options);
  ProgressMeter meter("frfit lobes", "draws of the band", ProgressWanted(args) && samples > 0);
  meter.Start(samples);
  const LobeBand band = samples > 0 ? SampleLobeBand(ctx.model, posture, ctx.parameters,
                                                     ctx.identifiability, cut, samples,
                                                     static_cast<std::uint64_t>(seed),
                                                     meter.Callback())
                                    : LobeBand{};
  if (args.Has("frf-out")) WriteTextFileAtomically(args.Get("frf-out"), FrfCsv(frf));
  if (args.Has("out"))
    WriteLobesFile(args.Get("out"),
                   {ctx.model.name, ctx.model.source, ctx.posture_name, ctx.parameters_source,
                    cut.source, cut.Milling(), cut.teeth, cut.kt_n_per_m2, cut.kr_ratio, lobes,
                    band, band.samples > 0 ? SigmaNote(ctx.identifiability) : ""});
  if (args.Flag("json")) {
    nlohmann::ordered_json out = LobesJson(ctx, cut, options, frf, lobes, band);
    if (args.Has("frf-out")) out["frf_out"] = args.Get("frf-out");
    if (args.Has("out")) out["out"] = args.Get("out");
    std::printf("%s\n", out.dump().c_str());
  } else {
    PrintLobes(ctx, cut, frf, lobes, band);
  }
  if (args.Has("out")) std::fprintf(stderr, "wrote %s\n", args.Get("out").c_str());
  return 0;
}

}  // namespace frfit::cli
