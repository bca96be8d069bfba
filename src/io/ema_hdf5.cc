#include "frfit/io/ema_hdf5.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "frfit/common/error.h"
#include "frfit/files/atomic_file.h"
#include "frfit/io/frf_hdf5.h"

namespace frfit {
namespace {

constexpr PoleStability kStabilities[] = {PoleStability::kNew, PoleStability::kFrequency,
                                          PoleStability::kDamping, PoleStability::kVector,
                                          PoleStability::kStable};

std::vector<double> Column(const Hdf5File& f, const std::string& name, size_t expected) {
  std::vector<hsize_t> dims;
  std::vector<double> v = f.ReadDoubles(name, 1, &dims);
  if (v.size() != expected)
    throw Error(
        f.path(), name,
        "expected " + std::to_string(expected) + " values, got " + std::to_string(v.size()));
  return v;
}

std::vector<double> Complex3(const std::vector<std::complex<double>>& values) {
  std::vector<double> out;
  for (const auto& c : values) out.push_back(c.real()), out.push_back(c.imag());
  return out;
}

}  // namespace

void WriteEmaDropped(Hdf5File* f, const std::string& g, const std::vector<EmaDropped>& dropped) {
  const hsize_t n = dropped.size();
  std::vector<double> freq, zeta, contribution;
  std::vector<std::int64_t> stable;
  std::vector<std::string> reason;
  for (const EmaDropped& d : dropped) {
    freq.push_back(d.frequency_hz);
    zeta.push_back(d.damping_ratio);
    contribution.push_back(d.contribution);
    stable.push_back(d.stable_poles);
    reason.push_back(ToString(d.reason));
  }
  f->CreateGroup(g + "/dropped");
  f->WriteDoubles(g + "/dropped/frequency_hz", {n}, freq.data());
  f->WriteDoubles(g + "/dropped/damping_ratio", {n}, zeta.data());
  f->WriteDoubles(g + "/dropped/contribution", {n}, contribution.data());
  f->WriteInts(g + "/dropped/stable_poles", {n}, stable.data());
  f->WriteStrings(g + "/dropped/reason", reason);
}

std::vector<EmaDropped> ReadEmaDropped(const Hdf5File& f, const std::string& g) {
  std::vector<EmaDropped> out;
  if (!f.Exists(g + "/dropped/frequency_hz")) return out;
  std::vector<hsize_t> dims;
  const std::vector<double> freq = f.ReadDoubles(g + "/dropped/frequency_hz", 1, &dims);
  const size_t n = freq.size();
  const std::vector<double> zeta = Column(f, g + "/dropped/damping_ratio", n);
  const std::vector<double> contribution = Column(f, g + "/dropped/contribution", n);
  const std::vector<std::int64_t> stable = f.ReadInts(g + "/dropped/stable_poles", 1, &dims);
  const std::vector<std::string> reason = f.ReadStrings(g + "/dropped/reason");
  if (stable.size() != n || reason.size() != n)
    throw Error(f.path(), g + "/dropped", "expected every dataset to hold " + std::to_string(n) + " rows");
  for (size_t k = 0; k < n; ++k) {
    EmaDropped d{freq[k], zeta[k], static_cast<int>(stable[k]), EmaDropReason::kContribution,
                 contribution[k]};
    if (reason[k] == ToString(EmaDropReason::kFewStablePoles))
      d.reason = EmaDropReason::kFewStablePoles;
    else if (reason[k] != ToString(EmaDropReason::kContribution))
      throw Error(f.path(), g + "/dropped/reason",
                  "expected few_stable_poles or contribution, got '" + reason[k] + "'");
    out.push_back(d);
  }
  return out;
}

void WriteEmaCriteria(Hdf5File* f, const std::string& group, const StabilisationCriteria& c) {
  const std::string g = group + "/criteria";
  f->CreateGroup(g);
  f->SetAttribute(g, "frequency_tolerance", FormatDouble(c.frequency_tolerance));
  f->SetAttribute(g, "damping_tolerance", FormatDouble(c.damping_tolerance));
  f->SetAttribute(g, "min_mac", FormatDouble(c.min_mac));
  f->SetAttribute(g, "max_damping_ratio", FormatDouble(c.max_damping_ratio));
  f->SetAttribute(g, "min_stable_poles", std::to_string(c.min_stable_poles));
  f->SetAttribute(g, "min_contribution", FormatDouble(c.min_contribution));
}

StabilisationCriteria ReadEmaCriteria(const Hdf5File& f, const std::string& group) {
  const std::string g = group + "/criteria";
  StabilisationCriteria c;
  c.frequency_tolerance = f.GetNumberAttribute(g, "frequency_tolerance");
  c.damping_tolerance = f.GetNumberAttribute(g, "damping_tolerance");
  c.min_mac = f.GetNumberAttribute(g, "min_mac");
  c.max_damping_ratio = f.GetNumberAttribute(g, "max_damping_ratio");
  c.min_stable_poles = f.ToInt(f.GetNumberAttribute(g, "min_stable_poles"), g + "/@min_stable_poles");
  c.min_contribution = f.GetNumberAttribute(g, "min_contribution");
  return c;
}

void WriteEmaGroup(Hdf5File* f, const std::string& g, const EmaResult& r, bool with_frfs) {
  f->CreateGroup(g);
  std::string references;
  for (size_t j = 0; j < r.references.size(); ++j)
    references += std::string(j ? "," : "") + "xyz"[r.references[j]];
  f->SetAttribute(g, "method", r.method);
  f->SetAttribute(g, "method_description", DescribeMethod(r));
  f->SetAttribute(g, "references", references);
  f->SetAttribute(g, "source", r.source);
  f->SetAttribute(g, "posture", r.measured.posture);

  f->SetAttribute(g, "format", ToString(r.measured.format));
  f->SetAttribute(g, "units", UnitsOf(r.measured.format));
  f->SetAttribute(g, "band_min_hz", FormatDouble(r.band_min_hz));
  f->SetAttribute(g, "band_max_hz", FormatDouble(r.band_max_hz));
  f->SetAttribute(g, "max_order", std::to_string(r.max_order));
  f->SetAttribute(g, "min_stable_poles", std::to_string(r.min_stable_poles));
  f->SetAttribute(g, "sampling_time_s", FormatDouble(r.sampling_time_s));
  WriteEmaCriteria(f, g, r.options.criteria);
  f->SetAttribute(g, "refinement_iterations", std::to_string(r.refinement_iterations));

  const hsize_t np = r.poles.size();
  std::vector<std::int64_t> order, stability;
  std::vector<double> freq, zeta;
  for (const StabilisationPole& p : r.poles) {
    order.push_back(p.order);
    stability.push_back(static_cast<std::int64_t>(p.stability));
    freq.push_back(p.frequency_hz);
    zeta.push_back(p.damping_ratio);
  }
  f->CreateGroup(g + "/poles");
  f->WriteInts(g + "/poles/order", {np}, order.data());
  f->WriteDoubles(g + "/poles/frequency_hz", {np}, freq.data());
  f->WriteDoubles(g + "/poles/damping_ratio", {np}, zeta.data());
  f->WriteInts(g + "/poles/stability", {np}, stability.data());
  f->SetAttribute(g + "/poles/stability", "codes",
                  "0 new (o), 1 frequency (f), 2 frequency and damping (d), 3 frequency and vector "
                  "(v), 4 stable (s)");

  const hsize_t nm = r.modes.size();
  std::vector<double> mf, mz, contribution, explained, sigma_f, sigma_z, mpc, mpd, shapes, residues;
  std::vector<std::int64_t> stable, lowest;
  for (const EmaMode& m : r.modes) {
    mf.push_back(m.mode.frequency_hz);
    mz.push_back(m.mode.damping_ratio);
    contribution.push_back(m.contribution);
    explained.push_back(m.explained);
    sigma_f.push_back(m.frequency_sigma_hz);
    sigma_z.push_back(m.damping_sigma);
    mpc.push_back(m.mpc);
    mpd.push_back(m.mpd_deg);
    stable.push_back(m.stable_poles);
    lowest.push_back(m.lowest_order);
    for (double v : Complex3({m.mode.sensor_shape.data(), m.mode.sensor_shape.data() + 3}))
      shapes.push_back(v);
    for (double v : Complex3({m.residues.begin(), m.residues.end()})) residues.push_back(v);
  }
  f->CreateGroup(g + "/modes");
  f->WriteDoubles(g + "/modes/frequency_hz", {nm}, mf.data());
  f->WriteDoubles(g + "/modes/damping_ratio", {nm}, mz.data());
  f->WriteDoubles(g + "/modes/contribution", {nm}, contribution.data());
  f->WriteDoubles(g + "/modes/explained", {nm}, explained.data());
  f->WriteDoubles(g + "/modes/frequency_sigma_hz", {nm}, sigma_f.data());
  f->WriteDoubles(g + "/modes/damping_sigma", {nm}, sigma_z.data());
  f->WriteDoubles(g + "/modes/mpc", {nm}, mpc.data());
  f->WriteDoubles(g + "/modes/mpd_deg", {nm}, mpd.data());
  f->WriteInts(g + "/modes/stable_poles", {nm}, stable.data());
  f->WriteInts(g + "/modes/lowest_order", {nm}, lowest.data());
  f->WriteDoubles(g + "/modes/sensor_shape", {nm, 3, 2}, shapes.data());
  f->WriteDoubles(g + "/modes/residues", {nm, 3, 3, 2}, residues.data());
  if (!with_frfs) return;  // a fit result's reference modes: as before, without the dropped
  WriteEmaDropped(f, g, r.dropped);
  const hsize_t lines = r.measured.frequency_hz.size();
  f->WriteDoubles(g + "/frequency_hz", {lines}, r.measured.frequency_hz.data());
  WriteFrfMatrix(f, g + "/measured_H", r.measured);
  WriteFrfMatrix(f, g + "/synthesized_H", r.synthesized);
  std::int64_t present[9];
  for (int e = 0; e < 9; ++e) present[e] = r.measured.present[e] ? 1 : 0;
  f->WriteInts(g + "/present", {3, 3}, present);
}

EmaResult ReadEmaGroup(const Hdf5File& f, const std::string& g) {
  EmaResult r;
  r.method = f.GetAttribute(g, "method");
  for (char c : f.GetAttribute(g, "references"))
    if (c >= 'x' && c <= 'z') r.references.push_back(c - 'x');
  r.source = f.GetAttribute(g, "source");
  r.measured.posture = f.GetAttribute(g, "posture");
  if (f.HasAttribute(g, "response_frame")) r.measured.response_frame = f.GetAttribute(g, "response_frame");
  if (f.HasAttribute(g, "excitation_frame"))
    r.measured.excitation_frame = f.GetAttribute(g, "excitation_frame");
  const std::string format = f.GetAttribute(g, "format");
  if (!FromString(format, &r.measured.format))
    throw Error(f.path(), g + "/@format",
                "expected receptance, mobility or inertance, got '" + format + "'");
  r.band_min_hz = f.GetNumberAttribute(g, "band_min_hz");
  r.band_max_hz = f.GetNumberAttribute(g, "band_max_hz");
  r.max_order = f.ToInt(f.GetNumberAttribute(g, "max_order"), g + "/@max_order");
  r.min_stable_poles =
      f.ToInt(f.GetNumberAttribute(g, "min_stable_poles"), g + "/@min_stable_poles");
  r.sampling_time_s = f.GetNumberAttribute(g, "sampling_time_s");
  r.options.criteria = ReadEmaCriteria(f, g);
  r.refinement_iterations =
      f.ToInt(f.GetNumberAttribute(g, "refinement_iterations"), g + "/@refinement_iterations");

  std::vector<hsize_t> dims;
  const std::vector<std::int64_t> order = f.ReadInts(g + "/poles/order", 1, &dims);
  const size_t np = order.size();
  const std::vector<double> freq = Column(f, g + "/poles/frequency_hz", np);
  const std::vector<double> zeta = Column(f, g + "/poles/damping_ratio", np);
  const std::vector<std::int64_t> stability = f.ReadInts(g + "/poles/stability", 1, &dims);
  if (stability.size() != np)
    throw Error(f.path(), g + "/poles/stability", "expected one code per pole");
  for (size_t p = 0; p < np; ++p) {
    if (stability[p] < 0 || stability[p] > 4)
      throw Error(f.path(), g + "/poles/stability",
                  "expected codes 0 to 4, got " + std::to_string(stability[p]));
    StabilisationPole pole;
    pole.order = static_cast<int>(order[p]);
    pole.frequency_hz = freq[p];
    pole.damping_ratio = zeta[p];
    pole.stability = kStabilities[stability[p]];
    r.poles.push_back(pole);
  }

  const std::vector<double> mf = f.ReadDoubles(g + "/modes/frequency_hz", 1, &dims);
  const size_t nm = mf.size();
  const std::vector<double> mz = Column(f, g + "/modes/damping_ratio", nm);
  const std::vector<double> contribution = Column(f, g + "/modes/contribution", nm);
  // Written since 2026-11; NaN (0 for the share explained) in older files.
  auto optional = [&](const std::string& name, double absent) {
    return f.Exists(g + "/modes/" + name) ? Column(f, g + "/modes/" + name, nm)
                                          : std::vector<double>(nm, absent);
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> explained = optional("explained", 0.0);
  const std::vector<double> sigma_f = optional("frequency_sigma_hz", nan);
  const std::vector<double> sigma_z = optional("damping_sigma", nan);
  const std::vector<double> mpc = optional("mpc", nan), mpd = optional("mpd_deg", nan);
  const std::vector<std::int64_t> stable = f.ReadInts(g + "/modes/stable_poles", 1, &dims);
  const std::vector<std::int64_t> lowest = f.ReadInts(g + "/modes/lowest_order", 1, &dims);
  const std::vector<double> shapes = f.ReadDoubles(g + "/modes/sensor_shape", 3, &dims);
  const std::vector<double> residues = f.ReadDoubles(g + "/modes/residues", 4, &dims);
  if (stable.size() != nm || lowest.size() != nm || shapes.size() != nm * 6 ||
      residues.size() != nm * 18)
    throw Error(f.path(), g + "/modes",
                "expected every dataset to hold " + std::to_string(nm) + " modes");
  for (size_t k = 0; k < nm; ++k) {
    EmaMode m;
    m.mode.frequency_hz = mf[k];
    m.mode.damping_ratio = mz[k];
    m.contribution = contribution[k];
    m.explained = explained[k];
    m.frequency_sigma_hz = sigma_f[k];
    m.damping_sigma = sigma_z[k];
    m.mpc = mpc[k];
    m.mpd_deg = mpd[k];
    m.mode.eigenvalue = PoleFrom(mf[k], mz[k]);
    for (int i = 0; i < 3; ++i)
      m.mode.sensor_shape(i) = {shapes[k * 6 + 2 * i], shapes[k * 6 + 2 * i + 1]};
    for (int e = 0; e < 9; ++e)
      m.residues[e] = {residues[k * 18 + 2 * e], residues[k * 18 + 2 * e + 1]};
    m.stable_poles = static_cast<int>(stable[k]);
    m.lowest_order = static_cast<int>(lowest[k]);
    r.modes.push_back(m);
  }
  r.dropped = ReadEmaDropped(f, g);
  if (f.Exists(g + "/frequency_hz")) {
    r.measured.frequency_hz = f.ReadDoubles(g + "/frequency_hz", 1, &dims);
    const size_t lines = r.measured.frequency_hz.size();
    for (auto [name, set] :
         {std::pair{"/measured_H", &r.measured}, std::pair{"/synthesized_H", &r.synthesized}}) {
      const std::vector<double> h = f.ReadDoubles(g + name, 4, &dims);
      if (h.size() != lines * 18)
        throw Error(f.path(), g + name, "expected shape [" + std::to_string(lines) + "][3][3][2]");
      set->H.resize(lines * 9);
      for (size_t i = 0; i < lines * 9; ++i) set->H[i] = {h[2 * i], h[2 * i + 1]};
    }
    const std::vector<std::int64_t> present = f.ReadInts(g + "/present", 2, &dims);
    if (present.size() != 9) throw Error(f.path(), g + "/present", "expected shape [3][3]");
    for (int e = 0; e < 9; ++e) r.measured.present[e] = present[e] != 0;
    r.synthesized.frequency_hz = r.measured.frequency_hz;
    r.synthesized.present = r.measured.present;
    r.synthesized.format = r.measured.format;
    r.synthesized.posture = r.measured.posture;
  }
  return r;
}

void WriteEmaResult(const std::string& path, const EmaResult& result) {
  Hdf5File f(path, Hdf5File::Mode::kCreate);  // in memory until Save
  f.SetAttribute("/", "frfit_file", "ema_result");
  f.SetAttribute("/", "frfit_version", FRFIT_VERSION);
  WriteEmaGroup(&f, "/ema", result, true);
  // A set measured away from the tool tip names its points, so that its shapes can be placed on
  // the model (frfit fit --modes); a tool-tip set's file, and a fit result's ema group, stay as
  // they were.
  if (!result.measured.response_frame.empty())
    f.SetAttribute("/ema", "response_frame", result.measured.response_frame);
  if (!result.measured.excitation_frame.empty())
    f.SetAttribute("/ema", "excitation_frame", result.measured.excitation_frame);
  f.Save();
}

EmaResult ReadEmaResult(const std::string& path) {
  Hdf5File f(path, Hdf5File::Mode::kRead);
  f.RequireFileKind("ema_result", "an frfit EMA result");
  return ReadEmaGroup(f, "/ema");
}

}  // namespace frfit
