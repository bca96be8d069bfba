#include "frfit/report/map_report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <sstream>

#include "frfit/files/atomic_file.h"
#include "frfit/report/html_report.h"
#include "svg_parts.h"

namespace frfit {
namespace {

using namespace html;

// One number per posture that a heat map or a curve shows, with its 1σ (NaN: none).
struct Quantity {
  std::string id, title, unit;
  std::function<double(const MapPoint&)> value, sigma;
  bool log = false;  // coloured on a log scale (a quantity that spans decades)
};

std::vector<Quantity> Quantities(bool with_cut) {
  auto weakest_axis = [](const MapPoint& p) {
    const auto& k = p.stiffness.axis_n_per_m;
    return static_cast<int>(std::min_element(k.begin(), k.end()) - k.begin());
  };
  std::vector<Quantity> out = {
      {"least-stiffness", "least dynamic stiffness over every direction", "N/m",
       [](const MapPoint& p) { return p.stiffness.least_n_per_m; },
       [](const MapPoint&) { return std::nan(""); }},
      {"weakest-axis-sigma", "relative 1σ of the least stiffness along the weakest axis", "%",
       [=](const MapPoint& p) {
         const int i = weakest_axis(p);
         return 100.0 * p.stiffness.axis_sigma_n_per_m[i] / p.stiffness.axis_n_per_m[i];
       },
       [](const MapPoint&) { return std::nan(""); }},
      {"first-mode", "first mode's frequency", "Hz",
       [](const MapPoint& p) { return p.modes.empty() ? std::nan("") : p.modes[0].frequency_hz; },
       [](const MapPoint& p) { return p.modes.empty() ? std::nan("") : p.modes[0].frequency_sigma_hz; }},
  };
  if (with_cut)
    out.push_back({"critical-depth", "critical depth of cut over the speed range", "mm",
                   [](const MapPoint& p) { return 1e3 * p.stability.critical_depth_m; },
                   [](const MapPoint&) { return std::nan(""); }, true});
  return out;
}

// A sequential colour map (dark blue → green → yellow, as viridis), t in [0, 1].
std::string SequentialColour(double t) {
  if (!std::isfinite(t)) return "#e6e6e6";
  static const double stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  t = std::clamp(t, 0.0, 1.0) * 4.0;
  const int k = std::min(3, static_cast<int>(t));
  const double u = t - k;
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x",
                static_cast<int>(std::lround(stops[k][0] + u * (stops[k + 1][0] - stops[k][0]))),
                static_cast<int>(std::lround(stops[k][1] + u * (stops[k + 1][1] - stops[k][1]))),
                static_cast<int>(std::lround(stops[k][2] + u * (stops[k + 1][2] - stops[k][2]))));
  return buffer;
}

// The distinct values of grid column `c`, sorted, and each posture's index among them.
std::vector<double> Levels(const PostureMapData& d, size_t c) {
  std::vector<double> v;
  for (const auto& row : d.grid) v.push_back(row[c]);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

size_t LevelOf(const std::vector<double>& levels, double value) {
  return static_cast<size_t>(std::lower_bound(levels.begin(), levels.end(), value) - levels.begin());
}

// Postures whose coordinates past the first `shown` are those of the first posture: the slice a
// two-coordinate picture of a larger grid shows.
std::vector<size_t> Slice(const PostureMapData& d, size_t shown) {
  std::vector<size_t> out;
  for (size_t p = 0; p < d.grid.size(); ++p)
    if (std::equal(d.grid[p].begin() + shown, d.grid[p].end(), d.grid[0].begin() + shown)) out.push_back(p);
  return out;
}

// "z2 [°]": a swept coordinate with its file unit, as --grid gave its values.
std::string AxisLabel(const PostureMapData& d, size_t c) {
  const std::string unit = c < d.units.size() ? d.units[c] : "";
  return HtmlEscape(d.coordinates[c]) +
         (unit == "deg" ? " [&#176;]" : unit.empty() ? "" : " [" + HtmlEscape(unit) + "]");
}

// Colour-bar ticks: round values inside [lo, hi] — 1, 2, 5 per decade on a log scale (when that
// gives at least three), else NiceTicks (placed on the log scale where the colours are).
std::vector<double> BarTicks(double lo, double hi, bool log) {
  std::vector<double> ticks;
  if (log && lo > 0.0 && hi / lo > 3.0) {
    for (int k = static_cast<int>(std::floor(std::log10(lo))); k <= std::ceil(std::log10(hi)); ++k)
      for (double m : {1.0, 2.0, 5.0}) {
        const double t = m * std::pow(10.0, k);
        if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) ticks.push_back(t);
      }
    if (ticks.size() > 7) std::erase_if(ticks, [](double t) {
      const double m = t / std::pow(10.0, std::floor(std::log10(t) + 1e-9));
      return std::abs(m - 1.0) > 1e-6;
    });
    if (ticks.size() >= 3) return ticks;
    ticks.clear();
  }
  for (double t : NiceTicks(lo, hi, 5))
    if (t >= lo - 1e-9 * (hi - lo) && t <= hi + 1e-9 * (hi - lo)) ticks.push_back(t);
  return ticks;
}

// The fitted postures inside the plotted range of coordinates 0 (and 1): their points.
std::vector<std::pair<std::string, std::vector<double>>> MeasuredInRange(
    const PostureMapData& d, const std::vector<double>& xs, const std::vector<double>& ys) {
  std::vector<std::pair<std::string, std::vector<double>>> out;
  for (size_t m = 0; m < d.measured_postures.size(); ++m) {
    const std::vector<double>& v = d.measured_grid[m];
    const bool in_x = v[0] >= xs.front() && v[0] <= xs.back();
    const bool in_y = ys.empty() || (v[1] >= ys.front() && v[1] <= ys.back());
    if (in_x && in_y) out.push_back({d.measured_postures[m], v});
  }
  return out;
}

// A heat map of one quantity over the first two coordinates. The panel has one size whatever the
// grid (a fine grid's cells are thinner, not the picture smaller), axes name their units, the
// colour bar has round ticks, a quantity spanning decades (the critical depth) is coloured on a
// log scale, and the postures the fit measured are marked.
std::string HeatMap(const PostureMapData& d, const std::vector<size_t>& slice, const Quantity& q) {
  const std::vector<double> xs = Levels(d, 0), ys = Levels(d, 1);
  double lo = INFINITY, hi = -INFINITY;
  for (size_t p : slice) {
    const double v = q.value(d.points[p]);
    if (std::isfinite(v) && (!q.log || v > 0)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (!(hi > lo)) hi = q.log && lo > 0 ? lo * 10.0 : lo + 1.0;
  const bool log = q.log && lo > 0.0;
  auto fraction = [&](double v) {
    return log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
  };
  const double left = 70, top = 28, w = 480, h = 320;
  const double cw = w / xs.size(), ch = h / ys.size(), W = left + w + 120, H = top + h + 52;
  std::ostringstream s;
  // crispEdges: anti-aliased cell edges would show the page through as a grid of thin lines; each
  // cell overlaps its neighbour by half a pixel so that fractional cells leave no gap either.
  s << "<figure><svg class=\"map-heat\" id=\"heat-" << q.id
    << "\" shape-rendering=\"crispEdges\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
    << W << "\" height=\"" << H << "\" data-min=\"" << Exact(lo) << "\" data-max=\"" << Exact(hi)
    << "\" data-scale=\"" << (log ? "log" : "linear") << "\">";
  for (size_t p : slice) {
    const double v = q.value(d.points[p]);
    const size_t i = LevelOf(xs, d.grid[p][0]), j = LevelOf(ys, d.grid[p][1]);
    s << "<rect x=\"" << Coord(left + i * cw) << "\" y=\"" << Coord(top + h - (j + 1) * ch) << "\" width=\""
      << Coord(cw + 0.5) << "\" height=\"" << Coord(ch + 0.5) << "\" fill=\""
      << SequentialColour(log && !(v > 0) ? NAN : fraction(v)) << "\" data-value=\"" << Exact(v)
      << "\"><title>" << HtmlEscape(d.coordinates[0]) << " " << Num(d.grid[p][0]) << ", "
      << HtmlEscape(d.coordinates[1]) << " " << Num(d.grid[p][1]) << ": " << Num(v, 4) << " " << q.unit
      << "</title></rect>";
  }
  const Scale sx{xs.front(), xs.back(), left + cw / 2, left + w - cw / 2};
  const Scale sy{ys.front(), ys.back(), top + h - ch / 2, top + ch / 2};
  s << "<rect class=\"frame\" x=\"" << left << "\" y=\"" << top << "\" width=\"" << w << "\" height=\""
    << h << "\" style=\"fill:none;stroke:#888\"/>";
  for (double t : NiceTicks(xs.front(), xs.back(), 6))
    s << "<line x1=\"" << Coord(sx(t)) << "\" x2=\"" << Coord(sx(t)) << "\" y1=\"" << top + h << "\" y2=\""
      << top + h + 4 << "\" stroke=\"#888\"/><text class=\"" << kAxes << " x-tick\" x=\"" << Coord(sx(t))
      << "\" y=\"" << Coord(top + h + 16) << "\" text-anchor=\"middle\">" << Num(t) << "</text>";
  for (double t : NiceTicks(ys.front(), ys.back(), 6))
    s << "<line x1=\"" << left - 4 << "\" x2=\"" << left << "\" y1=\"" << Coord(sy(t)) << "\" y2=\""
      << Coord(sy(t)) << "\" stroke=\"#888\"/><text class=\"" << kAxes << " y-tick\" x=\""
      << Coord(left - 6) << "\" y=\"" << Coord(sy(t) + 4) << "\" text-anchor=\"end\">" << Num(t) << "</text>";
  s << "<text class=\"" << kAxes << " x-label\" x=\"" << Coord(left + w / 2) << "\" y=\"" << Coord(top + h + 36)
    << "\" text-anchor=\"middle\">" << AxisLabel(d, 0) << "</text><text class=\"" << kAxes
    << " y-label\" x=\"" << Coord(left - 6) << "\" y=\"" << Coord(top - 10) << "\" text-anchor=\"end\">"
    << AxisLabel(d, 1) << "</text>";
  for (const auto& [name, v] : MeasuredInRange(d, xs, ys))
    s << "<g class=\"measured-posture\" data-posture=\"" << HtmlEscape(name) << "\"><circle cx=\""
      << Coord(sx(v[0])) << "\" cy=\"" << Coord(sy(v[1])) << "\" r=\"6\" fill=\"none\" stroke=\"#fff\" "
      << "stroke-width=\"2.5\"/><circle cx=\"" << Coord(sx(v[0])) << "\" cy=\"" << Coord(sy(v[1]))
      << "\" r=\"6\" fill=\"none\" stroke=\"#d7301f\" stroke-width=\"1.5\"/><text x=\"" << Coord(sx(v[0]) + 9)
      << "\" y=\"" << Coord(sy(v[1]) + 4) << "\" font-size=\"11\" fill=\"#fff\" stroke=\"#000\" "
      << "stroke-width=\"0.4\">" << HtmlEscape(name) << "</text><title>fitted posture " << HtmlEscape(name)
      << "</title></g>";
  // Colour bar: the low end at the bottom, ticks at round values where they fall.
  const double bx = left + w + 16;
  for (int k = 0; k < 64; ++k)
    s << "<rect x=\"" << Coord(bx) << "\" y=\"" << Coord(top + h - (k + 1) * h / 64) << "\" width=\"12\" height=\""
      << Coord(h / 64 + 0.5) << "\" fill=\"" << SequentialColour((k + 0.5) / 64) << "\"/>";
  for (double t : BarTicks(lo, hi, log)) {
    const double y = top + h - std::clamp(fraction(t), 0.0, 1.0) * h;
    s << "<line x1=\"" << Coord(bx + 12) << "\" x2=\"" << Coord(bx + 16) << "\" y1=\"" << Coord(y) << "\" y2=\""
      << Coord(y) << "\" stroke=\"#888\"/><text class=\"" << kAxes << " bar-tick\" x=\"" << Coord(bx + 18)
      << "\" y=\"" << Coord(y + 4) << "\" data-value=\"" << Exact(t) << "\">" << Num(t) << "</text>";
  }
  s << "</svg><figcaption>" << HtmlEscape(q.title) << " [" << q.unit << "]" << (log ? ", log scale" : "")
    << (d.measured_postures.empty() ? "" : "; circles: the postures the fit measured")
    << "</figcaption></figure>\n";
  return s.str();
}

// One coordinate: the quantity against it, with its ±1σ band where it has one.
std::string Curve(const PostureMapData& d, const std::vector<size_t>& slice, const Quantity& q) {
  std::vector<double> x, y, up, down;
  for (size_t p : slice) {
    const double v = q.value(d.points[p]), s = q.sigma(d.points[p]);
    x.push_back(d.grid[p][0]), y.push_back(v);
    up.push_back(std::isfinite(s) ? v + s : NAN), down.push_back(std::isfinite(s) ? v - s : NAN);
  }
  double lo = INFINITY, hi = -INFINITY;
  for (const auto* series : {&y, &up, &down})
    for (double v : *series)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!(hi > lo)) hi = lo + 1.0;
  const double left = 70, top = 20, w = 480, h = 220;
  const Scale sx{x.front(), x.back() > x.front() ? x.back() : x.front() + 1, left, left + w};
  const Scale sy{lo, hi, top + h, top};
  std::ostringstream s;
  s << "<figure><svg class=\"map-curve\" id=\"curve-" << q.id << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
    << left + w + 20 << "\" height=\"" << top + h + 44 << "\">";
  s << "<path d=\"" << Path(x, up, sx, sy) << "\" stroke=\"" << kFittedColour
    << "\" stroke-dasharray=\"3 3\" fill=\"none\"/><path d=\"" << Path(x, down, sx, sy) << "\" stroke=\""
    << kFittedColour << "\" stroke-dasharray=\"3 3\" fill=\"none\"/><path class=\"value\" d=\"" << Path(x, y, sx, sy)
    << "\" stroke=\"" << kMeasuredColour << "\" stroke-width=\"1.6\" fill=\"none\"/>";
  for (double t : NiceTicks(x.front(), x.back(), 6))
    s << "<text class=\"" << kAxes << " x-tick\" x=\"" << Coord(sx(t)) << "\" y=\"" << Coord(top + h + 14)
      << "\" text-anchor=\"middle\">" << Num(t) << "</text>";
  for (double t : NiceTicks(lo, hi, 5))
    s << "<text class=\"" << kAxes << " y-tick\" x=\"" << Coord(left - 4) << "\" y=\"" << Coord(sy(t) + 4)
      << "\" text-anchor=\"end\">" << Num(t, 4) << "</text>";
  for (const auto& [name, v] : MeasuredInRange(d, x, {}))
    s << "<g class=\"measured-posture\" data-posture=\"" << HtmlEscape(name) << "\"><line x1=\""
      << Coord(sx(v[0])) << "\" x2=\"" << Coord(sx(v[0])) << "\" y1=\"" << top << "\" y2=\"" << top + h
      << "\" stroke=\"#d7301f\" stroke-dasharray=\"2 3\"/><text x=\"" << Coord(sx(v[0]) + 4) << "\" y=\""
      << top + 12 << "\" font-size=\"11\">" << HtmlEscape(name) << "</text></g>";
  s << "<text class=\"" << kAxes << " x-label\" x=\"" << Coord(left + w / 2) << "\" y=\"" << Coord(top + h + 32)
    << "\" text-anchor=\"middle\">" << AxisLabel(d, 0) << "</text></svg><figcaption>"
    << HtmlEscape(q.title) << " [" << q.unit << "]; dashed: ±1σ"
    << (d.measured_postures.empty() ? "" : "; dotted red: the postures the fit measured")
    << "</figcaption></figure>\n";
  return s.str();
}

}  // namespace

std::string RenderMapReportHtml(const PostureMapData& d, const std::string& map_path) {
  std::ostringstream s;
  s << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<title>frfit posture map: " << HtmlEscape(d.model_name) << "</title>\n<style>" << ReportStyle()
    << "</style>\n</head>\n<body>\n<header id=\"summary\">\n<h1>Posture map: model "
    << HtmlEscape(d.model_name) << "</h1>\n<table class=\"summary\"><tr><th>map file</th><td>"
    << HtmlEscape(map_path) << "</td></tr><tr><th>parameters</th><td>" << HtmlEscape(d.parameters_source)
    << "</td></tr><tr><th>base posture</th><td>" << HtmlEscape(d.base_posture)
    << "</td></tr><tr><th>postures</th><td id=\"map-postures\" data-value=\"" << d.points.size() << "\">"
    << d.points.size() << "</td></tr><tr><th>modes up to</th><td>" << HtmlEscape(d.max_hz)
    << " Hz</td></tr>" << (d.cut.empty() ? "" : "<tr><th>cut</th><td>" + HtmlEscape(d.cut) + "</td></tr>")
    << "</table>\n</header>\n";
  const bool two = d.coordinates.size() >= 2;
  const std::vector<size_t> slice = Slice(d, two ? 2 : 1);
  if (d.coordinates.size() > (two ? 2u : 1u)) {
    std::string fixed;
    for (size_t c = 2; c < d.coordinates.size(); ++c)
      fixed += (fixed.empty() ? "" : ", ") + d.coordinates[c] + " = " + Num(d.grid[0][c]);
    s << "<p class=\"note\">Shown: the slice at " << HtmlEscape(fixed) << " (the map file holds every posture).</p>\n";
  }
  s << "<section id=\"map\">\n<h2>" << (two ? "Over " + d.coordinates[0] + " and " + d.coordinates[1]
                                            : "Along " + d.coordinates[0])
    << "</h2>\n";
  for (const Quantity& q : Quantities(!d.cut.empty())) s << (two ? HeatMap(d, slice, q) : Curve(d, slice, q));
  s << "</section>\n<footer>Written by frfit " << FRFIT_VERSION << " <code>report</code> from "
    << HtmlEscape(map_path) << ".</footer>\n</body>\n</html>\n";
  return s.str();
}

void WriteMapReport(const std::string& map_path, const std::string& html_path) {
  WriteTextFileAtomically(html_path, RenderMapReportHtml(ReadPostureMap(map_path), map_path));
}

}  // namespace frfit
