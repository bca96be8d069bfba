// frfit frf: impact-test time data (HDF5 time recordings, docs/file-formats.md) to an FRF set
// with coherence, averages and noise variance, every hit kept or rejected with its reason
// (library: impact/impact_frf.h).
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numbers>

#include "args.h"
#include "commands.h"
#include "progress.h"
#include "frfit/common/error.h"
#include "frfit/impact/impact_frf.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/files/output_path.h"
#include "frfit/io/time_hdf5.h"
#include "frfit/io/uff_time.h"
#include "frfit/report/impact_report.h"

namespace frfit::cli {
namespace {

constexpr const char* kCommand = "frfit frf";

double Number(const std::string& text, const std::string& option) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || !std::isfinite(v))
    throw Error(kCommand, option, "expected a number, got '" + text + "'");
  return v;
}

void ParseBand(const std::string& text, ImpactOptions* o) {
  const auto colon = text.find(':');
  if (colon == std::string::npos)
    throw Error(kCommand, "--band", "expected F0:F1 in Hz with 0 <= F0 < F1, got '" + text + "'");
  o->band_min_hz = Number(text.substr(0, colon), "--band");
  o->band_max_hz = Number(text.substr(colon + 1), "--band");
  if (!(o->band_min_hz >= 0.0 && o->band_max_hz > o->band_min_hz))
    throw Error(kCommand, "--band", "expected F0:F1 in Hz with 0 <= F0 < F1, got '" + text + "'");
}

// none | tau=S | end=R
void ParseExponential(const std::string& text, ExponentialWindowOptions* w) {
  const std::string expected = "expected none, tau=SECONDS or end=R (0 < R < 1), got '" + text + "'";
  *w = {};
  if (text == "none") return;
  if (text.rfind("tau=", 0) == 0) w->tau_s = Number(text.substr(4), "--exponential-window");
  else if (text.rfind("end=", 0) == 0) w->end_value = Number(text.substr(4), "--exponential-window");
  else throw Error(kCommand, "--exponential-window", expected);
  if (!w->enabled() || !w->IsValid(nullptr)) throw Error(kCommand, "--exponential-window", expected);
}

// none | MARGIN:TAPER (seconds)
void ParseForceWindow(const std::string& text, ForceWindowOptions* w) {
  const std::string expected = "expected none or MARGIN:TAPER in seconds (>= 0), got '" + text + "'";
  if (text == "none") {
    w->enabled = false;
    return;
  }
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw Error(kCommand, "--force-window", expected);
  w->margin_s = Number(text.substr(0, colon), "--force-window");
  w->taper_s = Number(text.substr(colon + 1), "--force-window");
  if (!w->IsValid(nullptr)) throw Error(kCommand, "--force-window", expected);
}

double Positive(const Args& args, const std::string& name, double fallback, bool zero_ok) {
  const double v = args.Has(name) ? Number(args.Get(name), "--" + name) : fallback;
  if (!(zero_ok ? v >= 0.0 : v > 0.0))
    throw Error(kCommand, "--" + name,
                std::string("expected a number ") + (zero_ok ? ">= 0" : "> 0") + ", got '" +
                    args.Get(name) + "'");
  return v;
}

ImpactOptions ParseOptions(const Args& args) {
  ImpactOptions o;
  o.posture = args.Get("posture", "");
  if (args.Has("band")) ParseBand(args.Get("band"), &o);
  if (args.Has("estimator") && !FromString(args.Get("estimator"), &o.estimator))
    throw Error(kCommand, "--estimator", "expected h1, h2 or hv, got '" + args.Get("estimator") + "'");
  if (args.Has("format")) {
    FrfFormat f;
    if (!FromString(args.Get("format"), &f))
      throw Error(kCommand, "--format",
                  "expected receptance, mobility or inertance, got '" + args.Get("format") + "'");
    o.format = f;
  }
  if (args.Has("exponential-window")) ParseExponential(args.Get("exponential-window"), &o.exponential);
  if (args.Has("force-window")) ParseForceWindow(args.Get("force-window"), &o.force_window);
  o.trigger.level_n = Positive(args, "trigger", 0.0, true);
  o.trigger.pretrigger_s = Positive(args, "pretrigger", o.trigger.pretrigger_s, true);
  o.trigger.record_s = Positive(args, "record-seconds", 0.0, true);
  o.checks.max_force_drop_db = Positive(args, "max-force-drop-db", o.checks.max_force_drop_db, false);
  o.checks.double_hit_fraction =
      Positive(args, "double-hit-fraction", o.checks.double_hit_fraction, false);
  if (!(o.checks.double_hit_fraction < 1.0))
    throw Error(kCommand, "--double-hit-fraction", "expected a fraction in (0, 1)");
  return o;
}

nlohmann::ordered_json ToJson(const ImpactResult& r, const ImpactOptions& o,
                              const std::string& out, const std::string& report) {
  nlohmann::ordered_json j;
  const auto& f = r.set.frequency_hz;
  j["frequency_hz"] = {{"first", f.front()},
                       {"last", f.back()},
                       {"step", r.sample_rate_hz / r.record_samples},
                       {"lines", f.size()}};
  j["format"] = ToString(r.set.format);
  j["units"] = UnitsOf(r.set.format);
  j["estimator"] = ToString(o.estimator);
  j["sample_rate_hz"] = r.sample_rate_hz;
  j["record_samples"] = r.record_samples;
  int used = 0;
  nlohmann::ordered_json rejected = nlohmann::ordered_json::array();
  for (const HitVerdict& v : r.verdicts) {
    used += v.kept;
    if (!v.kept)
      rejected.push_back({{"hit", v.hit}, {"source", v.source}, {"hammer_axis", "xyz"[v.hammer_axis] + std::string()},
                          {"reason", v.reason}});
  }
  j["hits_used"] = used;
  j["hits_rejected"] = rejected;
  j["averages"] = {{"x", r.averages_per_axis[0]}, {"y", r.averages_per_axis[1]},
                   {"z", r.averages_per_axis[2]}};
  j["entries"] = nlohmann::ordered_json::array();
  for (int e = 0; e < 9; ++e)
    if (r.set.present[e]) j["entries"].push_back(EntryName(e));
  if (std::isfinite(r.exponential_tau_s)) {
    j["exponential_window_tau_s"] = r.exponential_tau_s;
    j["added_damping_ratio"] = {
        {"first", AddedDampingRatio(r.exponential_tau_s, 2 * std::numbers::pi * f.front())},
        {"last", AddedDampingRatio(r.exponential_tau_s, 2 * std::numbers::pi * f.back())}};
  } else {
    j["exponential_window_tau_s"] = nullptr;
  }
  j["out"] = out;
  if (!report.empty()) j["report"] = report;
  return j;
}

// UFF dataset 58 time records (docs/uff.md, "Time records") by extension, as convert tells them.
bool IsUff(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".uff" || ext == ".unv" || ext == ".uf" || ext == ".58";
}

// --report: an HTML page in an existing directory, neither a recording nor the FRF file; checked
// before any work, as --out is.
std::string ReportPath(const Args& args, const std::string& out) {
  if (!args.Has("report")) return "";
  const std::string report = args.Get("report");
  std::string ext = std::filesystem::path(report).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext != ".html" && ext != ".htm")
    throw Error(kCommand, "--report",
                "expected a .html path (the impact-test page is one HTML page; for a PDF, print "
                "it from a browser), got '" + report + "'");
  if (!std::filesystem::is_directory(std::filesystem::absolute(report).parent_path()))
    throw Error(kCommand, "--report",
                "expected a path in an existing directory, got '" + report + "'");
  std::vector<std::string> others = args.positional();
  others.push_back(out);
  RequireNotAnInput(kCommand, "--report", report, others);
  return report;
}

}  // namespace

int RunFrf(int argc, char** argv) {
  const Args args("frf", argc, argv,
                  {"out", "posture", "band", "estimator", "format", "exponential-window",
                   "force-window", "trigger", "pretrigger", "record-seconds", "max-force-drop-db",
                   "double-hit-fraction", "report"},
                  {"json", "progress"}, 1000);
  if (args.positional().empty())
    throw Error(kCommand, "IN.h5",
                "expected one or more time recordings (usage: frfit frf IN.h5 [IN2.h5 ...] "
                "--out FRF.h5 [--json])");
  if (!args.Has("out")) throw Error(kCommand, "--out", "expected the FRF file to write");
  const std::string out = args.Get("out");
  if (out.empty() || !std::filesystem::is_directory(std::filesystem::absolute(out).parent_path()))
    throw Error(kCommand, "--out", "expected a path in an existing directory, got '" + out + "'");
  RequireNotAnInput(kCommand, "--out", out, args.positional());  // the recordings are the data
  const std::string report = ReportPath(args, out);
  ImpactOptions options = ParseOptions(args);
  options.keep_traces = !report.empty();

  // Every input is read and checked before anything is computed or written.
  std::vector<TimeRecording> recordings;
  for (const std::string& path : args.positional())
    for (TimeRecording& r : IsUff(path) ? uff::ReadTimeRecordings(path) : ReadTimeRecordings(path)) {
      if (r.hit < 0 && !(options.trigger.record_s > 0.0))
        throw Error(path, "/samples",
                    "expected --record-seconds S to split this continuous recording into hits");
      recordings.push_back(std::move(r));
    }
  ProgressMeter meter(kCommand, "hits", ProgressWanted(args));
  options.progress = meter.Callback();
  meter.Start(0);
  ImpactResult r = EstimateFrfs(recordings, options);
  std::string sources;
  for (const std::string& p : args.positional()) sources += (sources.empty() ? "" : ",") + p;
  r.set.provenance.emplace_back("source_file", sources);
  WriteFrfSet(out, r.set);
  if (!report.empty()) WriteImpactReport(report, r, options, {args.positional(), out});

  const auto& f = r.set.frequency_hz;
  if (std::isfinite(r.exponential_tau_s))
    std::fprintf(stderr,
                 "exponential window: tau %.6g s adds a damping ratio of %.4g %% at %.6g Hz and "
                 "%.4g %% at %.6g Hz (1/(tau·omega); subtract it from damping estimated from "
                 "these FRFs)\n",
                 r.exponential_tau_s,
                 100 * AddedDampingRatio(r.exponential_tau_s, 2 * std::numbers::pi * f.front()),
                 f.front(),
                 100 * AddedDampingRatio(r.exponential_tau_s, 2 * std::numbers::pi * f.back()),
                 f.back());
  if (args.Flag("json")) {
    std::printf("%s\n", ToJson(r, options, out, report).dump().c_str());
    return 0;
  }
  int used = 0;
  for (const HitVerdict& v : r.verdicts) used += v.kept;
  std::printf("frfit frf: %d of %zu hits used, %s %s [%s], %d lines %g-%g Hz, averages x %d y %d "
              "z %d\n",
              used, r.verdicts.size(), ToString(options.estimator).c_str(),
              ToString(r.set.format).c_str(), UnitsOf(r.set.format).c_str(), r.set.num_lines(),
              f.front(), f.back(), r.averages_per_axis[0], r.averages_per_axis[1],
              r.averages_per_axis[2]);
  for (const HitVerdict& v : r.verdicts)
    if (!v.kept) std::printf("  rejected hit %d (%s): %s\n", v.hit, v.source.c_str(), v.reason.c_str());
  std::printf("wrote %s\n", out.c_str());
  if (!report.empty()) std::printf("wrote %s\n", report.c_str());
  return 0;
}

}  // namespace frfit::cli
