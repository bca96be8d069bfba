#include "frfit/io/lobes_hdf5.h"

#include <cstdint>

#include "frfit/common/error.h"
#include "frfit/files/hdf5_file.h"

namespace frfit {
namespace {

// A [n] dataset, refused unless it has `n` values.
std::vector<double> Column(const Hdf5File& f, const std::string& name, size_t n) {
  std::vector<hsize_t> dims;
  std::vector<double> v = f.ReadDoubles(name, 1, &dims);
  if (v.size() != n)
    throw Error(f.path(), name, "expected " + std::to_string(n) + " values, got " + std::to_string(v.size()));
  return v;
}

double Scalar(const Hdf5File& f, const std::string& name) { return Column(f, name, 1)[0]; }

}  // namespace

void WriteLobesFile(const std::string& path, const LobesFile& d) {
  Hdf5File f(path, Hdf5File::Mode::kCreate);
  f.SetAttribute("/", "frfit_file", "stability_lobes");
  f.SetAttribute("/", "frfit_version", FRFIT_VERSION);
  f.SetAttribute("/", "model", d.model_name);
  f.SetAttribute("/", "model_file", d.model_file);
  f.SetAttribute("/", "posture", d.posture);
  f.SetAttribute("/", "parameters_source", d.parameters_source);
  f.SetAttribute("/", "cut", d.cut);
  f.SetAttribute("/", "milling", d.milling);
  const StabilityLobes& l = d.lobes;
  const double cut[3] = {static_cast<double>(d.teeth), d.kt_n_per_m2, d.kr_ratio};
  f.WriteDoubles("/teeth", {1}, &cut[0]);
  f.WriteDoubles("/kt_n_per_m2", {1}, &cut[1]);
  f.WriteDoubles("/kr_ratio", {1}, &cut[2]);
  const hsize_t n = l.spindle_speed_rpm.size();
  f.WriteDoubles("/spindle_speed_rpm", {n}, l.spindle_speed_rpm.data());
  f.WriteDoubles("/depth_limit_m", {n}, l.depth_limit_m.data());
  f.WriteDoubles("/chatter_frequency_hz", {n}, l.chatter_frequency_hz.data());
  const double critical[5] = {l.critical_depth_m, l.critical_spindle_speed_rpm,
                              l.critical_chatter_frequency_hz, l.absolute_critical_depth_m,
                              l.absolute_chatter_frequency_hz};
  const char* names[5] = {"critical_depth_m", "critical_spindle_speed_rpm",
                          "critical_chatter_frequency_hz", "absolute_critical_depth_m",
                          "absolute_chatter_frequency_hz"};
  for (int i = 0; i < 5; ++i) f.WriteDoubles(std::string("/") + names[i], {1}, &critical[i]);
  // Each lobe's minimum: k and clipped as integers, the rest as doubles.
  const hsize_t m = l.lobes.size();
  std::vector<std::int64_t> k, clipped;
  std::vector<double> depth, speed, chatter;
  for (const LobeMinimum& lobe : l.lobes) {
    k.push_back(lobe.k);
    clipped.push_back(lobe.clipped ? 1 : 0);
    depth.push_back(lobe.depth_m);
    speed.push_back(lobe.spindle_speed_rpm);
    chatter.push_back(lobe.chatter_frequency_hz);
  }
  f.CreateGroup("/lobes");
  f.WriteInts("/lobes/k", {m}, k.data());
  f.WriteInts("/lobes/clipped", {m}, clipped.data());
  f.WriteDoubles("/lobes/depth_m", {m}, depth.data());
  f.WriteDoubles("/lobes/spindle_speed_rpm", {m}, speed.data());
  f.WriteDoubles("/lobes/chatter_frequency_hz", {m}, chatter.data());
  const LobeBand& b = d.band;
  if (b.samples > 0) {
    f.CreateGroup("/band");
    const std::int64_t counts[3] = {b.samples, b.reflected, static_cast<std::int64_t>(b.seed)};
    f.WriteInts("/band/samples", {1}, &counts[0]);
    f.WriteInts("/band/samples_reflected", {1}, &counts[1]);
    f.WriteInts("/band/seed", {1}, &counts[2]);
    f.WriteDoubles("/band/depth_limit_m_p05", {n}, b.depth_limit_m_p05.data());
    f.WriteDoubles("/band/depth_limit_m_p95", {n}, b.depth_limit_m_p95.data());
    const double p[2] = {b.critical_depth_m_p05, b.critical_depth_m_p95};
    f.WriteDoubles("/band/critical_depth_m_p05", {1}, &p[0]);
    f.WriteDoubles("/band/critical_depth_m_p95", {1}, &p[1]);
    f.SetAttribute("/band", "brackets_estimate", b.brackets_estimate ? "true" : "false");
    f.SetAttribute("/band", "note", b.note);
    f.SetAttribute("/band", "sigma_note", d.sigma_note);
  }
  f.Save();
}

LobesFile ReadLobesFile(const std::string& path) {
  const Hdf5File f(path, Hdf5File::Mode::kRead);
  f.RequireFileKind("stability_lobes", "stability lobes (frfit lobes --out)");
  LobesFile d;
  d.model_name = f.GetAttribute("/", "model");
  d.model_file = f.GetAttribute("/", "model_file");
  d.posture = f.GetAttribute("/", "posture");
  d.parameters_source = f.GetAttribute("/", "parameters_source");
  d.cut = f.GetAttribute("/", "cut");
  d.milling = f.GetAttribute("/", "milling");
  d.teeth = f.ToInt(Scalar(f, "/teeth"), "/teeth");
  d.kt_n_per_m2 = Scalar(f, "/kt_n_per_m2");
  d.kr_ratio = Scalar(f, "/kr_ratio");
  StabilityLobes& l = d.lobes;
  std::vector<hsize_t> dims;
  l.spindle_speed_rpm = f.ReadDoubles("/spindle_speed_rpm", 1, &dims);
  const size_t n = l.spindle_speed_rpm.size();
  if (n < 2) throw Error(path, "/spindle_speed_rpm", "expected at least 2 speeds");
  l.depth_limit_m = Column(f, "/depth_limit_m", n);
  l.chatter_frequency_hz = Column(f, "/chatter_frequency_hz", n);
  l.critical_depth_m = Scalar(f, "/critical_depth_m");
  l.critical_spindle_speed_rpm = Scalar(f, "/critical_spindle_speed_rpm");
  l.critical_chatter_frequency_hz = Scalar(f, "/critical_chatter_frequency_hz");
  l.absolute_critical_depth_m = Scalar(f, "/absolute_critical_depth_m");
  l.absolute_chatter_frequency_hz = Scalar(f, "/absolute_chatter_frequency_hz");
  const std::vector<std::int64_t> k = f.ReadInts("/lobes/k", 1, &dims);
  const std::vector<std::int64_t> clipped = f.ReadInts("/lobes/clipped", 1, &dims);
  if (clipped.size() != k.size()) throw Error(path, "/lobes/clipped", "expected one flag per lobe");
  const std::vector<double> depth = Column(f, "/lobes/depth_m", k.size());
  const std::vector<double> speed = Column(f, "/lobes/spindle_speed_rpm", k.size());
  const std::vector<double> chatter = Column(f, "/lobes/chatter_frequency_hz", k.size());
  for (size_t i = 0; i < k.size(); ++i)
    l.lobes.push_back({static_cast<int>(k[i]), depth[i], speed[i], chatter[i], clipped[i] != 0});
  if (f.Exists("/band")) {
    LobeBand& b = d.band;
    b.samples = static_cast<int>(f.ReadInts("/band/samples", 1, &dims).at(0));
    b.reflected = static_cast<int>(f.ReadInts("/band/samples_reflected", 1, &dims).at(0));
    b.seed = static_cast<std::uint64_t>(f.ReadInts("/band/seed", 1, &dims).at(0));
    if (b.samples <= 0) throw Error(path, "/band/samples", "expected a count > 0");
    b.depth_limit_m_p05 = Column(f, "/band/depth_limit_m_p05", n);
    b.depth_limit_m_p95 = Column(f, "/band/depth_limit_m_p95", n);
    b.critical_depth_m_p05 = Scalar(f, "/band/critical_depth_m_p05");
    b.critical_depth_m_p95 = Scalar(f, "/band/critical_depth_m_p95");
    b.brackets_estimate = f.GetAttribute("/band", "brackets_estimate") == "true";
    b.note = f.GetAttribute("/band", "note");
    d.sigma_note = f.GetAttribute("/band", "sigma_note");
  }
  return d;
}

}  // namespace frfit
