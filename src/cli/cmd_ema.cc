// frfit ema: modes of a measured FRF set without a model — poles by (poly-reference) LSCF over
// model orders, the stable ones chosen from the stabilisation diagram, shapes by LSFD
// (docs/ema.md).
#include <cmath>
#include <complex>
#include <limits>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "args.h"
#include "commands.h"
#include "progress.h"
#include "frfit/common/error.h"
#include "frfit/common/json_number.h"
#include "frfit/common/warning.h"
#include "frfit/io/ema_hdf5.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/impact/windows.h"
#include "frfit/modal/ema.h"

namespace frfit::cli {
namespace {

constexpr const char* kAxes[3] = {"x", "y", "z"};

void ParseBand(const std::string& text, EmaOptions* options) {
  const auto colon = text.find(':');
  char* end0 = nullptr;
  char* end1 = nullptr;
  const std::string a = text.substr(0, colon),
                    b = colon == std::string::npos ? "" : text.substr(colon + 1);
  const double f0 = std::strtod(a.c_str(), &end0), f1 = std::strtod(b.c_str(), &end1);
  if (colon == std::string::npos || a.empty() || b.empty() || *end0 || *end1 || !(f0 >= 0.0) ||
      !(f1 > f0) || !std::isfinite(f1))
    throw Error("frfit ema", "--band",
                "expected F0:F1 in Hz with 0 <= F0 < F1, got '" + text + "'");
  options->band_min_hz = f0;
  options->band_max_hz = f1;
}

nlohmann::ordered_json ShapeJson(const Eigen::Vector3cd& shape) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (int i = 0; i < 3; ++i)
    if (std::isfinite(shape(i).real()))
      out.push_back({shape(i).real(), shape(i).imag()});
    else
      out.push_back(nullptr);  // an axis no measured entry involves
  return out;
}

nlohmann::ordered_json ToJson(const EmaResult& r, const std::string& out_path) {
  nlohmann::ordered_json j;
  j["frf"] = r.source;
  j["posture"] = r.measured.posture;
  j["format"] = ToString(r.measured.format);
  j["units"] = UnitsOf(r.measured.format);
  j["band_hz"] = {r.band_min_hz, r.band_max_hz};
  j["lines"] = r.measured.num_lines();
  j["entries"] = nlohmann::ordered_json::array();
  for (int e = 0; e < 9; ++e)
    if (r.measured.present[e]) j["entries"].push_back(EntryName(e));
  j["method"] = r.method;
  j["references"] = nlohmann::ordered_json::array();
  for (int axis : r.references) j["references"].push_back(kAxes[axis]);
  j["max_order"] = r.max_order;
  j["sampling_time_s"] = r.sampling_time_s;
  j["criteria"] = CriteriaJson(r.options.criteria, r.min_stable_poles);
  j["modes"] = nlohmann::ordered_json::array();
  for (const EmaMode& m : r.modes)
    j["modes"].push_back({{"frequency_hz", m.mode.frequency_hz},
                          {"frequency_sigma_hz", JsonNumber(m.frequency_sigma_hz)},
                          {"damping_ratio", m.mode.damping_ratio},
                          {"damping_sigma", JsonNumber(m.damping_sigma)},
                          {"stable_poles", m.stable_poles},
                          {"lowest_order", m.lowest_order},
                          {"explained", m.explained},
                          {"contribution", JsonNumber(m.contribution)},
                          {"mpc", JsonNumber(m.mpc)},
                          {"mpd_deg", JsonNumber(m.mpd_deg)},
                          {"sensor_shape", ShapeJson(m.mode.sensor_shape)}});
  // Every column of the diagram that is not a mode, with the reason.
  j["dropped"] = nlohmann::ordered_json::array();
  for (const EmaDropped& d : r.dropped)
    j["dropped"].push_back({{"frequency_hz", d.frequency_hz},
                            {"damping_ratio", d.damping_ratio},
                            {"stable_poles", d.stable_poles},
                            {"reason", ToString(d.reason)},
                            {"contribution", JsonNumber(d.contribution)},
                            {"why", DescribeDropped(d, r)}});
  // The diagram, one object per order: its candidate poles and their stability letters.
  j["stabilisation"] = nlohmann::ordered_json::array();
  for (size_t p = 0; p < r.poles.size();) {
    const int order = r.poles[p].order;
    nlohmann::ordered_json f = nlohmann::ordered_json::array(), z = nlohmann::ordered_json::array();
    std::string letters;
    for (; p < r.poles.size() && r.poles[p].order == order; ++p) {
      f.push_back(r.poles[p].frequency_hz);
      z.push_back(r.poles[p].damping_ratio);
      letters += ToLetter(r.poles[p].stability);
    }
    j["stabilisation"].push_back(
        {{"order", order}, {"frequency_hz", f}, {"damping_ratio", z}, {"stability", letters}});
  }
  if (!out_path.empty()) j["out"] = out_path;
  return j;
}

// What the estimation used in place of what was asked, each a warning line: an order the lines
// cannot determine is clipped, and the stable-pole count scales with the order used.
void WarnChangedOptions(const EmaOptions& asked, const EmaResult& r) {
  if (asked.max_order > 0 && r.max_order < asked.max_order)
    Warn("frfit ema", "--max-order",
         "asked " + std::to_string(asked.max_order) + ", used " + std::to_string(r.max_order) +
             ": the " + std::to_string(r.measured.num_lines()) +
             " lines in the band determine no higher order" +
             (asked.criteria.min_stable_poles == 0
                  ? "; a mode needs " + std::to_string(r.min_stable_poles) +
                        " stable poles (a quarter of the orders used; --min-stable sets it)"
                  : std::string()));
  if (asked.criteria.min_stable_poles > 0 && r.min_stable_poles != asked.criteria.min_stable_poles)
    Warn("frfit ema", "--min-stable",
         "asked " + std::to_string(asked.criteria.min_stable_poles) + ", used " +
             std::to_string(r.min_stable_poles));
}

// The exponential window's damping the EMA took out of the modes (modal/ema.h): each mode's
// damping as measured (its pole moved back by −1/τ) and after, said on stderr.
void SayExponentialWindow(const EmaResult& r) {
  const double tau = r.exponential_window_tau_s;
  if (!std::isfinite(tau)) return;
  for (const EmaMode& m : r.modes) {
    const std::complex<double> measured = m.mode.eigenvalue - 1.0 / tau;
    std::fprintf(stderr,
                 "ema: mode at %.4g Hz: damping ratio %.4g %% measured, %.4g %% after removing "
                 "the exponential window's (tau %.6g s)\n",
                 m.mode.frequency_hz, -100 * measured.real() / std::abs(measured),
                 100 * m.mode.damping_ratio, tau);
  }
}

// The options every frfit ema takes, checked; Error names the option.
EmaOptions ParseEmaOptions(const Args& args) {
  EmaOptions options;
  if (args.Has("band")) ParseBand(args.Get("band"), &options);
  const long order = args.GetInt("max-order", 0);
  if (args.Has("max-order") && order < 1)
    throw Error("frfit ema", "--max-order", "expected an integer >= 1");
  options.max_order = static_cast<int>(order);
  StabilisationCriteria& c = options.criteria;
  c.frequency_tolerance = args.GetDouble("frequency-tolerance", c.frequency_tolerance);
  c.damping_tolerance = args.GetDouble("damping-tolerance", c.damping_tolerance);
  c.min_mac = args.GetDouble("min-mac", c.min_mac);
  c.max_damping_ratio = args.GetDouble("max-damping", c.max_damping_ratio);
  c.min_contribution = args.GetDouble("min-contribution", c.min_contribution);
  const long min_stable = args.GetInt("min-stable", 0);
  if (args.Has("min-stable") && min_stable < 1)
    throw Error("frfit ema", "--min-stable", "expected an integer >= 1");
  c.min_stable_poles = static_cast<int>(min_stable);
  std::string error;
  if (!options.IsValid(&error)) {
    // IsValid names the option's field; say it as the command line does.
    const std::pair<const char*, const char*> kOptions[] = {
        {"criteria.frequency_tolerance", "--frequency-tolerance"},
        {"criteria.damping_tolerance", "--damping-tolerance"},
        {"criteria.min_mac", "--min-mac"},
        {"criteria.max_damping_ratio", "--max-damping"},
        {"criteria.min_contribution", "--min-contribution"}};
    ThrowAsOption("frfit ema", error, kOptions);
  }
  const std::string out = args.Get("out", "");
  if (!out.empty() && !std::filesystem::is_directory(std::filesystem::absolute(out).parent_path()))
    throw Error("frfit ema", "--out",
                "expected a path in an existing directory, got '" + out + "'");

  return options;
}

}  // namespace

nlohmann::ordered_json CriteriaJson(const StabilisationCriteria& c, int min_stable_poles) {
  return {{"frequency_tolerance", c.frequency_tolerance},
          {"damping_tolerance", c.damping_tolerance},
          {"min_mac", c.min_mac},
          {"max_damping_ratio", c.max_damping_ratio},
          {"min_stable_poles", min_stable_poles},
          {"min_contribution", c.min_contribution}};
}

int RunEma(int argc, char** argv) {
  const Args args("ema", argc, argv,
                  {"band", "max-order", "frequency-tolerance", "damping-tolerance", "min-mac",
                   "max-damping", "min-stable", "min-contribution", "out", "averages"},
                  {"json", "progress", "single-reference"}, 1000);
  // A campaign may come as several UFF files (FRFs, coherences, geometry); anything else is one file.
  if (args.positional().size() > 1 && AllUff(args.positional()))
    return RunCampaignEma(args, ParseEmaOptions(args), args.positional());
  if (args.positional().size() != 1)
    throw Error("frfit ema", "FRF.h5",
                "expected exactly one FRF file or campaign (usage: frfit ema FRF.h5|CAMPAIGN "
                "[--band F0:F1] [--max-order N] [--json])");
  const std::string frf = args.positional()[0];
  EmaOptions options = ParseEmaOptions(args);
  const std::string out = args.Get("out", "");
  if (IsCampaignInput(frf)) return RunCampaignEma(args, options, {frf});
  for (const char* option : {"averages", "single-reference"})
    if (args.Has(option) || args.Flag(option))
      throw Error("frfit ema", std::string("--") + option,
                  "only applies to a campaign (UFF files or a campaign .h5), not to an FRF set");
  const FrfSet set = ReadFrfSet(frf);
  ProgressMeter meter("frfit ema", "steps (model orders, then refinements)", ProgressWanted(args));
  meter.Start(0);
  options.progress = meter.Callback();
  EmaResult r = EstimateModes(set, options, frf);
  r.options.progress = nullptr;  // the result outlives nothing of the meter's
  SayExponentialWindow(r);
  WarnChangedOptions(options, r);
  if (!out.empty()) WriteEmaResult(out, r);

  if (args.Flag("json")) {
    nlohmann::ordered_json j = ToJson(r, out);
    j["exponential_window_tau_s"] = JsonNumber(r.exponential_window_tau_s);
    std::printf("%s\n", j.dump().c_str());
    return 0;
  }
  std::printf("frfit ema %s: posture %s, %s [%s], %d lines %g-%g Hz\n", frf.c_str(),
              set.posture.c_str(), ToString(set.format).c_str(), UnitsOf(set.format).c_str(),
              r.measured.num_lines(), r.band_min_hz, r.band_max_hz);
  std::printf("method: %s\n", DescribeMethod(r).c_str());
  // A multi-point set's shapes are the response at its response point (docs/multi-point.md).
  if (!set.response_frame.empty() || !set.excitation_frame.empty())
    std::printf("points: response at frame %s, excitation at frame %s: the shapes are the "
                "response point's\n",
                set.response_frame.empty() ? "sensor" : set.response_frame.c_str(),
                set.excitation_frame.empty() ? "sensor" : set.excitation_frame.c_str());
  std::printf(
      "  mode  frequency [Hz]    1σ [Hz]  damping [%%]   1σ [%%]  stable poles  from order  "
      "response share [%%]    MPC  MPD [°]   |%s shape| x y z\n",
      set.response_frame.empty() ? "sensor" : set.response_frame.c_str());
  for (size_t k = 0; k < r.modes.size(); ++k) {
    const EmaMode& m = r.modes[k];
    std::printf("  %4zu  %14.4f  %9.2g  %11.3f  %7.2g  %12d  %10d  %18.1f  %5.3f  %7.1f  ", k + 1,
                m.mode.frequency_hz, m.frequency_sigma_hz, 100.0 * m.mode.damping_ratio,
                100.0 * m.damping_sigma, m.stable_poles, m.lowest_order, 100.0 * m.explained,
                m.mpc, m.mpd_deg);
    for (int i = 0; i < 3; ++i) {
      const double a = std::abs(m.mode.sensor_shape(i));
      if (std::isfinite(a))
        std::printf(" %.3f", a);
      else
        std::printf("     -");
    }
    std::printf("\n");
  }
  if (r.modes.empty()) std::printf("  no stable modes in the band\n");
  else
    std::printf(
        "  1σ: the pole fit weighed by the noise (the file's noise model, else an estimate); "
        "response share: the share of the measured response only this mode accounts for (not the "
        "selection test, which is the misfit growth without it); MPC 1 and MPD 0° for a real mode "
        "(docs/ema.md)\n");
  for (const EmaDropped& d : r.dropped)
    std::printf("  not a mode: column at %.4f Hz (damping %.3f %%, %d stable poles): %s\n",
                d.frequency_hz, 100.0 * d.damping_ratio, d.stable_poles,
                DescribeDropped(d, r).c_str());
  if (!out.empty()) std::printf("wrote %s\n", out.c_str());
  return 0;
}

}  // namespace frfit::cli
