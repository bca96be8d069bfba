#include "frfit/campaign/campaign_export.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>

namespace frfit::campaign {
namespace {

std::string Line(const char* fmt, auto... args) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, fmt, args...);
  return buffer;
}

// The mode's shape per node along +X, +Y, +Z (0 where no DOF of that direction was measured).
std::map<long, std::array<std::complex<double>, 3>> PerNode(const EmaResult& r, const EmaMode& m) {
  std::map<long, std::array<std::complex<double>, 3>> out;
  for (size_t d = 0; d < r.dofs.size(); ++d) {
    const Dof& dof = r.dofs[d];
    auto& node = out[dof.node];  // a node appears even when only a scalar DOF was measured
    if (dof.direction == 0) continue;
    node[std::abs(dof.direction) - 1] = (dof.direction < 0 ? -1.0 : 1.0) * m.shape[d];
  }
  return out;
}

}  // namespace

std::vector<CsvTable> EmaTables(const EmaResult& r, const Campaign& geometry) {
  CsvTable modes("campaign_modes.csv",
                 "one row per mode of the campaign's EMA: frequency (Hz) and damping ratio with 1σ, "
                 "MPC, MPD (degrees), stable poles, the share of the response it explains");
  std::vector<double> index, f, sf, z, sz, mpc, mpd, stable, explained;
  for (size_t p = 0; p < r.modes.size(); ++p) {
    const EmaMode& m = r.modes[p];
    index.push_back(p + 1);
    f.push_back(m.frequency_hz);
    sf.push_back(m.frequency_sigma_hz);
    z.push_back(m.damping_ratio);
    sz.push_back(m.damping_sigma);
    mpc.push_back(m.mpc);
    mpd.push_back(m.mpd_deg);
    stable.push_back(m.stable_poles);
    explained.push_back(m.explained);
  }
  modes.AddNumberColumn("mode", index);
  modes.AddNumberColumn("frequency_hz", f);
  modes.AddNumberColumn("frequency_sigma_hz", sf);
  modes.AddNumberColumn("damping_ratio", z);
  modes.AddNumberColumn("damping_sigma", sz);
  modes.AddNumberColumn("mpc", mpc);
  modes.AddNumberColumn("mpd_deg", mpd);
  modes.AddNumberColumn("stable_poles", stable);
  modes.AddNumberColumn("explained", explained);

  CsvTable shapes("campaign_shapes.csv",
                  "one row per mode and DOF: the shape as measured at the DOF (a -Z DOF reads "
                  "along -Z), largest component 1, its 1σ, and the node's coordinates (file units)");
  std::vector<double> mode, frequency, node, re, im, magnitude, phase, sigma, x, y, zc;
  std::vector<std::string> direction, dof;
  for (size_t p = 0; p < r.modes.size(); ++p)
    for (size_t d = 0; d < r.dofs.size(); ++d) {
      const std::complex<double> v = r.modes[p].shape[d];
      mode.push_back(p + 1);
      frequency.push_back(r.modes[p].frequency_hz);
      node.push_back(static_cast<double>(r.dofs[d].node));
      dof.push_back(ToString(r.dofs[d]));
      direction.push_back(dof.back().substr(std::to_string(r.dofs[d].node).size()));
      re.push_back(v.real());
      im.push_back(v.imag());
      magnitude.push_back(std::abs(v));
      phase.push_back(std::arg(v) * 180.0 / std::numbers::pi);
      sigma.push_back(r.modes[p].shape_sigma[d]);
      const auto at = geometry.coordinates.find(r.dofs[d].node);
      const bool known = at != geometry.coordinates.end();
      x.push_back(known ? at->second[0] : NAN);
      y.push_back(known ? at->second[1] : NAN);
      zc.push_back(known ? at->second[2] : NAN);
    }
  shapes.AddNumberColumn("mode", mode);
  shapes.AddNumberColumn("frequency_hz", frequency);
  shapes.AddNumberColumn("node", node);
  shapes.AddColumn("direction", direction);
  shapes.AddColumn("dof", dof);
  shapes.AddNumberColumn("re", re);
  shapes.AddNumberColumn("im", im);
  shapes.AddNumberColumn("magnitude", magnitude);
  shapes.AddNumberColumn("phase_deg", phase);
  shapes.AddNumberColumn("sigma", sigma);
  shapes.AddNumberColumn("x", x);
  shapes.AddNumberColumn("y", y);
  shapes.AddNumberColumn("z", zc);
  return {modes, shapes};
}

std::string Uff55Text(const EmaResult& r) {
  std::string out;
  for (size_t p = 0; p < r.modes.size(); ++p) {
    const EmaMode& m = r.modes[p];
    out += Line("%6d\n%6d%74s\n", -1, 55, "");
    out += Line("%-80.80s\n", ("frfit campaign EMA mode " + std::to_string(p + 1)).c_str());
    out += Line("%-80.80s\n", ("source " + r.source).c_str());
    out += Line("%-80.80s\n", Line("frequency %.6g Hz, damping ratio %.6g", m.frequency_hz,
                                   m.damping_ratio).c_str());
    out += Line("%-80.80s\n", "shape scaled to its largest component 1 (not mass-normalised)");
    out += Line("%-80.80s\n", "NONE");
    // Structural model, complex eigenvalue first order, 3 DOF global translation, displacement,
    // complex data, 3 values per node.
    out += Line("%10d%10d%10d%10d%10d%10d\n", 1, 3, 2, 8, 5, 3);
    out += Line("%10d%10d%10d%10d\n", 2, 6, 1, static_cast<int>(p + 1));
    out += Line("%13.5E%13.5E%13.5E%13.5E%13.5E%13.5E\n", m.eigenvalue.real(), m.eigenvalue.imag(),
                0.0, 0.0, 0.0, 0.0);
    for (const auto& [node, v] : PerNode(r, m)) {
      out += Line("%10ld\n", node);
      out += Line("%13.5E%13.5E%13.5E%13.5E%13.5E%13.5E\n", v[0].real(), v[0].imag(), v[1].real(),
                  v[1].imag(), v[2].real(), v[2].imag());
    }
    out += Line("%6d\n", -1);
  }
  return out;
}

}  // namespace frfit::campaign
