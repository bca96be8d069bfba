#include "frfit/campaign/campaign_ema_hdf5.h"

#include <cstdint>
#include <cstdlib>

#include "frfit/campaign/campaign_hdf5.h"
#include "frfit/common/error.h"
#include "frfit/io/ema_hdf5.h"
#include "frfit/files/hdf5_file.h"

namespace frfit::campaign {
namespace {

constexpr const char* kGroup = "/ema";

std::vector<double> Doubles(const Hdf5File& f, const std::string& name, std::vector<hsize_t> shape) {
  std::vector<hsize_t> dims;
  std::vector<double> v = f.ReadDoubles(name, static_cast<int>(shape.size()), &dims);
  if (dims != shape) throw Error(f.path(), name, "expected another shape (one row per mode or DOF)");
  return v;
}

std::vector<std::int64_t> Ints(const Hdf5File& f, const std::string& name, hsize_t n) {
  std::vector<hsize_t> dims;
  std::vector<std::int64_t> v = f.ReadInts(name, 1, &dims);
  if (v.size() != n) throw Error(f.path(), name, "expected " + std::to_string(n) + " values");
  return v;
}

void WriteDofs(Hdf5File* f, const std::string& g, const std::vector<Dof>& dofs) {
  std::vector<std::int64_t> node, direction;
  for (const Dof& d : dofs) node.push_back(d.node), direction.push_back(d.direction);
  f->CreateGroup(g);
  if (dofs.empty()) return;  // an empty dataset cannot be written
  f->WriteInts(g + "/node", {dofs.size()}, node.data());
  f->WriteInts(g + "/direction", {dofs.size()}, direction.data());
}

std::vector<Dof> ReadDofs(const Hdf5File& f, const std::string& g) {
  std::vector<Dof> dofs;
  if (!f.Exists(g + "/node")) return dofs;
  std::vector<hsize_t> dims;
  const auto node = f.ReadInts(g + "/node", 1, &dims);
  const auto direction = Ints(f, g + "/direction", node.size());
  for (size_t i = 0; i < node.size(); ++i) {
    if (direction[i] < -3 || direction[i] > 3)
      throw Error(f.path(), g + "/direction", "expected 0, ±1, ±2 or ±3");
    dofs.push_back({node[i], static_cast<int>(direction[i])});
  }
  return dofs;
}

void WriteModes(Hdf5File* f, const std::string& g, const EmaResult& r) {
  const hsize_t M = r.modes.size(), D = r.dofs.size();
  auto column = [&](const std::string& name, auto value) {
    std::vector<double> v;
    for (const EmaMode& m : r.modes) v.push_back(value(m));
    f->WriteDoubles(g + "/modes/" + name, {M}, v.data());
  };
  f->CreateGroup(g + "/modes");
  column("frequency_hz", [](const EmaMode& m) { return m.frequency_hz; });
  column("damping_ratio", [](const EmaMode& m) { return m.damping_ratio; });
  column("frequency_sigma_hz", [](const EmaMode& m) { return m.frequency_sigma_hz; });
  column("damping_sigma", [](const EmaMode& m) { return m.damping_sigma; });
  column("contribution", [](const EmaMode& m) { return m.contribution; });
  column("explained", [](const EmaMode& m) { return m.explained; });
  column("mpc", [](const EmaMode& m) { return m.mpc; });
  column("mpd_deg", [](const EmaMode& m) { return m.mpd_deg; });
  std::vector<std::int64_t> stable, lowest;
  std::vector<double> shape, sigma;
  for (const EmaMode& m : r.modes) {
    stable.push_back(m.stable_poles);
    lowest.push_back(m.lowest_order);
    for (size_t d = 0; d < D; ++d) {
      shape.push_back(m.shape[d].real());
      shape.push_back(m.shape[d].imag());
      sigma.push_back(m.shape_sigma[d]);
    }
  }
  f->WriteInts(g + "/modes/stable_poles", {M}, stable.data());
  f->WriteInts(g + "/modes/lowest_order", {M}, lowest.data());
  f->WriteDoubles(g + "/modes/shape", {M, D, 2}, shape.data());
  f->WriteDoubles(g + "/modes/shape_sigma", {M, D}, sigma.data());
  f->WriteDoubles(g + "/modes/auto_mac", {M, M}, r.auto_mac.data());
}

void ReadModes(const Hdf5File& f, const std::string& g, EmaResult* r) {
  std::vector<hsize_t> dims;
  const std::vector<double> freq = f.ReadDoubles(g + "/modes/frequency_hz", 1, &dims);
  const hsize_t M = freq.size(), D = r->dofs.size();
  auto column = [&](const std::string& name) { return Doubles(f, g + "/modes/" + name, {M}); };
  const auto zeta = column("damping_ratio"), sf = column("frequency_sigma_hz"),
             sz = column("damping_sigma"), contribution = column("contribution"),
             explained = column("explained"), mpc = column("mpc"), mpd = column("mpd_deg");
  const auto stable = Ints(f, g + "/modes/stable_poles", M), lowest = Ints(f, g + "/modes/lowest_order", M);
  const auto shape = Doubles(f, g + "/modes/shape", {M, D, 2});
  const auto sigma = Doubles(f, g + "/modes/shape_sigma", {M, D});
  r->auto_mac = Doubles(f, g + "/modes/auto_mac", {M, M});
  for (hsize_t p = 0; p < M; ++p) {
    EmaMode m;
    m.frequency_hz = freq[p];
    m.damping_ratio = zeta[p];
    m.eigenvalue = PoleFrom(freq[p], zeta[p]);
    m.frequency_sigma_hz = sf[p];
    m.damping_sigma = sz[p];
    m.contribution = contribution[p];
    m.explained = explained[p];
    m.mpc = mpc[p];
    m.mpd_deg = mpd[p];
    m.stable_poles = static_cast<int>(stable[p]);
    m.lowest_order = static_cast<int>(lowest[p]);
    for (hsize_t d = 0; d < D; ++d) {
      m.shape.emplace_back(shape[(p * D + d) * 2], shape[(p * D + d) * 2 + 1]);
      m.shape_sigma.push_back(sigma[p * D + d]);
    }
    r->modes.push_back(std::move(m));
  }
}

void WritePoles(Hdf5File* f, const std::string& g, const EmaResult& r) {
  const hsize_t P = r.poles.size();
  std::vector<std::int64_t> order, stability;
  std::vector<double> freq, zeta;
  for (const StabilisationPole& p : r.poles) {
    order.push_back(p.order);
    stability.push_back(static_cast<std::int64_t>(p.stability));
    freq.push_back(p.frequency_hz);
    zeta.push_back(p.damping_ratio);
  }
  f->CreateGroup(g + "/poles");
  if (P == 0) return;
  f->WriteInts(g + "/poles/order", {P}, order.data());
  f->WriteDoubles(g + "/poles/frequency_hz", {P}, freq.data());
  f->WriteDoubles(g + "/poles/damping_ratio", {P}, zeta.data());
  f->WriteInts(g + "/poles/stability", {P}, stability.data());
}

void ReadPoles(const Hdf5File& f, const std::string& g, EmaResult* r) {
  if (!f.Exists(g + "/poles/order")) return;
  std::vector<hsize_t> dims;
  const auto order = f.ReadInts(g + "/poles/order", 1, &dims);
  const hsize_t P = order.size();
  const auto freq = Doubles(f, g + "/poles/frequency_hz", {P});
  const auto zeta = Doubles(f, g + "/poles/damping_ratio", {P});
  const auto stability = Ints(f, g + "/poles/stability", P);
  for (hsize_t p = 0; p < P; ++p) {
    if (stability[p] < 0 || stability[p] > 4)
      throw Error(f.path(), g + "/poles/stability", "expected codes 0 to 4");
    StabilisationPole pole;
    pole.order = static_cast<int>(order[p]);
    pole.frequency_hz = freq[p];
    pole.damping_ratio = zeta[p];
    pole.eigenvalue = PoleFrom(freq[p], zeta[p]);
    pole.stability = static_cast<PoleStability>(stability[p]);
    r->poles.push_back(pole);
  }
}

}  // namespace

void WriteEmaResult(const std::string& path, const EmaResult& r, const Campaign& geometry) {
  Hdf5File f(path, Hdf5File::Mode::kCreate);  // in memory until Save
  f.SetAttribute("/", "frfit_file", "campaign_ema_result");
  f.SetAttribute("/", "frfit_version", FRFIT_VERSION);
  const std::string g = kGroup;
  f.CreateGroup(g);
  f.SetAttribute(g, "method", r.method);
  f.SetAttribute(g, "method_description", DescribeMethod(r));
  f.SetAttribute(g, "reciprocity", r.reciprocity ? "yes" : "no");
  f.SetAttribute(g, "source", r.source);
  f.SetAttribute(g, "format", frfit::ToString(r.format));
  f.SetAttribute(g, "units", UnitsOf(r.format));
  f.SetAttribute(g, "band_min_hz", FormatDouble(r.band_min_hz));
  f.SetAttribute(g, "band_max_hz", FormatDouble(r.band_max_hz));
  f.SetAttribute(g, "lines", std::to_string(r.lines));
  f.SetAttribute(g, "pole_records", std::to_string(r.pole_records));
  f.SetAttribute(g, "max_order", std::to_string(r.max_order));
  f.SetAttribute(g, "min_stable_poles", std::to_string(r.min_stable_poles));
  f.SetAttribute(g, "sampling_time_s", FormatDouble(r.sampling_time_s));
  f.SetAttribute(g, "refinement_iterations", std::to_string(r.refinement_iterations));
  WriteEmaCriteria(&f, g, r.options.ema.criteria);
  WriteDofs(&f, g + "/references", r.references);
  WriteDofs(&f, g + "/dofs", r.dofs);
  WritePoles(&f, g, r);
  WriteModes(&f, g, r);
  if (!r.dropped.empty()) WriteEmaDropped(&f, g, r.dropped);  // absent when none
  WriteGeometry(&f, geometry);
  f.Save();
}

EmaResult ReadEmaResult(const std::string& path, Campaign* geometry) {
  Hdf5File f(path, Hdf5File::Mode::kRead);
  f.RequireFileKind("campaign_ema_result", "an frfit campaign EMA result");
  const std::string g = kGroup;
  EmaResult r;
  r.method = f.GetAttribute(g, "method");
  r.reciprocity = f.GetAttribute(g, "reciprocity") == "yes";
  r.source = f.GetAttribute(g, "source");
  const std::string format = f.GetAttribute(g, "format");
  if (!FromString(format, &r.format))
    throw Error(path, g + "/@format", "expected receptance, mobility or inertance, got '" + format + "'");
  r.band_min_hz = f.GetNumberAttribute(g, "band_min_hz");
  r.band_max_hz = f.GetNumberAttribute(g, "band_max_hz");
  r.lines = static_cast<int>(f.GetNumberAttribute(g, "lines"));
  r.pole_records = static_cast<int>(f.GetNumberAttribute(g, "pole_records"));
  r.max_order = static_cast<int>(f.GetNumberAttribute(g, "max_order"));
  r.min_stable_poles = static_cast<int>(f.GetNumberAttribute(g, "min_stable_poles"));
  r.sampling_time_s = f.GetNumberAttribute(g, "sampling_time_s");
  r.refinement_iterations = static_cast<int>(f.GetNumberAttribute(g, "refinement_iterations"));
  r.options.ema.criteria = ReadEmaCriteria(f, g);
  r.references = ReadDofs(f, g + "/references");
  r.dofs = ReadDofs(f, g + "/dofs");
  ReadPoles(f, g, &r);
  ReadModes(f, g, &r);
  r.dropped = ReadEmaDropped(f, g);
  if (geometry) ReadGeometry(f, geometry);
  return r;
}

}  // namespace frfit::campaign
