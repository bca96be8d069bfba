// frfit ema CAMPAIGN: one modal analysis of a whole campaign (UFF files or a campaign .h5) —
// poly-reference LSCF over every FRF, one stabilisation diagram, shapes at every roving DOF
// (docs/campaign.md, "Modes of a campaign").
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "args.h"
#include "commands.h"
#include "progress.h"
#include "frfit/campaign/campaign_ema.h"
#include "frfit/campaign/campaign_ema_hdf5.h"
#include "frfit/campaign/campaign_hdf5.h"
#include "frfit/campaign/campaign_uff.h"
#include "frfit/common/error.h"
#include "frfit/common/json_number.h"
#include "frfit/common/warning.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/files/output_path.h"

namespace frfit::cli {
namespace {

std::string Extension(const std::string& path) {
  const auto dot = path.find_last_of('.');
  std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

bool IsUffPath(const std::string& path) {
  const std::string e = Extension(path);
  return e == "uff" || e == "unv" || e == "uf" || e == "58";
}

nlohmann::ordered_json ModeJson(const campaign::EmaResult& r, const campaign::EmaMode& m) {
  auto shape = nlohmann::ordered_json::array();
  for (size_t d = 0; d < r.dofs.size(); ++d)
    shape.push_back({{"node", r.dofs[d].node},
                     {"direction", campaign::ToString(r.dofs[d]).substr(std::to_string(r.dofs[d].node).size())},
                     {"dof", campaign::ToString(r.dofs[d])},
                     {"value", {m.shape[d].real(), m.shape[d].imag()}},
                     {"sigma", JsonNumber(m.shape_sigma[d])}});
  return {{"frequency_hz", m.frequency_hz},
          {"frequency_sigma_hz", JsonNumber(m.frequency_sigma_hz)},
          {"damping_ratio", m.damping_ratio},
          {"damping_sigma", JsonNumber(m.damping_sigma)},
          {"stable_poles", m.stable_poles},
          {"lowest_order", m.lowest_order},
          {"explained", m.explained},
          {"contribution", JsonNumber(m.contribution)},
          {"mpc", JsonNumber(m.mpc)},
          {"mpd_deg", JsonNumber(m.mpd_deg)},
          {"shape", shape}};
}

nlohmann::ordered_json ToJson(const campaign::EmaResult& r, const campaign::Campaign& c,
                              const std::string& out) {
  nlohmann::ordered_json j;
  j["campaign"] = r.source;
  j["format"] = ToString(r.format);
  j["units"] = UnitsOf(r.format);
  j["band_hz"] = {r.band_min_hz, r.band_max_hz};
  j["lines"] = r.lines;
  j["records"] = c.records.size();
  j["method"] = r.method;
  j["method_description"] = campaign::DescribeMethod(r);
  j["reciprocity"] = r.reciprocity;
  j["references"] = nlohmann::ordered_json::array();
  for (const auto& d : r.references) j["references"].push_back(campaign::ToString(d));
  j["pole_records"] = r.pole_records;
  j["max_order"] = r.max_order;
  j["criteria"] = CriteriaJson(r.options.ema.criteria, r.min_stable_poles);
  j["modes"] = nlohmann::ordered_json::array();
  for (const auto& m : r.modes) j["modes"].push_back(ModeJson(r, m));
  const size_t M = r.modes.size();
  j["auto_mac"] = nlohmann::ordered_json::array();
  for (size_t a = 0; a < M; ++a)
    j["auto_mac"].push_back(std::vector<double>(r.auto_mac.begin() + a * M, r.auto_mac.begin() + (a + 1) * M));
  j["dropped"] = nlohmann::ordered_json::array();
  for (const EmaDropped& d : r.dropped)
    j["dropped"].push_back({{"frequency_hz", d.frequency_hz},
                            {"damping_ratio", d.damping_ratio},
                            {"stable_poles", d.stable_poles},
                            {"reason", ToString(d.reason)},
                            {"contribution", JsonNumber(d.contribution)}});
  j["stabilisation"] = nlohmann::ordered_json::array();
  for (size_t p = 0; p < r.poles.size();) {
    const int order = r.poles[p].order;
    auto f = nlohmann::ordered_json::array(), z = nlohmann::ordered_json::array();
    std::string letters;
    for (; p < r.poles.size() && r.poles[p].order == order; ++p) {
      f.push_back(r.poles[p].frequency_hz);
      z.push_back(r.poles[p].damping_ratio);
      letters += ToLetter(r.poles[p].stability);
    }
    j["stabilisation"].push_back({{"order", order}, {"frequency_hz", f}, {"damping_ratio", z}, {"stability", letters}});
  }
  if (!c.assumed.empty()) j["assumed"] = c.assumed;
  if (!out.empty()) j["out"] = out;
  return j;
}

void PrintText(const campaign::EmaResult& r, const campaign::Campaign& c) {
  std::printf("frfit ema %s: campaign of %zu FRFs, %s [%s], %d lines %g-%g Hz\n", r.source.c_str(),
              c.records.size(), ToString(r.format).c_str(), UnitsOf(r.format).c_str(), r.lines,
              r.band_min_hz, r.band_max_hz);
  std::printf("method: %s\n", campaign::DescribeMethod(r).c_str());
  std::printf("shapes at %zu DOFs (the %s)\n", r.dofs.size(),
              r.reciprocity ? "hammer points" : "response DOFs");
  std::printf("  mode  frequency [Hz]    1σ [Hz]  damping [%%]   1σ [%%]  stable poles  response share [%%]    MPC  MPD [°]\n");
  for (size_t k = 0; k < r.modes.size(); ++k) {
    const campaign::EmaMode& m = r.modes[k];
    std::printf("  %4zu  %14.4f  %9.2g  %11.3f  %7.2g  %12d  %18.1f  %5.3f  %7.1f\n", k + 1,
                m.frequency_hz, m.frequency_sigma_hz, 100.0 * m.damping_ratio,
                100.0 * m.damping_sigma, m.stable_poles, 100.0 * m.explained, m.mpc, m.mpd_deg);
  }
  if (r.modes.empty()) std::printf("  no stable modes in the band\n");
  for (const EmaDropped& d : r.dropped)
    std::printf("  not a mode: column at %.4f Hz (damping %.3f %%, %d stable poles): %s\n",
                d.frequency_hz, 100.0 * d.damping_ratio, d.stable_poles, ToString(d.reason).c_str());
  for (const auto& a : c.assumed) std::printf("  assumed: %s\n", a.c_str());
}

}  // namespace

bool IsCampaignInput(const std::string& path) {
  if (IsUffPath(path)) return true;
  try {
    const Hdf5File f(path, Hdf5File::Mode::kRead);
    return f.HasAttribute("/", "frfit_file") && f.GetAttribute("/", "frfit_file") == "campaign";
  } catch (const Error&) {
    return false;  // not HDF5: the FRF set reader says what is wrong
  }
}

bool AllUff(const std::vector<std::string>& paths) {
  for (const std::string& p : paths)
    if (!IsUffPath(p)) return false;
  return !paths.empty();
}

int RunCampaignEma(const Args& args, const EmaOptions& ema, const std::vector<std::string>& files) {
  // The source the messages and the result name: the file, or the files joined.
  std::string in;
  for (const std::string& f : files) in += (in.empty() ? "" : ",") + f;
  campaign::UffOptions uff;
  if (args.Has("averages")) {
    const long n = args.GetInt("averages", 0);
    if (n < 1 || n > 1000000) throw Error("frfit ema", "--averages", "expected an integer in [1, 1000000]");
    uff.averages = static_cast<int>(n);
  }
  const campaign::Campaign c = AllUff(files) ? campaign::ReadUff(files, uff) : campaign::ReadHdf5(files[0]);
  if (c.exponential_window)
    Warn("frfit ema", in,
         "the FRFs were measured under an exponential window whose time constant the campaign "
         "does not record: the damping ratios include the window's");
  const std::string out = args.Get("out", "");
  if (!out.empty()) RequireNotAnInput("frfit ema", "--out", out, files);
  campaign::EmaOptions options;
  options.ema = ema;
  options.single_reference = args.Flag("single-reference");
  ProgressMeter meter("frfit ema", "steps (model orders, then refinements)", ProgressWanted(args));
  meter.Start(0);
  options.ema.progress = meter.Callback();
  campaign::EmaResult r = campaign::EstimateModes(c, options, in);
  r.options.ema.progress = nullptr;
  if (!out.empty()) campaign::WriteEmaResult(out, r, c);
  if (args.Flag("json"))
    std::printf("%s\n", ToJson(r, c, out).dump().c_str());
  else
    PrintText(r, c);
  return 0;
}

}  // namespace frfit::cli
