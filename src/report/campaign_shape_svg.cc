// A mode shape drawn on a campaign's geometry (report/campaign_report.h): three orthographic
// views of the undeformed and the deformed wireframe, the deformed one animated through a cycle.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <sstream>

#include "frfit/report/campaign_report.h"
#include "src/report/svg_parts.h"

namespace frfit {
namespace {

using Vec = std::array<double, 3>;
constexpr double kView = 220.0, kPad = 14.0;  // px per view and its margin
constexpr int kViewAxes[3][2] = {{0, 1}, {0, 2}, {1, 2}};
constexpr const char* kViewNames[3] = {"top (x-y)", "front (x-z)", "side (y-z)"};

// Re φ along +X, +Y, +Z at each node with a measured DOF; the largest |φ| over the nodes.
std::map<long, Vec> Displacements(const campaign::EmaResult& r, size_t mode, double* largest) {
  std::map<long, Vec> out;
  for (size_t d = 0; d < r.dofs.size(); ++d) {
    const campaign::Dof& dof = r.dofs[d];
    if (dof.direction == 0) continue;
    out[dof.node][std::abs(dof.direction) - 1] =
        (dof.direction < 0 ? -1.0 : 1.0) * r.modes[mode].shape[d].real();
  }
  *largest = 0.0;
  for (const auto& [node, v] : out) *largest = std::max(*largest, std::hypot(v[0], v[1], v[2]));
  return out;
}

// Blue (0) to red (1).
std::string Colour(double t) {
  t = std::clamp(t, 0.0, 1.0);
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", static_cast<int>(40 + 200 * t),
                static_cast<int>(80 * (1 - t)), static_cast<int>(200 * (1 - t) + 30));
  return buffer;
}

// One cycle of the mode: extreme, rest, opposite extreme, rest, extreme, in 2 s, repeated.
std::string Animation(const char* attribute, const std::string& extreme, const std::string& rest,
                      const std::string& opposite) {
  return std::string("<animate attributeName=\"") + attribute +
         "\" dur=\"2s\" repeatCount=\"indefinite\" values=\"" + extreme + ";" + rest + ";" + opposite +
         ";" + rest + ";" + extreme + "\"/>";
}

}  // namespace

std::string ModeShapeSvg(const campaign::EmaResult& r, size_t mode,
                         const campaign::Campaign& g, const std::string& id) {
  double largest = 0.0;
  const std::map<long, Vec> shift = Displacements(r, mode, &largest);
  Vec lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
  for (const auto& [node, x] : g.coordinates)
    for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], x[a]), hi[a] = std::max(hi[a], x[a]);
  double extent = 0.0;
  for (int a = 0; a < 3; ++a) extent = std::max(extent, hi[a] - lo[a]);
  if (!(extent > 0.0)) extent = 1.0;
  const double scale = largest > 0.0 ? 0.12 * extent / largest : 0.0;
  // `sign` −1: the opposite half of the cycle, the animation's other extreme.
  auto deformed = [&](long node, double sign = 1.0) {
    Vec x = g.coordinates.at(node);
    const auto it = shift.find(node);
    if (it != shift.end())
      for (int a = 0; a < 3; ++a) x[a] += sign * scale * it->second[a];
    return x;
  };
  const double width = 3 * kView, height = kView + 22;
  std::ostringstream s;
  s << "<svg id=\"" << html::IdPart(id) << "\" class=\"mode-shape\" width=\"" << width
    << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height
    << "\" data-mode=\"" << mode + 1 << "\" data-scale=\"" << html::Exact(scale)
    << "\" xmlns=\"http://www.w3.org/2000/svg\">";
  for (int v = 0; v < 3; ++v) {
    const int a = kViewAxes[v][0], b = kViewAxes[v][1];
    // One scale for both axes (no distortion), the extent plus the largest motion inside the view.
    const double span = extent * 1.3, x0 = v * kView;
    const html::Scale sx{0.5 * (lo[a] + hi[a]) - span / 2, 0.5 * (lo[a] + hi[a]) + span / 2,
                         x0 + kPad, x0 + kView - kPad};
    const html::Scale sy{0.5 * (lo[b] + hi[b]) - span / 2, 0.5 * (lo[b] + hi[b]) + span / 2,
                         kView - kPad, kPad};
    s << "<g class=\"view\" data-view=\"" << kViewNames[v] << "\"><rect x=\"" << html::Coord(x0 + 2)
      << "\" y=\"2\" width=\"" << kView - 4 << "\" height=\"" << kView - 4
      << "\" fill=\"none\" stroke=\"#ddd\"/><text class=\"ax\" x=\"" << html::Coord(x0 + 8)
      << "\" y=\"" << kView + 14 << "\">" << kViewNames[v] << "</text>";
    auto at = [&](const Vec& x) { return html::Coord(sx(x[a])) + "," + html::Coord(sy(x[b])); };
    for (const bool moved : {false, true})
      for (const campaign::TraceLine& t : g.trace_lines) {
        // The deformed line drawn at its extreme, animated through rest to the opposite extreme
        // and back (SMIL: no script, and a printed or still page shows the extreme).
        std::string points, rest, opposite;
        auto flush = [&] {
          if (points.find(' ') != std::string::npos) {
            s << "<polyline class=\"" << (moved ? "deformed" : "undeformed") << "\" points=\""
              << points << "\" fill=\"none\" stroke=\"" << (moved ? html::kFittedColour : "#bbb")
              << "\" stroke-width=\"" << (moved ? 1.6 : 1.0) << "\"";
            if (moved)
              s << ">" << Animation("points", points, rest, opposite) << "</polyline>";
            else
              s << "/>";
          }
          points.clear(), rest.clear(), opposite.clear();
        };
        for (long node : t.nodes) {
          if (node == 0 || !g.coordinates.count(node)) { flush(); continue; }
          const std::string gap = points.empty() ? "" : " ";
          points += gap + at(moved ? deformed(node) : g.coordinates.at(node));
          rest += gap + at(g.coordinates.at(node));
          opposite += gap + at(deformed(node, -1.0));
        }
        flush();
      }
    for (const auto& [node, x0v] : g.coordinates) {
      const Vec x = deformed(node);
      const auto it = shift.find(node);
      const double amplitude =
          it == shift.end() || largest == 0.0 ? 0.0 : std::hypot(it->second[0], it->second[1], it->second[2]) / largest;
      s << "<circle class=\"node\" data-node=\"" << node << "\" cx=\"" << html::Coord(sx(x[a]))
        << "\" cy=\"" << html::Coord(sy(x[b])) << "\" r=\"2.6\" fill=\"" << Colour(amplitude)
        << "\"><title>node " << node << ": |φ| " << html::Num(amplitude, 3) << "</title>"
        << Animation("cx", html::Coord(sx(x[a])), html::Coord(sx(x0v[a])),
                     html::Coord(sx(deformed(node, -1.0)[a])))
        << Animation("cy", html::Coord(sy(x[b])), html::Coord(sy(x0v[b])),
                     html::Coord(sy(deformed(node, -1.0)[b])))
        << "</circle>";
    }
    s << "</g>";
  }
  s << "</svg>";
  return s.str();
}

std::string AutoMacSvg(const campaign::EmaResult& r, const std::string& id) {
  const size_t M = r.modes.size();
  const double cell = 34.0, left = 46.0, top = 24.0, size = left + cell * M + 8;
  std::ostringstream s;
  s << "<svg id=\"" << html::IdPart(id) << "\" class=\"auto-mac\" width=\"" << size
    << "\" height=\"" << size - left + top + 8 << "\" xmlns=\"http://www.w3.org/2000/svg\">";
  for (size_t i = 0; i < M; ++i) {
    s << "<text class=\"ax\" x=\"" << left - 6 << "\" y=\"" << html::Coord(top + cell * (i + 0.6))
      << "\" text-anchor=\"end\">" << i + 1 << "</text><text class=\"ax\" x=\""
      << html::Coord(left + cell * (i + 0.5)) << "\" y=\"" << top - 8 << "\" text-anchor=\"middle\">"
      << i + 1 << "</text>";
    for (size_t j = 0; j < M; ++j) {
      const double v = r.auto_mac[i * M + j];
      const int grey = static_cast<int>(255 * (1.0 - std::clamp(v, 0.0, 1.0)));
      s << "<rect x=\"" << html::Coord(left + cell * j) << "\" y=\"" << html::Coord(top + cell * i)
        << "\" width=\"" << cell << "\" height=\"" << cell << "\" fill=\"rgb(" << grey << "," << grey
        << "," << grey << ")\" data-value=\"" << html::Exact(v) << "\"/><text x=\""
        << html::Coord(left + cell * (j + 0.5)) << "\" y=\"" << html::Coord(top + cell * (i + 0.62))
        << "\" text-anchor=\"middle\" font-size=\"10\" fill=\"" << (v > 0.5 ? "#fff" : "#000") << "\">"
        << html::Fixed(v, 2) << "</text>";
    }
  }
  s << "</svg>";
  return s.str();
}

}  // namespace frfit
